import Foundation
import HardwareInterfaces
import Heading
import SensorDrivers
import SimulatedHardware
import Testing

@Suite("Simulated gyroscopes")
struct SimulatedGyroscopeTests {
    /// Reads the LSM6DSOX gyroscope (±`fs` code, 104 Hz) `count` times, one sample apart, in dps.
    func lsm6dsoxRates(_ model: LSM6DSOXModel, ctrl2G: UInt8 = 0x4C, count: Int) throws -> [SIMD3<Double>] {
        let device = SimulatedRegisterDevice(model)
        let (clock, bus, a) = try rig(device, at: 0x6A)
        try bus.writeRegister(0x11, ctrl2G, at: a)
        let mdps: [Double] = [8.75, 17.5, 35, 70]
        let scale = ctrl2G & 0x02 != 0 ? 4.375 : mdps[Int(ctrl2G >> 2 & 0x03)]
        var rates: [SIMD3<Double>] = []
        for _ in 0..<count {
            clock.sleep(for: .microseconds(9616))  // 104 Hz
            let c = axesLE(try bus.readRegisters(0x22, count: 6, at: a))
            rates.append(SIMD3(Double(c[0]), Double(c[1]), Double(c[2])) * scale / 1000)
        }
        return rates
    }

    @Test("LSM6DSOX: bias with temperature drift, scale error and saturation")
    func lsm6dsoxErrors() throws {
        var model = LSM6DSOXModel(angularRate: .constant(SIMD3(100, -50, 0)), temperature: 45)
        model.gyroscopeErrors = GyroscopeErrors(bias: SIMD3(1, -2, 0.5), biasTemperatureCoefficient: SIMD3(0.01, 0.02, -0.05),
                                                scaleError: SIMD3(0.01, -0.02, 0))
        let rate = try lsm6dsoxRates(model, count: 1)[0]
        // 100·1.01 + 1 + 0.2 = 102.2; -50·0.98 - 2 + 0.4 = -50.6; 0 + 0.5 - 1.0 = -0.5 (70 mdps steps).
        #expect(abs(rate.x - 102.2) <= 0.035 && abs(rate.y + 50.6) <= 0.035 && abs(rate.z + 0.5) <= 0.035)
        // 300 dps on a ±250 dps range saturates at the last count.
        let saturated = try lsm6dsoxRates(LSM6DSOXModel(angularRate: .constant(SIMD3(300, -300, 10))), ctrl2G: 0x40, count: 1)[0]
        #expect(abs(saturated.x - 32767 * 0.00875) < 1e-9 && abs(saturated.y + 32768 * 0.00875) < 1e-9 && abs(saturated.z - 10) < 0.005)
    }

    @Test("LSM6DSOX: white noise of the datasheet density")
    func lsm6dsoxNoise() throws {
        var model = LSM6DSOXModel()
        model.gyroscopeErrors = GyroscopeErrors(noiseDensity: 0.0038, seed: 7)
        let rates = try lsm6dsoxRates(model, ctrl2G: 0x42, count: 400)  // ±125 dps: 4.375 mdps steps
        let xs = rates.map(\.x)
        let mean = xs.reduce(0, +) / Double(xs.count)
        let sigma = (xs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(xs.count - 1)).squareRoot()
        let expected = 0.0038 * (104.0 / 2).squareRoot()  // 0.0274 dps
        #expect(abs(sigma - expected) < 0.15 * expected, "σ \(sigma) dps against \(expected)")
        #expect(abs(mean) < 0.01)
    }

    @Test("LSM6DSOX: the driver's self-test passes on the simulated chip and catches a dead axis")
    func lsm6dsoxSelfTest() throws {
        let clock = ManualClock()
        let bus = SimulatedI2CBus(name: "test-i2c", clock: clock)
        let address = try #require(I2CAddress(UInt8(0x6A)))
        var model = LSM6DSOXModel(angularRate: .constant(SIMD3(0.3, -0.2, 0.1)))
        model.gyroscopeErrors = .lsm6dsoxTypical(seed: 3)
        let device = SimulatedRegisterDevice(model)
        bus.attach(device, at: address)
        var driver = try LSM6DSOX(bus: bus, address: address, clock: clock)
        try driver.configure(.init(gyroscope: .init()))
        try driver.gyroscopeSelfTest()
        clock.sleep(for: .milliseconds(20))  // a sample at the restored range
        let sample = try driver.readInertial()
        #expect(abs(sample.rotationRate.x - 0.9) < 0.2, "bias 0.6 + 0.3")
        #expect(abs(sample.acceleration.z - 9.80665) < 0.01)
        // An axis whose scale is gone (scale error -1) shows no self-test response.
        device.withModel { $0.gyroscopeErrors = GyroscopeErrors(scaleError: SIMD3(0, 0, -1)) }
        #expect(throws: SensorError.self) { try driver.gyroscopeSelfTest() }
    }

    @Test("ICM-20948: bias, scale, self-test against the factory codes through the driver")
    func icm20948() throws {
        var model = ICM20948Model(angularRate: .constant(SIMD3(20, -10, 5)), temperature: 35)
        model.gyroscopeErrors = .icm20948Typical(seed: 5)
        let (icm, _) = makeICM20948(model)
        let clock = ManualClock()
        let bus = SimulatedI2CBus(name: "test-i2c", clock: clock)
        let address = try #require(I2CAddress(UInt8(0x69)))
        bus.attach(icm, at: address)
        var driver = try ICM20948(bus: bus, address: address, clock: clock)
        try driver.configure(.init(sampleRateDivider: 0, gyroscope: .init(range: .dps500, sampleRateDivider: 0)))
        clock.sleep(for: .milliseconds(2))
        let sample = try driver.readInertial()
        // 20·1.008 + 2.1 + 0.3 = 22.56; -10·0.988 - 3.4 - 0.4 = -13.68; 5·1.01 + 1.2 + 0.2 = 6.45 (noise 0.36 dps σ).
        #expect(abs(sample.rotationRate.x - 22.56) < 1.5 && abs(sample.rotationRate.y + 13.68) < 1.5
                && abs(sample.rotationRate.z - 6.45) < 1.5, "\(sample.rotationRate)")
        #expect(ICM20948Model.gyroscopeSelfTestResponse(code: 1) == 20)
        icm.withModel { $0.angularRate = .zero }
        try driver.gyroscopeSelfTest()
        #expect(driver.configuration?.gyroscope?.range == .dps500)
        // A chip at rest reading 30 dps fails criterion C.
        icm.withModel { $0.gyroscopeErrors = GyroscopeErrors(bias: SIMD3(30, 0, 0)) }
        #expect(throws: SensorError.self) { try driver.gyroscopeSelfTest() }
    }
}

@Suite("Sensor world in motion")
struct MotionWorldTests {
    func world(_ motion: MotionScript) -> SensorWorld {
        SensorWorld(latitude: 38.1, longitude: -122.6, motion: motion, distortion: .none, magnetometerNoise: 0,
                    accelerometerNoise: 0)
    }

    @Test("Angular rate follows the attitude: a level turn and a tilted one")
    func angularRate() {
        var level = world(.turning(yawRate: 30, pitch: 0, roll: 0))
        let r = level.inertialSample(at: 5).rotationRate
        #expect(abs(r.x) < 1e-6 && abs(r.y) < 1e-6 && abs(r.z - 30) < 1e-4)
        // Turning about the vertical while pitched 20°: the rate is the vertical in body axes.
        let tilted = world(.turning(yawRate: 30, pitch: 20, roll: 0))
        let b = tilted.bodyRate(at: 3)
        #expect(abs(b.x + 30 * sin(20 * .pi / 180)) < 1e-4 && abs(b.y) < 1e-4 && abs(b.z - 30 * cos(20 * .pi / 180)) < 1e-4)
        // Through the wrap from 359° to 0°.
        #expect(abs(level.bodyRate(at: 12).z - 30) < 1e-4)
    }

    @Test("Gait, vehicle acceleration and a passing object reach the sensors")
    func linearAndDisturbance() {
        var still = world(.still(BodyAttitude(yaw: 90)))
        let base = still.sample(at: 1)
        var walker = world(.still(BodyAttitude(yaw: 90)))
        walker.linearMotion = .gait()
        let magnitudes = stride(from: 0.0, to: 1, by: 0.01).map { walker.sample(at: $0).acceleration.length }
        #expect((magnitudes.max() ?? 0) > 1.25 && (magnitudes.min() ?? 2) < 0.75)
        var car = world(.still(BodyAttitude(yaw: 90)))
        car.linearMotion = .vehicle(longitudinal: { _ in -0.3 }, lateral: { _ in 0.3 }, vibration: 0)
        let braking = car.sample(at: 1).acceleration
        // Facing east: braking pushes the specific force backward (-x), cornering right +y.
        #expect(abs(braking.x + 0.3) < 1e-9 && abs(braking.y - 0.3) < 1e-9 && abs(braking.z + 1) < 1e-9)
        var passing = world(.still(BodyAttitude(yaw: 90)))
        passing.disturbances = [MagneticDisturbance(field: Vector3(0, 0, 30), start: 10, duration: 10)]
        #expect((passing.sample(at: 5).field - base.field).length < 1e-9)
        #expect(abs((passing.sample(at: 15).field - base.field).length - 30) < 1e-9)
        #expect((passing.sample(at: 21).field - base.field).length < 1e-9)
        #expect(still.sample(at: 1).acceleration == base.acceleration)
    }

    @Test("The attitude filter holds heading on a walking world where tilt compensation cannot")
    func walkingThroughTheFilter() {
        var w = world(.custom { t in
            let yaw = 40 + 90 * min(1, max(0, (t - 8) / 1.5)) + 180 * min(1, max(0, (t - 16) / 2.5))
            return BodyAttitude(yaw: yaw, pitch: 10, roll: -5)
        })
        w.linearMotion = .gait()
        let declination = w.elements.declination
        var filter = AttitudeFilter(reference: ReferenceField(w.elements))
        var fused: [Double] = [], tilt: [Double] = []
        for k in 0..<3000 {
            let t = Double(k) / 100
            let s = w.inertialSample(at: t)
            filter.update(gyroscope: s.rotationRate, acceleration: s.acceleration, field: s.field, deltaTime: k == 0 ? 0 : 0.01)
            fused.append(wrap180((filter.trueHeading ?? .nan) - s.attitude.yaw))
            if case .success(let solution) = TiltCompensation.solve(acceleration: s.acceleration, field: s.field) {
                tilt.append(wrap180(solution.magneticHeading + declination - s.attitude.yaw))
            }
        }
        let rms = { (e: [Double]) in (e.reduce(0) { $0 + $1 * $1 } / Double(e.count)).squareRoot() }
        #expect(rms(fused) < 2, "filter \(rms(fused))°")
        #expect(rms(tilt) > 5, "tilt \(rms(tilt))°")
    }
}
