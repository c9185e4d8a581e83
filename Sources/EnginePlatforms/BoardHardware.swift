import BoardConfig
import Devices
import HardwareInterfaces
import Heading
import PowerPolicy
import SensorDrivers
import SimulatedHardware
import Synchronization

/// A SensorWorld shared by the simulated chips of one board: each chip samples it at its own
/// instants on the platform's clock.
final class SharedSensorWorld: Sendable {
    let world: Mutex<SensorWorld>
    init(_ world: SensorWorld) { self.world = Mutex(world) }

    func field(at instant: MonotonicInstant) -> SIMD3<Double> {
        let f = world.withLock { $0.sample(at: instant.seconds).field }
        return SIMD3(f.x, f.y, f.z)
    }

    func acceleration(at instant: MonotonicInstant) -> SIMD3<Double> {
        let a = world.withLock { $0.sample(at: instant.seconds).acceleration } * PhysicalSource.standardGravity
        return SIMD3(a.x, a.y, a.z)
    }

    /// The true angular rate in the accelerometer's axes (the gyroscope shares its die), dps.
    func rotationRate(at instant: MonotonicInstant) -> SIMD3<Double> {
        let w = world.withLock { $0.accelerometerMount.transposed * $0.bodyRate(at: instant.seconds) }
        return SIMD3(w.x, w.y, w.z)
    }

    func setMotion(_ motion: MotionScript) { world.withLock { $0.motion = motion } }
}

/// Brings a board's hardware up on a platform: the simulated platform of a `sim` board, the
/// receiver's port, the sensor drivers with their mount matrices.
public enum BoardHardware {
    /// The serial port name of a simulated board's receiver.
    public static let simulatedPortName = "sim-gnss"

    /// A simulated board's platform and its receiver.
    public struct SimulatedBoard {
        /// The platform: bus with chips, GPIO lines, the receiver's port.
        public var platform: SimulatedPlatform
        /// The receiver behind ``simulatedPortName``: it obeys the board family's command set
        /// and keeps an energy ledger.
        public var receiver: ReceiverEmulator
        /// The Bluetooth radio hearing the board's `[[beacon]]`s along the trajectory, when the
        /// board names an adapter.
        public var beaconScanner: SimulatedBeaconScanner? = nil
    }

    /// The simulated platform of a simulated board (see ``simulatedBoard(for:motion:clock:)``).
    ///
    /// `linearMotion` adds a gait, braking or cornering to the accelerometer (and so to the
    /// motion the attitude filter must reject); `nil` keeps the board's default world.
    public static func simulatedPlatform(for board: BoardDescription, motion: MotionScript? = nil,
                                         clock: ManualClock = ManualClock(),
                                         linearMotion: LinearMotion? = nil) throws(HardwareError) -> SimulatedPlatform {
        try simulatedBoard(for: board, motion: motion, clock: clock, linearMotion: linearMotion).platform
    }

    /// A simulated board: its bus with its chips, its GPIO lines, and a receiver emulator of the
    /// board's family on ``simulatedPortName`` following the board's scenario; the chips measure
    /// a ``SensorWorld`` at the board's position (WMM field, the board's mount matrices, typical
    /// iron distortion, noise), moving as `motion` says (by default as the board's scenario says).
    ///
    /// `trajectory` replaces the board's scenario (a test's scripted walk); the receiver then
    /// starts asleep in backup with fresh ephemerides unless `receiverTracking` is set. The
    /// accelerometer vibrates while the trajectory moves, so motion detection works. `seed` is
    /// the random seed of the receiver's position error.
    public static func simulatedBoard(for board: BoardDescription, motion: MotionScript? = nil,
                                      clock: ManualClock = ManualClock(), trajectory: Trajectory? = nil,
                                      receiverTracking: Bool = true, linearMotion: LinearMotion? = nil,
                                      seed: UInt64 = 1) throws(HardwareError) -> SimulatedBoard {
        let sim = board.simulation
        let latitude = sim?.latitude ?? 47.3769, longitude = sim?.longitude ?? 8.5417
        let scenario = sim?.scenario.rawValue ?? "stationary"
        var devices: [SimulatedPlatformDescription.Device] = []
        // A chip behind a host's bypass (an AK09916) comes with its host (the ICM-20948).
        for sensor in board.sensors where sensor.chip.entry.host == nil {
            devices.append(.init(sensor.chip, address: sensor.address.rawValue))
        }
        let bus = board.i2cBus ?? 1
        var gpio: [SimulatedPlatformDescription.GPIOChip] = []
        if let g = board.gpio {
            let names = g.lines.values.compactMap { id -> String? in if case .name(let n) = id { return n } else { return nil } }
            gpio.append(.init(name: g.chip, lines: names.sorted()))
        }
        let description = SimulatedPlatformDescription(
            buses: [.init(number: bus, devices: devices)], gpioChips: gpio,
            serialPorts: [.init(path: simulatedPortName, baudRate: board.receiver?.baudRate.rawValue ?? 9600)])
        // The engine reads its sensors ten times a second all day and nothing reads the bus's
        // transaction log, so it keeps only a short trail (a full one is 2 MB or more).
        let platform = try SimulatedPlatform(description, clock: clock, i2cLogCapacity: 64)
        let family = ReceiverEmulator.Family(model: ReceiverModel.lookup(family: board.receiver?.family ?? .genericNMEA,
                                                                         model: board.receiver?.model))
        let profile = family.model.powerProfile
        let track = trajectory
            ?? Trajectory.scenario(scenario, seconds: 6 * 3600, latitude: latitude, longitude: longitude)
            ?? Trajectory.legs([.init(duration: 6 * 3600, speed: 0, course: 0)], latitude: latitude, longitude: longitude)
        let receiver = ReceiverEmulator(family: family, profile: profile, trajectory: track, start: clock.now(),
                                        awake: receiverTracking, tracking: receiverTracking, seed: seed)
        if let altitude = sim?.altitude { receiver.setAltitude(altitude) }
        platform.serialPort(simulatedPortName)?.attach(receiver)
        let mag = board.magnetometer.map { Heading.Matrix3(rows: $0.orientation) } ?? .identity
        let acc = board.accelerometer.map { Heading.Matrix3(rows: $0.orientation) } ?? .identity
        let script: MotionScript = motion ?? (scenario == "stationary"
            ? .still(BodyAttitude(yaw: 30, pitch: 2, roll: -1))
            : .turning(yawRate: scenario == "walk" ? 2 : 6, pitch: 3, roll: -2))
        var sensorWorld = SensorWorld(latitude: latitude, longitude: longitude, heightKm: (sim?.altitude ?? 0) / 1000,
                                      motion: script, magnetometerMount: mag, accelerometerMount: acc)
        let origin = clock.now().seconds
        sensorWorld.vibration = { t in
            let speed = track.at(t - origin).speed
            return speed > 0.2 ? min(0.3, 0.05 + 0.01 * speed) : 0
        }
        if let linearMotion { sensorWorld.linearMotion = linearMotion }
        let world = SharedSensorWorld(sensorWorld)
        if let simBus = platform.bus(bus) {
            for sensor in board.sensors {
                guard let device = simBus.device(at: sensor.address) else { continue }
                feed(device, world: world, gyroscopeErrors: sim?.gyroscopeErrors ?? .ideal)
            }
            for companion in board.sensors.flatMap(\.chip.companions) {
                guard let address = companion.addresses.first.flatMap({ I2CAddress($0) }),
                      let device = simBus.device(at: address) else { continue }
                feed(device, world: world)
            }
        }
        let scanner = simulatedBeaconScanner(for: board, clock: clock, trajectory: track)
        return SimulatedBoard(platform: platform, receiver: receiver, beaconScanner: scanner)
    }

    static func feed(_ device: any SimulatedI2CDevice, world: SharedSensorWorld,
                     gyroscopeErrors: SimulatedGyroscopeErrors = .ideal) {
        let field = PhysicalSource.function { world.field(at: $0) }
        let acceleration = PhysicalSource.function { world.acceleration(at: $0) }
        let rate = PhysicalSource.function { world.rotationRate(at: $0) }
        connectSimulatedSensor(device, field: field, acceleration: acceleration, rotationRate: rate)
        guard gyroscopeErrors == .typical else { return }
        if let d = device as? SimulatedRegisterDevice<LSM6DSOXModel> { d.withModel { $0.gyroscopeErrors = .lsm6dsoxTypical() } }
        if let d = device as? SimulatedRegisterDevice<ICM20948Model> { d.withModel { $0.gyroscopeErrors = .icm20948Typical() } }
    }

    /// The platform a board runs on: simulated for `simulated = true`, else `linux`.
    public static func platform(for board: BoardDescription, linux: @autoclosure () -> any HardwarePlatform,
                                motion: MotionScript? = nil) throws(HardwareError) -> any HardwarePlatform {
        board.simulated ? try simulatedPlatform(for: board, motion: motion) : linux()
    }
}
