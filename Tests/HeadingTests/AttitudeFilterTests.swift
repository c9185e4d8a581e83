import Foundation
import Heading
import Testing

@Suite("Attitude quaternion")
struct AttitudeQuaternionTests {
    @Test("Euler angles round-trip and the rows are those of Rz·Ry·Rx")
    func euler() {
        for (yaw, pitch, roll) in [(0.0, 0.0, 0.0), (123.0, 20.0, -30.0), (359.0, -45.0, 170.0), (200.0, 80.0, 10.0)] {
            let q = AttitudeQuaternion(roll: roll, pitch: pitch, yaw: yaw)
            #expect(abs(wrap180(q.yaw - yaw)) < 1e-9)
            #expect(abs(q.pitch - pitch) < 1e-9)
            #expect(abs(wrap180(q.roll - roll)) < 1e-9)
            let r = bodyToNED(yaw: yaw, pitch: pitch, roll: roll)
            #expect((q.northInBody - r.r0).length < 1e-12)
            #expect((q.eastInBody - r.r1).length < 1e-12)
            #expect((q.downInBody - r.r2).length < 1e-12)
            let back = AttitudeQuaternion(north: r.r0, east: r.r1, down: r.r2)
            #expect(back.angle(to: q) < 1e-6)
        }
    }

    @Test("Integrating a constant rate turns by rate × time")
    func integration() {
        var q = AttitudeQuaternion(roll: 0, pitch: 0, yaw: 10)
        for _ in 0..<100 { q = q.integrated(Vector3(0, 0, 90 * .pi / 180), over: 0.01) }
        #expect(abs(wrap180(q.yaw - 100)) < 0.01)
    }
}

@Suite("Attitude filter against tilt compensation")
struct AttitudeFilterTests {
    @Test("Still, tilted up to ±30°: no worse than today and ≤ 1° RMS")
    func still() {
        var world = MotionWorld(seed: 18_001)
        var tilt: [Double] = [], fused: [Double] = []
        var poseRNG = SplitMix(state: 77)
        for k in 0..<12 {
            let yaw = Double(k) * 30 + 7
            let pitch = Double.random(in: -30...30, using: &poseRNG)
            let roll = Double.random(in: -30...30, using: &poseRNG)
            let samples = world.run(duration: 20) { _ in MotionState(yaw: yaw, pitch: pitch, roll: roll) }
            let result = compare(samples)
            tilt += result.tiltErrors
            fused += result.filterErrors
        }
        let t = HeadingErrors(tilt), f = HeadingErrors(fused)
        print("attitude still: tilt \(t); filter \(f)")
        #expect(f.rms <= 1)
        #expect(f.rms <= t.rms)
    }

    /// Walking, unit held 15° nose up: 2 Hz gait bounce (0.3 g vertical, 0.15 g fore-aft),
    /// 1 Hz sway, body pitch and roll oscillation, and 90° and 180° turns both ways.
    static func walking(seed: UInt64) -> [MotionSample] {
        var world = MotionWorld(seed: seed)
        return world.run(duration: 60) { t in
            let yaw = 30 + 90 * smoothStep(t, start: 10, length: 1.5) + 180 * smoothStep(t, start: 20, length: 2.5)
                - 90 * smoothStep(t, start: 32, length: 1.5) - 180 * smoothStep(t, start: 44, length: 2.5)
                + 90 * smoothStep(t, start: 52, length: 1.5)
            let walking = smoothPulse(t, start: 2, length: 56, edge: 1)
            let pitch = 15 + walking * 2 * sin(2 * .pi * 2 * t)
            let roll = -5 + walking * 3 * sin(2 * .pi * t)
            let forward = walking * 0.15 * sin(2 * .pi * 2 * t + 0.5)
            let lateral = walking * 0.08 * sin(2 * .pi * t)
            let vertical = walking * 0.3 * sin(2 * .pi * 2 * t)
            let psi = yaw * .pi / 180
            return MotionState(yaw: yaw, pitch: pitch, roll: roll,
                               linear: Vector3(forward * cos(psi) - lateral * sin(psi),
                                               forward * sin(psi) + lateral * cos(psi), vertical))
        }
    }

    @Test("Walking with 90° and 180° turns: ≤ 2° RMS, ≤ 6° p99")
    func walking() {
        let result = compare(Self.walking(seed: 18_002))
        print("attitude walking: tilt \(result.tilt); filter \(result.filter)")
        #expect(result.filter.rms <= 2)
        #expect(result.filter.p99 <= 6)
        #expect(result.filter.rms < result.tilt.rms)
    }

    /// The car's longitudinal acceleration (g) at a time.
    static func carLongitudinal(_ t: Double) -> Double {
        0.2 * smoothPulse(t, start: 5, length: 7, edge: 0.5) - 0.3 * smoothPulse(t, start: 34, length: 3, edge: 0.5)
            + 0.2 * smoothPulse(t, start: 37.5, length: 3, edge: 0.5) - 0.3 * smoothPulse(t, start: 60, length: 3.5, edge: 0.5)
    }

    /// The car's lateral acceleration (g, right positive) at a time.
    static func carLateral(_ t: Double) -> Double {
        0.3 * smoothPulse(t, start: 20, length: 4.5, edge: 1) - 0.3 * smoothPulse(t, start: 45, length: 4.5, edge: 1)
            + 0.3 * smoothPulse(t, start: 52, length: 4, edge: 1)
    }

    /// Speed (m/s) and yaw (degrees) of the car on the 100 Hz grid, integrated from the schedules.
    static func carProfile() -> (speeds: [Double], yaws: [Double]) {
        let g = 9.80665, dt = 0.01
        var speeds: [Double] = [], yaws: [Double] = []
        var v = 0.0, yaw = 70.0
        for k in 0..<8000 {
            let t = Double(k) * dt
            speeds.append(v)
            yaws.append(yaw)
            let latG = v > 1 ? carLateral(t) : 0
            yaw += latG * g / max(v, 1) * dt * 180 / .pi
            v = max(0, v + carLongitudinal(t) * g * dt)
        }
        return (speeds, yaws)
    }

    /// A car: starts from rest, accelerates at 0.2 g, corners right and left at 0.3 g lateral,
    /// brakes at 0.3 g, with engine and road vibration; the unit is mounted 5° nose up, 3° rolled.
    static func car(seed: UInt64) -> [MotionSample] {
        let (speeds, yaws) = carProfile()
        let dt = 0.01
        var world = MotionWorld(seed: seed)
        world.vibration = 0.02
        world.gyroscopeVibration = 0.3
        return world.run(duration: 80) { t in
            let k = min(yaws.count - 1, Int((t / dt).rounded()))
            let moving = speeds[k] > 0.1
            let lon = moving ? carLongitudinal(t) : 0
            let lat = speeds[k] > 1 ? carLateral(t) : 0
            let psi = yaws[k] * .pi / 180
            // Body pitch dips under braking, rolls out of the corner (about 3° per g... per 0.3 g).
            let vibration = moving ? 0.03 * sin(2 * .pi * 12 * t) : 0
            return MotionState(yaw: yaws[k], pitch: 5 + 4 * lon, roll: 3 - 10 * lat,
                               linear: Vector3(lon * cos(psi) - lat * sin(psi), lon * sin(psi) + lat * cos(psi), vibration))
        }
    }

    @Test("Car braking and cornering at 0.3 g, the fix's speed known: ≤ 3° RMS")
    func car() {
        let speeds = Self.carProfile().speeds
        let result = compare(Self.car(seed: 18_003)) { speeds[min(speeds.count - 1, Int(($0 / 0.01).rounded()))] }
        print("attitude car: tilt \(result.tilt); filter \(result.filter); recoveries \(result.final.recoveries)")
        #expect(result.filter.rms <= 3)
        #expect(result.filter.rms < result.tilt.rms)
    }

    @Test("A 30 µT object passing for 10 s: peak error ≤ 5° while today's path is far off")
    func disturbance() {
        var world = MotionWorld(seed: 18_004)
        let direction = Vector3(0.5, -0.6, 0.62).normalized
        let samples = world.run(duration: 40) { t in
            MotionState(yaw: 120, pitch: 10, roll: -20,
                        disturbance: direction * (30 * smoothPulse(t, start: 15, length: 10, edge: 1)))
        }
        let result = compare(samples, from: 2)
        print("attitude disturbance: tilt \(result.tilt); filter \(result.filter)")
        #expect(result.filter.peak <= 5)
        #expect(result.tilt.peak > 20)
    }

    @Test("A 1°/s gyroscope bias is learnt within 30 s of stillness")
    func bias() {
        var world = MotionWorld(seed: 18_005)
        world.gyroscopeBias = Vector3(0.4, -0.6, 1.0)
        let samples = world.run(duration: 30) { _ in MotionState(yaw: 250, pitch: -12, roll: 8) }
        let result = compare(samples)
        let residual = result.final.gyroscopeBias - world.gyroscopeBias
        print("attitude bias: residual \(residual) dps after 30 s; filter \(result.filter)")
        #expect(abs(residual.x) < 0.05 && abs(residual.y) < 0.05 && abs(residual.z) < 0.05)
        #expect(abs(result.filterErrors.last ?? 180) < 0.5)
        #expect(result.final.isStill)
    }

    @Test("A wrong first sample is outvoted within a second: no trigger, no reset")
    func wrongStart() {
        var world = MotionWorld(seed: 18_006)
        let samples = world.run(duration: 12) { _ in MotionState(yaw: 40, pitch: 5, roll: 5) }
        var filter = AttitudeFilter(reference: MotionWorld.reference)
        // Initialise from a field turned by 90° (as beside a steel door), then feed clean samples:
        // the heading correction starts as a running mean of every field sample since the start.
        let first = samples[0]
        filter.update(gyroscope: .zero, acceleration: first.acceleration,
                      field: Vector3(first.field.y * -1, first.field.x, first.field.z), deltaTime: 0)
        for s in samples.dropFirst() {
            filter.update(gyroscope: s.gyroscope, acceleration: s.acceleration, field: s.field, deltaTime: 0.01)
            if s.t >= 1 { #expect(abs(wrap180((filter.trueHeading ?? .nan) - s.trueHeading)) < 2) }
        }
        #expect(filter.recoveries == 0)
        #expect(filter.sources.contains(.magnetometer))
    }

    @Test("The GNSS course aids heading only when the board enables it and above its speed")
    func courseAid() {
        var world = MotionWorld(seed: 18_007)
        world.gyroscopeBias = .zero
        let samples = world.run(duration: 60) { _ in MotionState(yaw: 100, pitch: 0, roll: 0) }
        // After the first second the field's magnitude grows by 30 % (a disturbance that never
        // ends, on a unit that does not turn): the magnetometer is not believed after it, so only
        // the course can move heading.
        for aid in [false, true] {
            var filter = AttitudeFilter(gains: AttitudeFilterGains(gnssCourseAid: aid), reference: MotionWorld.reference)
            var usedCourse = false
            for (k, s) in samples.enumerated() {
                filter.update(gyroscope: s.gyroscope, acceleration: s.acceleration, field: s.field * (s.t < 1 ? 1 : 1.3),
                              deltaTime: k == 0 ? 0 : 0.01, speed: 12, course: 130)
                usedCourse = usedCourse || filter.sources.contains(.gnssCourse)
                #expect(s.t < 1 || !filter.sources.contains(.magnetometer))
            }
            let heading = filter.trueHeading ?? .nan
            if aid {
                #expect(usedCourse)
                #expect(abs(wrap180(heading - 130)) < 2)
            } else {
                #expect(!usedCourse)
                #expect(abs(wrap180(heading - 100)) < 2)
            }
        }
        // Below the speed the course is ignored.
        var slow = AttitudeFilter(gains: AttitudeFilterGains(gnssCourseAid: true), reference: MotionWorld.reference)
        for (k, s) in samples.prefix(200).enumerated() {
            slow.update(gyroscope: s.gyroscope, acceleration: s.acceleration, field: s.field,
                        deltaTime: k == 0 ? 0 : 0.01, speed: 2, course: 130)
            #expect(!slow.sources.contains(.gnssCourse))
        }
    }

    @Test("Bad input: no initialisation without gravity or field; a long gap re-initialises")
    func badInput() {
        var filter = AttitudeFilter()
        #expect(filter.update(gyroscope: .zero, acceleration: .zero, field: Vector3(20, 0, 40), deltaTime: 0).isEmpty)
        #expect(filter.magneticHeading == nil)
        filter.update(gyroscope: .zero, acceleration: Vector3(0, 0, -1), field: Vector3(20, 0, 40), deltaTime: 0)
        #expect(abs(wrap180((filter.magneticHeading ?? .nan) - 0)) < 1e-9)
        #expect(filter.update(gyroscope: Vector3(.nan, 0, 0), acceleration: Vector3(0, 0, -1), field: Vector3(20, 0, 40),
                              deltaTime: 0.01).isEmpty)
        // Facing east after a 5 s gap: taken from the sensors, not integrated.
        let sources = filter.update(gyroscope: .zero, acceleration: Vector3(0, 0, -1), field: Vector3(0, -20, 40), deltaTime: 5)
        #expect(sources == [.accelerometer, .magnetometer])
        #expect(abs(wrap180((filter.magneticHeading ?? .nan) - 90)) < 1e-9)
        #expect(filter.trueHeading == nil)
    }
}
