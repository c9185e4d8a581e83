import Devices
import HardwareInterfaces

/// Three components in the sensor's own axes, as its datasheet draws them (named apart from
/// `Heading.Vector3`, which is in the body frame).
///
/// No mounting matrix is applied here: the heading code maps chip axes to body axes later.
public struct SensorVector: Sendable, Hashable, CustomStringConvertible {
    /// The X component.
    public var x: Double
    /// The Y component.
    public var y: Double
    /// The Z component.
    public var z: Double

    /// Creates a vector.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The zero vector.
    public static let zero = SensorVector(x: 0, y: 0, z: 0)

    /// `(x, y, z)`.
    public var description: String { "(\(x), \(y), \(z))" }
}

/// One magnetometer reading.
public struct MagnetometerSample: Sendable, Hashable {
    /// The magnetic flux density in microtesla, in the chip's axes.
    public var field: SensorVector
    /// The die temperature in degrees Celsius, when the chip reports an absolute one.
    public var temperature: Double?

    /// Creates a sample.
    public init(field: SensorVector, temperature: Double? = nil) {
        self.field = field
        self.temperature = temperature
    }
}

/// One accelerometer reading.
public struct AccelerometerSample: Sendable, Hashable {
    /// Specific force in metres per second squared, in the chip's axes: a chip lying still and
    /// level with its Z axis up reads about +9.81 on Z.
    public var acceleration: SensorVector
    /// The die temperature in degrees Celsius, when the chip reports one.
    public var temperature: Double?

    /// Creates a sample.
    public init(acceleration: SensorVector, temperature: Double? = nil) {
        self.acceleration = acceleration
        self.temperature = temperature
    }
}

/// How long a driver waits for a measurement: `attempts` status reads, `interval` apart.
///
/// Every wait in this target is bounded by one of these, as the kernel's IIO drivers do
/// (for example 150 reads 20 ms apart in hmc5843); there is no unbounded loop.
public struct ReadyPolling: Sendable, Hashable, CustomStringConvertible {
    /// How many times the status register is read before giving up (at least 1).
    public var attempts: Int
    /// The pause between two reads.
    public var interval: Duration

    /// Creates a policy; `attempts` below 1 is taken as 1.
    public init(attempts: Int, interval: Duration) {
        self.attempts = max(1, attempts)
        self.interval = interval
    }

    /// The longest total wait: `(attempts - 1) * interval`.
    public var longestWait: Duration { interval * (attempts - 1) }

    /// `20 x 5 ms`.
    public var description: String { "\(attempts) x \(interval)" }
}

/// What went wrong talking to a sensor.
public enum SensorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An identity register (or, for parts without one, a register probed for its documented
    /// behaviour) held another value: a different chip answers at this address.
    case unexpectedDevice(chip: SensorChip, device: String, register: UInt8, expected: UInt8, found: UInt8)
    /// The bus failed; ``HardwareError/device`` names the chip and its address.
    case bus(HardwareError)
    /// The chip did not report new data within the bounded wait.
    case dataNotReady(chip: SensorChip, device: String, after: ReadyPolling)
    /// A self-test measured a change outside the datasheet's window.
    case selfTestFailed(chip: SensorChip, device: String, detail: String)
    /// The magnetic field exceeded the measurement range, so the sample is unusable.
    case overflow(chip: SensorChip, device: String)
    /// The chip cannot do this, or not in this configuration.
    case unsupported(chip: SensorChip, feature: String)

    /// One line naming the chip, the device and what happened.
    public var description: String {
        switch self {
        case .unexpectedDevice(let chip, let device, let register, let expected, let found):
            return "\(device): not a \(chip): register \(hex(register)) reads \(hex(found)), expected \(hex(expected))"
        case .bus(let error):
            return error.description
        case .dataNotReady(let chip, let device, let polling):
            return "\(device): \(chip) reported no new data after \(polling) status reads"
        case .selfTestFailed(let chip, let device, let detail):
            return "\(device): \(chip) self-test failed: \(detail)"
        case .overflow(let chip, let device):
            return "\(device): \(chip) magnetic sensor overflow (field beyond the range)"
        case .unsupported(let chip, let feature):
            return "\(chip) does not support \(feature)"
        }
    }
}

/// An exact scale: `nanoUnits` nano-units of the physical quantity per `counts` counts.
///
/// Magnetometers use nanotesla (1 G = 100 000 nT), accelerometers nano-g. Keeping the
/// datasheet's numbers as integers (6842 LSB/G is `100_000 / 6842` nT per count, 0.061 mg/LSB is
/// `61_000 / 1` nano-g) keeps the tables exact; the division happens once, in ``value(_:)``.
public struct Scale: Sendable, Hashable {
    /// The numerator: nano-units.
    public let nanoUnits: Int64
    /// The denominator: counts.
    public let counts: Int64

    /// Creates a scale of `nanoUnits` per `counts` counts.
    public init(nanoUnits: Int64, perCounts counts: Int64) {
        self.nanoUnits = nanoUnits
        self.counts = max(1, counts)
    }

    /// A scale given as counts per gauss, as ST and QST datasheets give it.
    public static func countsPerGauss(_ counts: Int64) -> Scale { Scale(nanoUnits: 100_000, perCounts: counts) }

    /// A scale given as counts per g, as TDK datasheets give it.
    public static func countsPerG(_ counts: Int64) -> Scale { Scale(nanoUnits: 1_000_000_000, perCounts: counts) }

    /// The value of `raw` counts, in nano-units.
    public func value(_ raw: Int) -> Double { Double(raw) * Double(nanoUnits) / Double(counts) }

    /// The value of `raw` counts in microtesla (for a nanotesla scale).
    public func microtesla(_ raw: Int) -> Double { value(raw) / 1000 }

    /// The value of `raw` counts in metres per second squared (for a nano-g scale).
    public func metresPerSecondSquared(_ raw: Int) -> Double { value(raw) / 1e9 * standardGravity }
}

/// Standard gravity, 9.80665 m/s² per g (CGPM 1901), used to turn g into m/s².
public let standardGravity = 9.80665

/// A magnetometer driver: identity check, configuration, reads in microtesla.
///
/// Drivers are values holding shadow copies of their configuration registers, so changing one
/// field is one register write and the state can be inspected; hence the `mutating` methods.
public protocol Magnetometer: Sendable {
    /// The chip-specific settings ``configure(_:)`` takes.
    associatedtype Configuration: Sendable

    /// The chip this driver talks to.
    var chip: SensorChip { get }
    /// The chip and address, for messages: `LIS3MDL at /dev/i2c-1@0x1c`.
    var device: String { get }
    /// Checks the identity register(s); throws ``SensorError/unexpectedDevice(chip:device:register:expected:found:)``.
    func identify() throws(SensorError)
    /// Writes `configuration` to the chip (mode, data rate, range).
    mutating func configure(_ configuration: Configuration) throws(SensorError)
    /// Reads one sample; in single-shot mode this triggers a measurement and waits for it (bounded).
    mutating func read() throws(SensorError) -> MagnetometerSample
    /// Whether the status register reports a new sample.
    func isDataReady() throws(SensorError) -> Bool
    /// Puts the chip in its lowest-power mode.
    mutating func powerDown() throws(SensorError)
    /// Runs the chip's self-test; throws ``SensorError/unsupported(chip:feature:)`` where the driver has none.
    mutating func selfTest() throws(SensorError)
}

/// An accelerometer driver: identity check, configuration, reads in m/s².
public protocol Accelerometer: Sendable {
    /// The chip-specific settings ``configure(_:)`` takes.
    associatedtype Configuration: Sendable

    /// The chip this driver talks to.
    var chip: SensorChip { get }
    /// The chip and address, for messages.
    var device: String { get }
    /// Checks the identity register; throws ``SensorError/unexpectedDevice(chip:device:register:expected:found:)``.
    func identify() throws(SensorError)
    /// Writes `configuration` to the chip.
    mutating func configure(_ configuration: Configuration) throws(SensorError)
    /// Reads the latest sample.
    mutating func read() throws(SensorError) -> AccelerometerSample
    /// Whether the status register reports a new sample.
    func isDataReady() throws(SensorError) -> Bool
    /// Puts the accelerometer in power-down.
    mutating func powerDown() throws(SensorError)
    /// Runs the chip's self-test; throws ``SensorError/unsupported(chip:feature:)`` where the driver has none.
    mutating func selfTest() throws(SensorError)
}

extension Magnetometer {
    /// No self-test in this driver.
    public mutating func selfTest() throws(SensorError) { throw .unsupported(chip: chip, feature: "self-test") }
}

extension Accelerometer {
    /// No self-test in this driver.
    public mutating func selfTest() throws(SensorError) { throw .unsupported(chip: chip, feature: "self-test") }
}

/// Register access for one chip at one address: every bus error comes back as
/// ``SensorError/bus(_:)`` with the chip and address in ``HardwareError/device``, and every
/// transfer is exactly one bus operation with the register sub-address as given.
struct RegisterIO: Sendable {
    let bus: any I2CBus
    let address: I2CAddress
    let chip: SensorChip

    /// `LIS3MDL at /dev/i2c-1@0x1c`.
    var device: String { "\(chip) at \(bus.deviceName(address))" }

    private func transfer(_ operation: I2COperation) throws(SensorError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try bus.transfer(operation, at: address)
        } catch {
            var named = error
            named.device = device
            throw .bus(named)
        }
        guard bytes.count == operation.responseLength else {
            throw .bus(HardwareError(.bus, device: device, operation: operation.description,
                                     detail: "short read: \(bytes.count) of \(operation.responseLength) bytes"))
        }
        return bytes
    }

    func read(_ register: UInt8) throws(SensorError) -> UInt8 {
        try transfer(.readByte(register: register))[0]
    }

    func write(_ register: UInt8, _ value: UInt8) throws(SensorError) {
        _ = try transfer(.writeByte(register: register, value: value))
    }

    /// One burst read of `count` bytes with `register` sent exactly as given (an ST driver
    /// passes the sub-address with bit 7 already set).
    func readBlock(_ register: UInt8, count: Int) throws(SensorError) -> [UInt8] {
        try transfer(.readBlock(register: register, count: count))
    }

    func writeBlock(_ register: UInt8, _ bytes: [UInt8]) throws(SensorError) {
        _ = try transfer(.writeBlock(register: register, bytes: bytes))
    }

    /// Checks that `register` holds `expected`.
    func expect(_ register: UInt8, is expected: UInt8) throws(SensorError) {
        let found = try read(register)
        guard found == expected else {
            throw .unexpectedDevice(chip: chip, device: device, register: register, expected: expected, found: found)
        }
    }

    /// Checks the chip's identity registers as its row in the device catalogue lists them, in order.
    func expectIdentity() throws(SensorError) {
        for identity in chip.entry.identity { try expect(identity.register, is: identity.value) }
    }

    /// Reads `register` until `mask` is set, at most `polling.attempts` times.
    func waitFor(_ mask: UInt8, in register: UInt8, polling: ReadyPolling, clock: any MonotonicClock) throws(SensorError) {
        let ready: Bool? = try clock.poll(attempts: polling.attempts, interval: polling.interval) { () throws(SensorError) -> Bool? in
            try read(register) & mask == mask ? true : nil
        }
        guard ready != nil else { throw .dataNotReady(chip: chip, device: device, after: polling) }
    }
}

/// A little-endian signed 16-bit value at `offset`.
@inline(__always)
func int16LE(_ bytes: [UInt8], _ offset: Int) -> Int {
    Int(Int16(bitPattern: UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8))
}

/// A big-endian signed 16-bit value at `offset`.
@inline(__always)
func int16BE(_ bytes: [UInt8], _ offset: Int) -> Int {
    Int(Int16(bitPattern: UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])))
}
