import BoardConfig
import HardwareInterfaces
import SensorDrivers

/// The sensor chips a board file can name (the board loader's list, with the addresses each can have).
public typealias SensorKind = BoardConfig.SensorChip

extension BoardConfig.SensorChip {
    /// Addresses the chip can be strapped to.
    public var addresses: [UInt8] { allowedAddresses }

    /// Whether the chip measures the magnetic field (otherwise acceleration).
    public var isMagnetometer: Bool { role.measuresMagneticField }

    /// What to check when the chip does not answer.
    public var wiringHint: String {
        switch self {
        case .ak09916: return "the AK09916 appears at 0x0c only after the ICM-20948 is put in bypass mode"
        case .qmc5883l: return "boards sold as HMC5883L/GY-271 usually carry a QMC5883L at 0x0d"
        default: return "check SDA/SCL, 3.3 V and ground, and the address jumper (\(addresses.map { hex($0) }.joined(separator: " or ")))"
        }
    }
}

/// Opens sensor drivers by kind, configured for heading (continuous, about 10-20 Hz, ranges
/// that fit the Earth's field and gravity with margin).
public enum SensorFactory {
    /// Opens and configures a magnetometer; the identity check runs first.
    public static func openMagnetometer(_ kind: SensorKind, bus: any I2CBus, address: I2CAddress,
                                        clock: any MonotonicClock) throws(SensorError) -> any Magnetometer {
        switch kind {
        case .lsm303agrMag:
            var m = try LSM303AGRMagnetometer(bus: bus, address: address, clock: clock)
            try m.configure(.init())
            return m
        case .lis3mdl:
            var m = try LIS3MDL(bus: bus, address: address, clock: clock)
            try m.configure(.init())
            return m
        case .qmc5883l:
            var m = try QMC5883L(bus: bus, address: address, clock: clock)
            try m.configure(.init())
            return m
        case .ak09916:
            var m = try AK09916(bus: bus, address: address, clock: clock)
            try m.configure(.continuous20Hz)
            return m
        case .mmc5983ma:
            var m = try MMC5983MA(bus: bus, address: address, clock: clock)
            try m.configure(.init())
            return m
        case .lsm303agrAccel, .lsm6dsox, .icm20948:
            throw .unsupported(chip: chip(kind), feature: "magnetometer")
        }
    }

    /// Opens and configures an accelerometer; the identity check runs first. An ICM-20948 is
    /// left in bypass so its AK09916 answers at 0x0c.
    ///
    /// With `gyroscopeRange` (± degrees per second, one of ``BoardConfig/SensorChip/gyroscopeRanges``)
    /// the chip's gyroscope is turned on as well, at the accelerometer's rate (104 Hz on the
    /// LSM6DSOX, 102.3 Hz on the ICM-20948), and the driver returned is a ``Gyroscope``. Without
    /// it the configuration, and so the bus traffic, is exactly that of an accelerometer alone.
    public static func openAccelerometer(_ kind: SensorKind, bus: any I2CBus, address: I2CAddress,
                                         clock: any MonotonicClock, gyroscopeRange: Int? = nil) throws(SensorError) -> any Accelerometer {
        if let gyroscopeRange, !kind.gyroscopeRanges.contains(gyroscopeRange) {
            throw .unsupported(chip: chip(kind), feature: "a ±\(gyroscopeRange) dps gyroscope")
        }
        switch kind {
        case .lsm303agrAccel:
            var a = try LSM303AGRAccelerometer(bus: bus, address: address, clock: clock)
            try a.configure(.init())
            return a
        case .lsm6dsox:
            var a = try LSM6DSOX(bus: bus, address: address, clock: clock)
            let gyroscope = gyroscopeRange.map { range in
                LSM6DSOX.GyroscopeConfiguration(range: LSM6DSOX.GyroscopeRange.allCases.first { Int($0.fullScale) == range } ?? .dps500)
            }
            try a.configure(.init(gyroscope: gyroscope))
            return a
        case .icm20948:
            var a = try ICM20948(bus: bus, address: address, clock: clock)
            let gyroscope = gyroscopeRange.map { range in
                ICM20948.GyroscopeConfiguration(range: ICM20948.GyroscopeRange.allCases.first { Int($0.fullScale) == range } ?? .dps500)
            }
            try a.configure(.init(gyroscope: gyroscope))
            return a
        default:
            throw .unsupported(chip: chip(kind), feature: "accelerometer")
        }
    }

    /// Checks only the chip's identity (no configuration), for scans.
    public static func identify(_ kind: SensorKind, bus: any I2CBus, address: I2CAddress,
                                clock: any MonotonicClock) throws(SensorError) {
        switch kind {
        case .lsm303agrAccel: _ = try LSM303AGRAccelerometer(bus: bus, address: address)
        case .lsm303agrMag: _ = try LSM303AGRMagnetometer(bus: bus, address: address, clock: clock)
        case .lis3mdl: _ = try LIS3MDL(bus: bus, address: address, clock: clock)
        case .lsm6dsox: _ = try LSM6DSOX(bus: bus, address: address)
        case .qmc5883l: _ = try QMC5883L(bus: bus, address: address, clock: clock)
        case .icm20948: _ = try ICM20948(bus: bus, address: address)
        case .ak09916: _ = try AK09916(bus: bus, address: address, clock: clock)
        case .mmc5983ma: _ = try MMC5983MA(bus: bus, address: address, clock: clock)
        }
    }

    static func chip(_ kind: SensorKind) -> SensorDrivers.SensorChip {
        switch kind {
        case .lsm303agrAccel: return .lsm303agrAccelerometer
        case .lsm303agrMag: return .lsm303agrMagnetometer
        case .lis3mdl: return .lis3mdl
        case .lsm6dsox: return .lsm6dsox
        case .qmc5883l: return .qmc5883l
        case .icm20948: return .icm20948
        case .ak09916: return .ak09916
        case .mmc5983ma: return .mmc5983ma
        }
    }
}

/// What a scan found at one address.
public struct I2CFinding: Sendable, Hashable, CustomStringConvertible {
    /// The bus, for example `/dev/i2c-1`.
    public var bus: String
    /// The address that acknowledged.
    public var address: I2CAddress
    /// The chip identified there, if any.
    public var chip: SensorKind?
    /// How it was identified, or why not.
    public var note: String

    public var description: String {
        "\(bus) \(address): " + (chip.map { "\($0.rawValue) (\(note))" } ?? "unknown device (\(note))")
    }
}

/// Scans one I2C bus for the supported chips: every address a supported chip can have is
/// probed the way `i2cdetect` does, and an address that answers is identified by the chips'
/// identity registers (or, for the QMC5883L, by its behaviour). An ICM-20948 found is put in
/// bypass so its AK09916 can be found at 0x0c.
public enum SensorScan {
    /// Scans `bus`. Hardware errors other than no-acknowledge (a stuck bus, permission) are thrown.
    public static func scan(_ bus: any I2CBus, clock: any MonotonicClock) throws(HardwareError) -> [I2CFinding] {
        var findings: [I2CFinding] = []
        var candidates: [UInt8: [SensorKind]] = [:]
        for kind in SensorKind.allCases where kind != .ak09916 {
            for a in kind.addresses { candidates[a, default: []].append(kind) }
        }
        var sawICM = false
        for raw in candidates.keys.sorted() {
            guard let address = I2CAddress(raw) else { continue }
            guard try bus.probe(address) else { continue }
            var found: I2CFinding? = nil
            var tried: [String] = []
            for kind in candidates[raw] ?? [] {
                do {
                    try SensorFactory.identify(kind, bus: bus, address: address, clock: clock)
                    found = I2CFinding(bus: bus.name, address: address, chip: kind,
                                       note: kind == .qmc5883l ? "identified by behaviour" : "identity register matches")
                    break
                } catch {
                    if case .bus(let e) = error, !e.isNoAcknowledge && e.kind != .unsupported { throw e }
                    tried.append("not \(kind.rawValue)")
                }
            }
            if found?.chip == .icm20948 { sawICM = true }
            findings.append(found ?? I2CFinding(bus: bus.name, address: address, chip: nil,
                                                note: "acknowledges, but " + tried.joined(separator: ", ")))
        }
        if sawICM, let icmFinding = findings.first(where: { $0.chip == .icm20948 }), let ak = I2CAddress(UInt8(0x0C)) {
            do {
                _ = try SensorFactory.openAccelerometer(.icm20948, bus: bus, address: icmFinding.address, clock: clock)
                if try bus.probe(ak) {
                    try? SensorFactory.identify(.ak09916, bus: bus, address: ak, clock: clock)
                    findings.append(I2CFinding(bus: bus.name, address: ak, chip: .ak09916, note: "behind the ICM-20948 in bypass"))
                }
            } catch {
                findings.append(I2CFinding(bus: bus.name, address: ak, chip: nil,
                                           note: "the ICM-20948 could not be put in bypass: \(error)"))
            }
        }
        return findings
    }
}
