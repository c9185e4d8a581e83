// The device catalogue: one row per sensor chip (this file), per receiver family
// (ReceiverFamily.swift) and per receiver model (ReceiverModel.swift). Every other target asks
// these rows for a device's facts (identity, addresses, role, board-file spellings, display name,
// power profile) instead of keeping its own list.
//
// The catalogue is pure and sits low in the graph (it imports only PowerPolicy, for the receiver
// power profiles), so the targets that make drivers and models from a row sit above it and keep
// their factory tables keyed by the catalogue's enums:
//   - SensorDrivers/DriverFactory.swift: `SensorChip.driverFactory`, the function making a chip's
//     driver from a bus (identity check only, or configured as a magnetometer or accelerometer);
//   - SimulatedHardware/SimulatedChips.swift: `SensorChip.attachSimulated(at:on:)`, the simulated
//     register model of the chip, and `connectSimulatedSensor`, what that model senses;
//   - ReceiverProtocols/ReceiverDriverFactory.swift: `ReceiverFamily.makeDriver(...)`, the
//     command-set driver of a family; SimulatedHardware's `ReceiverEmulator.Family(model:)`, the
//     emulator that imitates a model.
// Each of those is a `switch` over the catalogue's enum, so the compiler points at every table a
// new case must reach.
//
// How to add a sensor chip:
//   1. Add a case to `SensorChip` below (its raw value is the board-file spelling) and its row in
//      `SensorChip.entry`: display name, every board-file spelling, role, I2C addresses (usual
//      first), identity registers, gyroscope ranges, host chip if it hides behind another, and a
//      wiring hint.
//   2. Write the driver, one file in Sources/SensorDrivers conforming to `Magnetometer` or
//      `Accelerometer` (its `chip` is the new case; its `identify()` calls `io.expectIdentity()`,
//      which checks the row's identity registers), and add its line to `driverFactory` in
//      SensorDrivers/DriverFactory.swift.
//   3. For the simulator: the chip's register model in Sources/SimulatedHardware and its lines in
//      SimulatedChips.swift (`attachSimulated`, and `connectSimulatedSensor` for what it senses).
// Nothing else changes: board parsing accepts the new spellings, `fieldloc detect` scans its
// addresses, the engine opens it on a board that names it, and the catalogue tests check that
// the spelling round-trips through the board parser and that the driver accepts the simulated chip.
//
// How to add a receiver: a model of a known family is one row in `ReceiverModel` (its name
// markers and power profile). A new family is a case and row in `ReceiverFamily`, its command-set
// driver in Sources/ReceiverProtocols with its line in ReceiverDriverFactory.swift, and its
// capabilities in ReceiverProtocols/Families.swift.

/// What a sensor measures.
public enum SensorRole: String, Sendable, Hashable, CaseIterable {
    /// Acceleration (and so the direction of gravity).
    case accelerometer
    /// The magnetic field.
    case magnetometer
    /// Both from one I2C address. None of today's chips answer both at one address (the
    /// LSM303AGR's halves and the ICM-20948's AK09916 have their own addresses), but a combined
    /// part would.
    case both

    /// Whether the role includes the magnetic field.
    public var measuresMagneticField: Bool { self != .accelerometer }

    /// Whether the role includes acceleration.
    public var measuresAcceleration: Bool { self != .magnetometer }
}

/// A register that holds a fixed value on the chip: how a chip is told from another at its address.
public struct IdentityRegister: Sendable, Hashable {
    /// The register's sub-address.
    public let register: UInt8
    /// The value it reads on this chip.
    public let value: UInt8

    /// Register `register` reads `value`.
    public init(_ register: UInt8, is value: UInt8) {
        self.register = register
        self.value = value
    }
}

/// One row of the sensor catalogue: everything the package knows about a chip apart from its
/// register map (which is the driver's).
public struct SensorChipEntry: Sendable, Hashable {
    /// The chip.
    public let chip: SensorChip
    /// The name people and datasheets use (`LSM303AGR accelerometer`), for messages.
    public let displayName: String
    /// Every `chip = "..."` spelling a board file may use; the first is the one written and listed.
    public let boardSpellings: [String]
    /// What the chip measures.
    public let role: SensorRole
    /// The 7-bit I2C addresses the chip can be strapped to, the usual one first.
    public let addresses: [UInt8]
    /// Registers the driver's identity check reads, with their values, in the order it reads them.
    public let identity: [IdentityRegister]
    /// Whether the identity registers are not enough and the driver also probes the chip's
    /// documented behaviour (the QMC5883L has no unique identity register).
    public let identifiedByBehaviour: Bool
    /// The gyroscope's full-scale ranges (± degrees per second); empty for chips without one.
    public let gyroscopeRanges: [Int]
    /// The chip that hides this one behind its I2C bypass, if any (the AK09916 inside an
    /// ICM-20948): it answers only once its host is opened, and a scan finds it through the host.
    public let host: SensorChip?
    /// What to check when the chip does not answer.
    public let wiringHint: String

    /// Whether the chip has a gyroscope (an accelerometer and gyroscope combo).
    public var hasGyroscope: Bool { !gyroscopeRanges.isEmpty }
}

/// The sensor chips the package drives. The raw value is the board-file spelling
/// (`chip = "lis3mdl"`); ``description`` is the display name. Every fact is in ``entry``.
public enum SensorChip: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ST LSM303AGR, accelerometer half (0x19, fixed).
    case lsm303agrAccelerometer = "lsm303agr-accel"
    /// ST LSM303AGR, magnetometer half (0x1E, fixed; the LIS2MDL core).
    case lsm303agrMagnetometer = "lsm303agr-mag"
    /// ST LIS3MDL magnetometer (0x1C with SDO/SA1 low, 0x1E high).
    case lis3mdl
    /// ST LSM6DSOX accelerometer and gyroscope (0x6A with SA0 low, 0x6B high).
    case lsm6dsox
    /// QST QMC5883L magnetometer (0x0D, fixed; sold as "HMC5883L"/GY-271).
    case qmc5883l
    /// TDK InvenSense ICM-20948 accelerometer and gyroscope (0x68 with AD0 low, 0x69 high).
    case icm20948
    /// AKM AK09916, the ICM-20948's magnetometer, reached through its I2C bypass (0x0C).
    case ak09916
    /// MEMSIC MMC5983MA magnetometer (0x30, fixed).
    case mmc5983ma

    /// The chip's row in the catalogue.
    public var entry: SensorChipEntry {
        switch self {
        case .lsm303agrAccelerometer:
            return row("LSM303AGR accelerometer", ["lsm303agr-accel"], .accelerometer, [0x19], [.init(0x0F, is: 0x33)])
        case .lsm303agrMagnetometer:
            return row("LSM303AGR magnetometer", ["lsm303agr-mag"], .magnetometer, [0x1E], [.init(0x4F, is: 0x40)])
        case .lis3mdl:
            return row("LIS3MDL", ["lis3mdl"], .magnetometer, [0x1C, 0x1E], [.init(0x0F, is: 0x3D)])
        case .lsm6dsox:
            return row("LSM6DSOX", ["lsm6dsox"], .accelerometer, [0x6A, 0x6B], [.init(0x0F, is: 0x6C)],
                       gyroscopeRanges: [125, 250, 500, 1000, 2000])
        case .qmc5883l:
            return row("QMC5883L", ["qmc5883l"], .magnetometer, [0x0D], [.init(0x0D, is: 0xFF)], identifiedByBehaviour: true,
                       wiringHint: "boards sold as HMC5883L/GY-271 usually carry a QMC5883L at 0x0d")
        case .icm20948:
            return row("ICM-20948", ["icm20948"], .accelerometer, [0x69, 0x68], [.init(0x00, is: 0xEA)],
                       gyroscopeRanges: [250, 500, 1000, 2000])
        case .ak09916:
            return row("AK09916", ["ak09916"], .magnetometer, [0x0C], [.init(0x00, is: 0x48), .init(0x01, is: 0x09)], host: .icm20948,
                       wiringHint: "the AK09916 appears at 0x0c only after the ICM-20948 is put in bypass mode")
        case .mmc5983ma:
            return row("MMC5983MA", ["mmc5983ma"], .magnetometer, [0x30], [.init(0x2F, is: 0x30)])
        }
    }

    private func row(_ displayName: String, _ spellings: [String], _ role: SensorRole, _ addresses: [UInt8],
                     _ identity: [IdentityRegister], identifiedByBehaviour: Bool = false, gyroscopeRanges: [Int] = [],
                     host: SensorChip? = nil, wiringHint: String? = nil) -> SensorChipEntry {
        let jumper = addresses.map { "0x" + ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " or ")
        return SensorChipEntry(
            chip: self, displayName: displayName, boardSpellings: spellings, role: role, addresses: addresses,
            identity: identity, identifiedByBehaviour: identifiedByBehaviour, gyroscopeRanges: gyroscopeRanges, host: host,
            wiringHint: wiringHint ?? "check SDA/SCL, 3.3 V and ground, and the address jumper (\(jumper))")
    }

    /// Every row, in case order.
    public static var catalogue: [SensorChipEntry] { allCases.map(\.entry) }

    /// The chip a board file names with `spelling` (any of its ``SensorChipEntry/boardSpellings``), or `nil`.
    public init?(boardSpelling spelling: String) {
        guard let chip = Self.allCases.first(where: { $0.entry.boardSpellings.contains(spelling) }) else { return nil }
        self = chip
    }

    /// The spellings a board file's error message lists: each chip's first.
    public static var boardNames: [String] { allCases.compactMap { $0.entry.boardSpellings.first } }

    /// The display name (`LSM303AGR accelerometer`).
    public var description: String { entry.displayName }

    /// What the chip measures.
    public var role: SensorRole { entry.role }

    /// The addresses the chip can be strapped to, the usual one first.
    public var addresses: [UInt8] { entry.addresses }

    /// The gyroscope ranges (± degrees per second) the chip offers; empty for chips without one.
    public var gyroscopeRanges: [Int] { entry.gyroscopeRanges }

    /// The range `gyro = true` selects: ±500 dps, room for a unit turned briskly by hand.
    public static let defaultGyroscopeRange = 500

    /// The chips hidden behind this one's I2C bypass (an ICM-20948's AK09916).
    public var companions: [SensorChip] { Self.allCases.filter { $0.entry.host == self } }
}
