import Devices
import HardwareInterfaces
import NMEA

/// What the identification of a receiver on its arrival found (``ReceiverDetector/identifyOnArrival(passive:deadline:)``).
public struct ArrivalIdentification: Sendable, Hashable, CustomStringConvertible {
    /// The receiver's identity; `nil` when nothing named its family before the deadline (it is
    /// then driven as generic NMEA: nothing is written to it).
    public var identity: ReceiverIdentity?
    /// The line rate valid sentences or frames came at, where the port is left; `nil` when none did.
    public var baudRate: BaudRate?
    /// How the identity was found (the reply or the sentences it rests on), or why there is none.
    public var reason: String
    /// Every step, in order, for a person reading the log.
    public var steps: [DetectionStep]
    /// Whether anything was written to the receiver (never in passive mode).
    public var wrote: Bool

    /// An outcome with the given values.
    public init(identity: ReceiverIdentity?, baudRate: BaudRate?, reason: String, steps: [DetectionStep], wrote: Bool) {
        self.identity = identity
        self.baudRate = baudRate
        self.reason = reason
        self.steps = steps
        self.wrote = wrote
    }

    /// `ublox (u-blox M10, MAX-M10S, PROTVER 34.10) at 38400 baud: UBX-MON-VER …` or
    /// `unknown (generic NMEA) at 9600 baud: …`.
    public var description: String {
        let rate = baudRate.map { " at \($0.rawValue) baud" } ?? ""
        return "\(identity?.description ?? "unknown (generic NMEA)")\(rate): \(reason)"
    }
}

extension ReceiverDetector {
    /// The queries sent on a receiver's arrival, in order: the ``identityQueries`` of the families
    /// with a driver here, each ignored or refused by the other families (UBX-MON-VER, whose reply
    /// must carry a u-blox hardware version; MediaTek's firmware query `$PMTK605`, answered by
    /// `$PMTK705`; CASIC's `$PCAS06,0`, answered by a `TXT` `SW=` line). Airoha and Goke receivers
    /// are named only from what they send.
    public static let arrivalQueries = Array(identityQueries.prefix(3))

    /// The query that tells more of a receiver whose family is known from what it sent (the
    /// u-blox generation, the MediaTek module, the CASIC hardware).
    static func refinement(for family: ReceiverFamily) -> (name: String, bytes: [UInt8])? {
        switch family {
        case .ublox: return ("UBX-MON-VER poll", UBXMessage.pollVersion.bytes)
        case .mediatek: return ("$PMTK605", NMEACommand("PMTK605").bytes)
        case .casic: return ("$PCAS06,1", NMEACommand("PCAS06,1").bytes)
        case .airoha, .goke, .genericNMEA: return nil
        }
    }

    /// The family the sentences and frames heard name, without asking: a MON-VER reply or a banner
    /// (``identityFromReplies(_:)``), any `$PMTK` sentence (MediaTek), UBX frames (u-blox: other
    /// families do not send them unasked), CASIC binary frames or CASIC's `ANTENNA` text.
    public static func identityFromStream(_ report: ListenReport) -> ReceiverIdentity? {
        if let identity = identityFromReplies(report) { return identity }
        if let pmtk = report.validSentences.first(where: { $0.hasPrefix("$PMTK") }) {
            return ReceiverIdentity(family: .mediatek, evidence: String(pmtk.prefix { $0 != "*" }))
        }
        if let frame = report.ubxFrames.first {
            return ReceiverIdentity(family: .ublox, evidence: "UBX frames (class \(hexByte(frame.messageClass)) id \(hexByte(frame.id)) first)")
        }
        if report.casicFrames > 0 {
            return ReceiverIdentity(family: .casic, evidence: "\(report.casicFrames) CASIC binary frames")
        }
        return nil
    }

    /// Identifies the receiver that just appeared on the port, before its driver is made, within
    /// `deadline` (every wait ends by it; the port's clock).
    ///
    /// 1. It listens at the port's rate (``listenWindow``, less once something names the family,
    ///    a second more when valid sentences come but name nothing yet):
    ///    banners, `$PMTK` sentences, UBX or CASIC frames, CASIC's `ANTENNA` text name it without a
    ///    byte written. Unless `passive`, the family's own query then tells more (MON-VER gives the
    ///    u-blox generation).
    /// 2. Bytes without a valid sentence mean another line rate: the other rates of ``baudRates``
    ///    are listened to in turn (autobaud) and the port is left at the one that works.
    /// 3. At the rate that works, unless `passive`, ``arrivalQueries`` are sent in order, each
    ///    waiting ``replyWindow`` at most; a silent receiver is woken with one `0xFF` and asked at
    ///    the port's own rate (its output may be off).
    /// 4. Nothing by the deadline: no identity, with the reason (silent, no valid sentence at any
    ///    rate, valid NMEA but no query answered, passive and nothing named the family).
    ///
    /// Hardware errors (the port vanished) are thrown.
    public func identifyOnArrival(passive: Bool, deadline: MonotonicInstant) throws(HardwareError) -> ArrivalIdentification {
        let clock = port.clock
        var steps: [DetectionStep] = []
        var wrote = false
        var sawBytes = false
        let first = port.baudRate
        func window(_ length: Duration) -> MonotonicInstant { min(deadline, clock.now().advanced(by: length)) }
        // The queries sent, each a step of its own (``identify(at:steps:queries:by:)``).
        func ask(_ queries: [(name: String, bytes: [UInt8])], at rate: BaudRate) throws(HardwareError) -> (name: String, identity: ReceiverIdentity)? {
            let before = steps.count
            let (identity, _) = try identify(at: rate, steps: &steps, queries: queries, by: deadline)
            wrote = wrote || steps.count > before
            return identity.map { (queries[steps.count - before - 1].name, $0) }
        }
        for rate in [first] + baudRates.filter({ $0 != first }) {
            guard clock.now() < deadline else { break }
            if rate != port.baudRate {
                try port.setBaudRate(rate)
                try port.discard(.input)
            }
            var report = try listen(until: window(listenWindow)) { Self.identityFromStream($0) != nil }
            if report.looksLikeReceiver, Self.identityFromStream(report) == nil {
                // It talks at this rate: one more epoch may carry what names it (CASIC's antenna
                // line ends its epoch, which takes most of a second at 9600 baud).
                report.append(try listen(until: window(.seconds(1))) { Self.identityFromStream($0) != nil })
            }
            sawBytes = sawBytes || report.bytes > 0
            steps.append(DetectionStep(baudRate: rate.rawValue, action: "listen", outcome: summary(report)))
            if var identity = Self.identityFromStream(report) {
                if !passive, identity.ubloxGeneration == nil || identity.model == nil, let query = Self.refinement(for: identity.family),
                   let better = try ask([query], at: rate)?.identity, better.family == identity.family {
                    identity = Self.merge(identity, better)
                }
                return ArrivalIdentification(identity: identity, baudRate: rate, reason: "heard \(identity.evidence)", steps: steps, wrote: wrote)
            }
            if report.looksLikeReceiver {
                let talkers = Self.talkers(report).joined(separator: ", ")
                if passive {
                    return ArrivalIdentification(identity: nil, baudRate: rate,
                                                 reason: "passive: valid NMEA (talkers \(talkers)) names no family, and nothing is asked", steps: steps, wrote: false)
                }
                if let (name, identity) = try ask(Self.arrivalQueries, at: rate) {
                    return ArrivalIdentification(identity: identity, baudRate: rate, reason: "answered \(name): \(identity.evidence)",
                                                 steps: steps, wrote: wrote)
                }
                let names = Self.arrivalQueries.map(\.name).joined(separator: ", ")
                return ArrivalIdentification(identity: nil, baudRate: rate,
                                             reason: "valid NMEA (talkers \(talkers)), but no identity query answered (\(names))", steps: steps, wrote: wrote)
            }
            if report.bytes == 0, rate == first, !passive {
                // Silent at the board's rate: asleep, or its output off. One byte wakes it; then ask.
                try port.writeAll([0xFF], deadline: window(replyWindow))
                wrote = true
                clock.sleep(until: window(.milliseconds(200)))
                if let (name, identity) = try ask(Self.arrivalQueries, at: rate) {
                    return ArrivalIdentification(identity: identity, baudRate: rate, reason: "woken, answered \(name): \(identity.evidence)",
                                                 steps: steps, wrote: wrote)
                }
            }
        }
        // Nothing worked: the port goes back to the board's rate, where the watchdog goes on looking.
        if port.baudRate != first { try port.setBaudRate(first) }
        let late = clock.now() >= deadline ? " before the deadline" : ""
        let reason = sawBytes
            ? "bytes came but no valid sentence at any line rate tried\(late)"
            : "silent: nothing came at any line rate tried\(late)"
        return ArrivalIdentification(identity: nil, baudRate: nil, reason: reason, steps: steps, wrote: wrote)
    }

    /// `found` completed by what the refinement query's reply `better` adds.
    static func merge(_ found: ReceiverIdentity, _ better: ReceiverIdentity) -> ReceiverIdentity {
        var merged = better
        merged.model = better.model ?? found.model
        merged.firmware = better.firmware ?? found.firmware
        merged.evidence = found.evidence + "; " + better.evidence
        return merged
    }

    /// The talker IDs of the sentences heard (`GN`, `GP`), in first-heard order; proprietary sentences aside.
    public static func talkers(_ report: ListenReport) -> [String] {
        var seen: [String] = []
        for sentence in report.validSentences where !sentence.hasPrefix("$P") {
            let talker = String(sentence.dropFirst().prefix(2))
            if !seen.contains(talker) { seen.append(talker) }
        }
        return seen
    }
}
