import Devices
import HardwareInterfaces
import SensorDrivers

/// What a scan found at one address.
public struct I2CFinding: Sendable, Hashable, CustomStringConvertible {
    /// The bus, for example `/dev/i2c-1`.
    public var bus: String
    /// The address that acknowledged.
    public var address: I2CAddress
    /// The chip identified there, if any.
    public var chip: SensorChip?
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
        var candidates: [UInt8: [SensorChip]] = [:]
        for chip in SensorChip.allCases where chip.entry.host == nil {
            for a in chip.addresses { candidates[a, default: []].append(chip) }
        }
        for raw in candidates.keys.sorted() {
            guard let address = I2CAddress(raw) else { continue }
            guard try bus.probe(address) else { continue }
            var found: I2CFinding? = nil
            var tried: [String] = []
            for chip in candidates[raw] ?? [] {
                do {
                    try SensorFactory.identify(chip, bus: bus, address: address, clock: clock)
                    found = I2CFinding(bus: bus.name, address: address, chip: chip,
                                       note: chip.entry.identifiedByBehaviour ? "identified by behaviour" : "identity register matches")
                    break
                } catch {
                    if case .bus(let e) = error, !e.isNoAcknowledge && e.kind != .unsupported { throw e }
                    tried.append("not \(chip.rawValue)")
                }
            }
            findings.append(found ?? I2CFinding(bus: bus.name, address: address, chip: nil,
                                                note: "acknowledges, but " + tried.joined(separator: ", ")))
        }
        // Chips behind a host's bypass (the ICM-20948's AK09916): the first host found is opened.
        for host in SensorChip.allCases where !host.companions.isEmpty {
            guard let hostFinding = findings.first(where: { $0.chip == host }) else { continue }
            for companion in host.companions {
                guard let hidden = companion.addresses.first.flatMap({ I2CAddress($0) }) else { continue }
                do {
                    _ = try SensorFactory.openAccelerometer(host, bus: bus, address: hostFinding.address, clock: clock)
                    if try bus.probe(hidden) {
                        try? SensorFactory.identify(companion, bus: bus, address: hidden, clock: clock)
                        findings.append(I2CFinding(bus: bus.name, address: hidden, chip: companion, note: "behind the \(host) in bypass"))
                    }
                } catch {
                    findings.append(I2CFinding(bus: bus.name, address: hidden, chip: nil,
                                               note: "the \(host) could not be put in bypass: \(error)"))
                }
            }
        }
        return findings
    }
}
