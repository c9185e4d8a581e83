import BoardConfig
import Devices
import HardwareInterfaces
import ReceiverProtocols

/// A receiver whose family the board leaves to detection (`family = "auto"`, or no `family`):
/// identified on each arrival, before its driver is made (docs/RECEIVER-CONFIG.md, "Family
/// detection on arrival").
extension ReceiverSubsystem {
    /// Identifies the receiver that just appeared on `port` within ``identificationDeadline``:
    /// listening first, then (unless the board says `receiver_config = "passive"`) the identity
    /// queries, at the line rate where it talks. The family and model found replace the board's
    /// placeholder (``identified``); nothing found, or a family without a command set here, is
    /// generic NMEA (nothing is written to it). The outcome is kept (``identification``) and
    /// reported once (``identificationNote``).
    func identify(port: any SerialPort) {
        guard let receiver = board.receiver else { return }
        let detector = ReceiverDetector(port: port)
        let deadline = clock.now().advanced(by: identificationDeadline)
        var result: ArrivalIdentification
        do {
            result = try detector.identifyOnArrival(passive: receiver.configMode == .passive, deadline: deadline)
        } catch {
            result = ArrivalIdentification(identity: nil, baudRate: nil, reason: "the port failed while identifying: \(error)",
                                           steps: [], wrote: false)
        }
        var family = result.identity?.family ?? .genericNMEA
        if family.makesNoDriver {
            result.reason += "; \(family.entry.displayName) has no command set here: driven as generic NMEA"
            family = .genericNMEA
        }
        identification = result
        identified = receiver.identified(as: family, model: Self.modelName(of: result.identity))
        // Its power decisions from now on are the identified model's.
        policy.profile = Self.powerProfile(of: identified)
        // The board's `gnss_extint` line is the wake pin the family has: FORCE_ON on MediaTek.
        if family.capabilities.wakeMethods.contains(.forceOn), lines.forceOn == nil, let extint = lines.extint {
            lines.forceOn = extint
            lines.extint = nil
        }
        let model = identified.map { ReceiverModel.lookup(family: $0.family, model: $0.model) }
        let label = board.receiver?.label ?? port.name
        identificationNote = result.identity == nil
            ? "\(label): family not identified (\(result.reason)); driven as generic NMEA, nothing is written to it"
            : "\(label): identified as \(result.identity?.description ?? family.rawValue)\(model.map { ", model \($0)" } ?? "")"
                + "\(result.baudRate.map { " at \($0.rawValue) baud" } ?? ""): \(result.reason)"
    }

    /// The model name an identity gives the catalogue's lookup: the module (`MAX-M10S`), else the
    /// u-blox generation (`u-blox M8`).
    static func modelName(of identity: ReceiverIdentity?) -> String? {
        identity?.model ?? identity?.ubloxGeneration?.rawValue
    }
}

extension ReceiverFamily {
    /// Whether the package has no driver for the family (it is read as generic NMEA).
    var makesNoDriver: Bool { self == .airoha || self == .goke }
}
