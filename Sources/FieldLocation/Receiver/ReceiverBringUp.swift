import BoardConfig
import Devices
import HardwareInterfaces
import ReceiverProtocols

/// Builds a board's receiver driver: its family's command set on the board's port, with the
/// control lines the board file wires (power enable, EXTINT or FORCE_ON, reset), requested on the
/// platform's GPIO chip. A u-blox receiver's generation is asked for (MON-VER) to choose between
/// legacy CFG messages and configuration keys.
public enum ReceiverBringUp {
    /// The lines of `board` requested as outputs on `platform`: powered, not in reset, EXTINT or
    /// FORCE_ON released. Each returned line is logical (`true` = asserted); lines the board marks
    /// active-low are inverted on the wire.
    public static func lines(for board: BoardDescription, platform: any HardwarePlatform) throws(HardwareError) -> ReceiverLines {
        guard let gpio = board.gpio else { return ReceiverLines() }
        func output(_ function: GPIOFunction, asserted: Bool) throws(HardwareError) -> (any GPIOLine)? {
            guard let id = gpio.line(function) else { return nil }
            let activeLow = gpio.activeLow.contains(function)
            let line = try platform.requestOutput(chip: gpio.chip, line: id, initial: activeLow ? !asserted : asserted)
            return activeLow ? InvertedLine(line) : line
        }
        let wake = board.receiver?.wake ?? []
        var lines = ReceiverLines()
        if wake.contains(.powerEnable) { lines.powerEnable = try output(.gnssPowerEnable, asserted: true) }
        if let extint = try output(.gnssExtint, asserted: false) {
            // The board's `gnss_extint` line is the wake pin the family has: FORCE_ON (MediaTek) or EXTINT.
            if board.receiver?.family.capabilities.wakeMethods.contains(.forceOn) == true {
                lines.forceOn = extint
            } else {
                lines.extint = extint
            }
        }
        lines.reset = try output(.gnssReset, asserted: false)
        return lines
    }

    /// The driver for `board`'s receiver on `port`, or `nil` for a generic NMEA receiver (which
    /// takes no commands). Hardware errors requesting lines are thrown; a u-blox receiver whose
    /// generation is not known already (`ubloxGeneration`, from its identification on arrival) is
    /// asked with MON-VER, and one that does not answer is driven as an M10 (configuration keys).
    public static func driver(for board: BoardDescription, port: any SerialPort, lines: ReceiverLines,
                              ubloxGeneration known: UBloxGeneration? = nil) -> (any ReceiverDriver)? {
        guard let receiver = board.receiver else { return nil }
        let channel = CommandChannel(port: port)
        var generation = UBloxGeneration.m10
        if receiver.family == .ublox, let known {
            generation = known
        } else if receiver.family == .ublox {
            if let payload = try? channel.poll(UBXMessage.pollVersion), let g = UBXVersion(payload: payload)?.generation {
                generation = g
            } else if ReceiverModel.lookup(family: receiver.family, model: receiver.model) == .ubloxM8 {
                generation = .m8
            }
        }
        // `ram` mode: configuration keys go to the RAM layer only; otherwise RAM and BBR, as before.
        return receiver.family.makeDriver(channel: channel, lines: lines, ubloxGeneration: generation,
                                          layers: receiver.configMode == .ram ? .ram : [.ram, .bbr])
    }
}

/// A GPIO line seen through an inverter: for lines wired active-low, `true` means asserted.
final class InvertedLine: GPIOLine, @unchecked Sendable {
    let base: any GPIOLine
    init(_ base: any GPIOLine) { self.base = base }
    var name: String { base.name + " (active low)" }
    var isOutput: Bool { base.isOutput }
    func set(_ high: Bool) throws(HardwareError) { try base.set(!high) }
    func get() throws(HardwareError) -> Bool { try !base.get() }
    func waitForEdge(deadline: MonotonicInstant) throws(HardwareError) -> GPIOEvent? {
        guard let event = try base.waitForEdge(deadline: deadline) else { return nil }
        return GPIOEvent(edge: event.edge == .rising ? .falling : .rising, timestamp: event.timestamp)
    }
    func release() { base.release() }
}
