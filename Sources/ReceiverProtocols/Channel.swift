import Devices
import HardwareInterfaces
import NMEA

/// Why a receiver command failed.
public enum ReceiverError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No acknowledgement after every attempt.
    case noAcknowledgement(command: String, attempts: Int, waited: Duration)
    /// The receiver refused the command (UBX ACK-NAK, `$PMTK001` flag 0, 1 or 2).
    case rejected(command: String, reason: String)
    /// The receiver family cannot do this.
    case unsupported(family: ReceiverFamily, operation: String)
    /// A value the receiver cannot take (a CASIC rate other than 200, 500 or 1000 ms).
    case invalidValue(operation: String, detail: String)
    /// The port or a line failed.
    case hardware(HardwareError)

    public var description: String {
        switch self {
        case .noAcknowledgement(let command, let attempts, let waited):
            return "\(command): no acknowledgement after \(attempts) attempts (\(waited.secondsDouble) s each); the receiver may be asleep, at another line rate, or not this family"
        case .rejected(let command, let reason): return "\(command): refused by the receiver (\(reason))"
        case .unsupported(let family, let operation): return "\(family) receivers cannot \(operation)"
        case .invalidValue(let operation, let detail): return "\(operation): \(detail)"
        case .hardware(let error): return error.description
        }
    }
}

/// Sends commands to a receiver and waits, with a deadline and bounded retries, for the
/// acknowledgement its family gives: UBX ACK-ACK/ACK-NAK for CFG messages, `$PMTK001,<cmd>,<flag>`
/// for PMTK (flag 3 = success). Everything else read while waiting (the receiver keeps streaming
/// NMEA) is handed to ``passThrough`` so no sentence is lost.
public final class CommandChannel {
    /// The port.
    public let port: any SerialPort
    /// How long to wait for each acknowledgement (u-blox answers within 1 s).
    public var timeout: Duration
    /// Attempts per command.
    public var attempts: Int
    /// Receives every byte chunk read while waiting, in order.
    public var passThrough: ([UInt8]) -> Void
    /// Commands sent so far (for logs and tests).
    public private(set) var sent: [String] = []

    /// Creates a channel.
    public init(port: any SerialPort, timeout: Duration = .seconds(1), attempts: Int = 3,
                passThrough: @escaping ([UInt8]) -> Void = { _ in }) {
        self.port = port
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.passThrough = passThrough
    }

    struct AckSink: NMEAFramerSink {
        var ubx: [(UInt8, UInt8, [UInt8])] = []
        var sentences: [String] = []
        mutating func framer(sentence: Span<UInt8>) {
            var bytes: [UInt8] = []
            for i in sentence.indices { bytes.append(sentence[i]) }
            sentences.append(String(decoding: bytes, as: UTF8.self))
        }
        mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) {
            var bytes: [UInt8] = []
            for i in payload.indices { bytes.append(payload[i]) }
            ubx.append((ubxClass, id, bytes))
        }
    }

    /// Reads until `match` finds an answer or the deadline passes.
    func waitFor<T>(deadline: MonotonicInstant, _ match: (AckSink) -> T?) throws(HardwareError) -> T? {
        let framer = NMEAFramer()
        var sink = AckSink()
        while port.clock.now() < deadline {
            let chunk = try port.readAvailable(maximum: 512, deadline: deadline)
            if chunk.isEmpty { break }
            passThrough(chunk)
            framer.feed(bytes: chunk, into: &sink)
            if let found = match(sink) { return found }
            // What `match` has seen and refused is not shown to it again: a receiver streaming
            // NMEA while we wait would otherwise make every read rescan all earlier sentences
            // (quadratic in the sentences received; the UBX fuzzer's long inputs showed it).
            sink.sentences.removeAll(keepingCapacity: true)
            sink.ubx.removeAll(keepingCapacity: true)
        }
        return match(sink)
    }

    /// Sends a UBX message. CFG messages (but CFG-RST) wait for ACK-ACK; ACK-NAK is an error;
    /// no answer is retried `attempts` times.
    public func send(_ message: UBXMessage) throws(ReceiverError) {
        let name = message.description
        for _ in 0..<attempts {
            do {
                sent.append(name)
                try port.writeAll(message.bytes, deadline: port.clock.deadline(after: timeout))
                guard message.expectsAcknowledgement else { return }
                let answer = try waitFor(deadline: port.clock.deadline(after: timeout)) { sink -> Bool? in
                    for (c, i, p) in sink.ubx where c == 0x05 && p.count >= 2 && p[0] == message.messageClass && p[1] == message.id {
                        return i == 0x01
                    }
                    return nil
                }
                if answer == true { return }
                if answer == false { throw ReceiverError.rejected(command: name, reason: "ACK-NAK") }
            } catch let error as HardwareError {
                throw .hardware(error)
            } catch let error as ReceiverError {
                throw error
            } catch {
                throw .hardware(HardwareError(.other, device: port.name, operation: name, detail: "\(error)"))
            }
        }
        throw .noAcknowledgement(command: name, attempts: attempts, waited: timeout)
    }

    /// Sends a UBX poll and returns the reply's payload (same class and id).
    public func poll(_ message: UBXMessage) throws(ReceiverError) -> [UInt8] {
        for _ in 0..<attempts {
            do {
                sent.append(message.description)
                try port.writeAll(message.bytes, deadline: port.clock.deadline(after: timeout))
                let reply = try waitFor(deadline: port.clock.deadline(after: timeout)) { sink -> [UInt8]? in
                    sink.ubx.first { $0.0 == message.messageClass && $0.1 == message.id }?.2
                }
                if let reply { return reply }
            } catch {
                throw .hardware(error)
            }
        }
        throw .noAcknowledgement(command: message.description, attempts: attempts, waited: timeout)
    }

    /// Sends a CASIC binary command once (CASIC configuration is not awaited, like `$PCAS`).
    public func send(_ message: CASICMessage) throws(ReceiverError) {
        sent.append(message.description)
        do {
            try port.writeAll(message.bytes, deadline: port.clock.deadline(after: timeout))
        } catch {
            throw .hardware(error)
        }
    }

    /// Sends an NMEA-style command. With `acknowledgedAs` (a PMTK command number) waits for
    /// `$PMTK001,<n>,3`; flags 0-2 are refusals.
    public func send(_ command: NMEACommand, acknowledgedAs number: Int? = nil) throws(ReceiverError) {
        for _ in 0..<attempts {
            do {
                sent.append(command.sentence)
                try port.writeAll(command.bytes, deadline: port.clock.deadline(after: timeout))
                guard let number else { return }
                let flag = try waitFor(deadline: port.clock.deadline(after: timeout)) { sink -> Int? in
                    for s in sink.sentences { if let ack = PMTK.acknowledgement(s), ack.command == number { return ack.flag } }
                    return nil
                }
                if flag == 3 { return }
                if let flag {
                    let reason = ["invalid packet", "unsupported command", "valid but failed"][min(max(flag, 0), 2)]
                    throw ReceiverError.rejected(command: command.sentence, reason: "flag \(flag): \(reason)")
                }
            } catch let error as HardwareError {
                throw .hardware(error)
            } catch let error as ReceiverError {
                throw error
            } catch {
                throw .hardware(HardwareError(.other, device: port.name, operation: command.sentence, detail: "\(error)"))
            }
        }
        throw .noAcknowledgement(command: command.sentence, attempts: attempts, waited: timeout)
    }
}
