import HardwareInterfaces
import LocationServices
import NMEA
import SensorDrivers

/// The UART checks: NMEA and a command through the real tty, line noise, silence, a USB unplug, a busy port.
extension HILChecks {
    // MARK: UART

    /// NMEA in, a command out, its acknowledgement back.
    public static let gnssNMEAAndCommand = HILCheck(
        name: "gnss-nmea-and-command",
        proves: "LinuxSerialPort carries the receiver's NMEA into NMEAStream (fixes with the simulator's position) and a $PMTK220 command out to the receiver, whose $PMTK001,220,3 comes back"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let clock = context.clock
        let port = try hardware("open \(c.gnssTTY)") { try context.platform.openSerialPort(c.gnssTTY, baudRate: c.gnssBaudRate) }
        defer { port.close() }
        try hardware("write \(GNSSFixture.command.trimmingSpaces)") {
            try port.writeAll(GNSSFixture.command, deadline: clock.deadline(after: .seconds(5)))
        }
        let stream = NMEAStream()
        var collector = SentenceCollector()
        try collect(port, named: c.gnssTTY, into: stream, &collector, clock: clock, until: clock.deadline(after: .seconds(20))) {
            $0.fixes.count >= 3 && ($0.acknowledged || !c.acknowledgesPMTK)
        }
        try require(collector.sentences > 0,
                    "no valid NMEA sentence from \(c.gnssTTY) in 20 s (\(collector.rejected) rejected, \(stream.framer.counters))")
        try require(!collector.fixes.isEmpty, "\(collector.sentences) sentences but no fix from \(c.gnssTTY) in 20 s")
        if c.acknowledgesPMTK {
            try require(collector.acknowledged, "no \(GNSSFixture.acknowledgement) from the receiver after \(GNSSFixture.command.trimmingSpaces); proprietary sentences seen: \(collector.proprietary.prefix(5))")
        }
        if c.gnssFixture {
            guard let fix = collector.fixes.last(where: { $0.latitude != nil }), let lat = fix.latitude, let lon = fix.longitude else {
                throw HILFailure("no fix with a position among \(collector.fixes.count)")
            }
            try require(abs(lat - GNSSFixture.latitude) < 1e-6 && abs(lon - GNSSFixture.longitude) < 1e-6,
                        "fix at \(lat), \(lon), the simulator sends \(GNSSFixture.latitude), \(GNSSFixture.longitude)")
            try require(fix.altitudeMSL.map { abs($0 - GNSSFixture.altitudeMSL) < 1e-6 } ?? false,
                        "fix altitude \(fix.altitudeMSL.map { "\($0)" } ?? "missing"), the simulator sends \(GNSSFixture.altitudeMSL) m")
        }
        return .passed(detail: "\(collector.sentences) sentences, \(collector.fixes.count) fixes, ack \(collector.acknowledged ? "seen" : "not expected")")
    }

    /// Line noise on the real UART: garbage, binary frames, bad checksums, an overlong line.
    public static let gnssLineNoise = HILCheck(
        name: "gnss-line-noise",
        proves: "with garbage bytes, UBX and RTCM3 frames, a sentence with a wrong checksum and a 300-byte line after every epoch for 3 s, NMEAStream on the real tty keeps every fix (one per epoch) and counts each kind of noise"
    ) { context throws(HILFailure) in
        let clock = context.clock
        guard let port = try simulatorPort(context, command: "NOISE,3") else {
            return .skipped(reason: "needs the host simulator (FIELDLOC_HIL_GNSS_FIXTURE=1), which makes the noise")
        }
        defer { port.close() }
        let stream = NMEAStream()
        var collector = SentenceCollector()
        // 3 s of noise and 1 s after it.
        try collect(port, named: context.configuration.gnssTTY, into: stream, &collector, clock: clock, until: clock.deadline(after: .seconds(4)))
        let counters = stream.framer.counters
        let seen = "\(collector.fixes.count) fixes, \(collector.rejected) rejected, \(counters)"
        try require(collector.acknowledgedSimulator("NOISE"), "the simulator did not acknowledge NOISE: \(seen)")
        try require(counters.ubxFrames >= 5 && counters.rtcm3Frames >= 5, "binary frames not recognised: \(seen)")
        try require(counters.garbageBytes >= 20 && counters.sentencesTooLong >= 5, "garbage or overlong lines not counted: \(seen)")
        try require(collector.badChecksums >= 5, "sentences with a wrong checksum not rejected as such: \(seen)")
        // 10 epochs a second for 4 s: allow for the start and a loaded host, never for lost fixes.
        try require(collector.fixes.count >= 25, "fixes lost in the noise: \(seen)")
        try require(collector.fixes.allSatisfy { fix in fix.latitude.map { abs($0 - GNSSFixture.latitude) < 1e-6 } ?? true },
                    "a fix moved in the noise: \(seen)")
        return .passed(detail: "\(collector.fixes.count) fixes; \(counters.ubxFrames) UBX, \(counters.rtcm3Frames) RTCM3, \(counters.garbageBytes) garbage bytes, \(counters.sentencesTooLong) overlong, \(collector.badChecksums) bad checksums")
    }

    /// The receiver goes quiet: reads end at their deadlines, and the fixes resume.
    public static let gnssSilence = HILCheck(
        name: "gnss-silence",
        proves: "when the receiver sends nothing for 2 s, every read of the real tty returns by its 250 ms deadline (the silence is seen, nothing blocks), and fixes resume within 2 s of the receiver speaking again"
    ) { context throws(HILFailure) in
        let clock = context.clock
        guard let port = try simulatorPort(context, command: "SILENT,2") else {
            return .skipped(reason: "needs the host simulator (FIELDLOC_HIL_GNSS_FIXTURE=1), which goes silent on request")
        }
        defer { port.close() }
        let stream = NMEAStream()
        var collector = SentenceCollector()
        var lastData = clock.now()
        var longestGap = Duration.zero
        var longestRead = Duration.zero
        var silenceEnded: MonotonicInstant?
        var fixesBeforeSilenceEnded = 0
        var resumedAfter: Duration?
        let end = clock.deadline(after: .seconds(8))
        while clock.now() < end {
            let started = clock.now()
            let chunk = try hardware("read \(context.configuration.gnssTTY)") { try port.readAvailable(maximum: 512, deadline: clock.deadline(after: .milliseconds(250))) }
            let now = clock.now()
            longestRead = max(longestRead, now - started)
            guard !chunk.isEmpty else { continue }
            let gap = now - lastData
            if gap > longestGap { longestGap = gap }
            if gap >= .milliseconds(1500), silenceEnded == nil {
                silenceEnded = now
                fixesBeforeSilenceEnded = collector.fixes.count
            }
            lastData = now
            stream.feed(chunk.span, delegate: &collector)
            if let ended = silenceEnded, collector.fixes.count >= fixesBeforeSilenceEnded + 3 {
                resumedAfter = now - ended
                break
            }
        }
        let seen = "longest gap \(milliseconds(longestGap)), longest read \(milliseconds(longestRead)), \(collector.fixes.count) fixes"
        try require(collector.acknowledgedSimulator("SILENT"), "the simulator did not acknowledge SILENT: \(seen)")
        try require(longestRead < .milliseconds(750), "a read outlived its 250 ms deadline: \(seen)")
        try require(silenceEnded != nil, "no silence of 1.5 s or more was seen: \(seen)")
        guard let resumedAfter else {
            throw HILFailure("fixes did not resume after the silence (\(collector.fixes.count - fixesBeforeSilenceEnded) since): \(seen)")
        }
        try require(resumedAfter < .seconds(2), "3 fixes took \(milliseconds(resumedAfter)) after the silence ended: \(seen)")
        return .passed(detail: seen + ", 3 fixes \(milliseconds(resumedAfter)) after the silence")
    }

    /// A USB serial adapter pulled out and plugged back in.
    public static let gnssUSBUnplug = HILCheck(
        name: "gnss-usb-unplug",
        proves: "when the receiver's USB serial adapter is unplugged (QEMU device_del), the open port's read fails with HardwareError.deviceGone; when it is plugged back (device_add), the device node returns, the port opens again, and a fix comes within 2 s of the reopen (an adapter not plugged in yet is plugged in first)"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let clock = context.clock
        guard let tty = c.usbTTY else {
            return .skipped(reason: "needs a USB serial adapter the host simulator can unplug (FIELDLOC_HIL_USB_TTY, set in the QEMU guest)")
        }
        // The guest boots without the adapter (a receiver plugged in late): have it plugged in first.
        let pluggedIn = try USBSimulator.ensurePlugged(tty, context: context)
        // The simulator acknowledges, streams for 1 s, then unplugs the adapter for 2 s.
        let port = try openWithCommand(context, tty: tty, command: "UNPLUG,2")
        let stream = NMEAStream()
        var before = SentenceCollector()
        var gone: HardwareError?
        let unplugDeadline = clock.deadline(after: .seconds(15))
        while gone == nil, clock.now() < unplugDeadline {
            do throws(HardwareError) {
                let chunk = try port.readAvailable(maximum: 512, deadline: min(unplugDeadline, clock.deadline(after: .seconds(1))))
                if !chunk.isEmpty { stream.feed(chunk.span, delegate: &before) }
            } catch {
                gone = error
            }
        }
        port.close()
        let unpluggedAt = clock.now()
        try require(before.acknowledgedSimulator("UNPLUG"), "the simulator did not acknowledge UNPLUG: \(before.sentences) sentences")
        guard let gone else { throw HILFailure("\(tty) kept reading for 15 s: the adapter was not unplugged (\(before.fixes.count) fixes)") }
        try require(gone.kind == .deviceGone, "the unplug gave \(gone), not deviceGone")
        // Plugged back: the node comes back (the kernel enumerates the adapter again) and opens.
        var reopened: (any SerialPort)?
        var lastError: HardwareError?
        let replugDeadline = clock.deadline(after: .seconds(20))
        while reopened == nil, clock.now() < replugDeadline {
            do throws(HardwareError) {
                reopened = try context.platform.openSerialPort(tty, baudRate: c.gnssBaudRate)
            } catch {
                lastError = error
                clock.sleep(for: .milliseconds(100))
            }
        }
        guard let again = reopened else {
            throw HILFailure("\(tty) did not come back within 20 s of the unplug: \(lastError.map { "\($0)" } ?? "")")
        }
        defer { again.close() }
        let reopenedAt = clock.now()
        let after = NMEAStream()
        var collector = SentenceCollector()
        try collect(again, named: "\(tty) after the replug", into: after, &collector, clock: clock,
                    until: clock.deadline(after: .seconds(5)), step: .milliseconds(500)) { !$0.fixes.isEmpty }
        let firstFix = clock.now() - reopenedAt
        try require(!collector.fixes.isEmpty, "no fix within 5 s of reopening \(tty)")
        try require(firstFix < .seconds(2), "the first fix took \(milliseconds(firstFix)) after the reopen")
        let plugged = pluggedIn > .zero ? "plugged in (\(milliseconds(pluggedIn))), " : ""
        return .passed(detail: plugged + "\(before.fixes.count) fixes, then \(gone); back after \(milliseconds(reopenedAt - unpluggedAt)), first fix \(milliseconds(firstFix)) after the reopen")
    }

    /// The port is exclusive.
    public static let serialBusy = HILCheck(
        name: "serial-busy",
        proves: "a second open of the receiver's tty while it is open fails with HardwareError.busy, and the port opens again after close"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let first = try hardware("open \(c.gnssTTY)") { try context.platform.openSerialPort(c.gnssTTY, baudRate: c.gnssBaudRate) }
        let error: HardwareError
        do {
            defer { first.close() }
            error = try expectHardwareError("second open of \(c.gnssTTY)", kinds: [.busy]) {
                try context.platform.openSerialPort(c.gnssTTY, baudRate: c.gnssBaudRate)
            }
        }
        let again = try hardware("open \(c.gnssTTY) after close") { try context.platform.openSerialPort(c.gnssTTY, baudRate: c.gnssBaudRate) }
        again.close()
        return .passed(detail: "\(error)")
    }
}

// MARK: - Helpers

/// Opens the receiver's tty and sends the host simulator's test command `body` (`NOISE,3`,
/// `SILENT,2`); nil when the receiver is not the host simulator.
func simulatorPort(_ context: HILContext, command body: String) throws(HILFailure) -> (any SerialPort)? {
    let c = context.configuration
    guard c.gnssFixture else { return nil }
    return try openWithCommand(context, tty: c.gnssTTY, command: body)
}

/// Reads `port` into `stream` and `collector`, at most 512 bytes and `step` per read, until
/// `deadline` or until `done` holds (checked before each read).
func collect(_ port: any SerialPort, named name: String, into stream: NMEAStream, _ collector: inout SentenceCollector,
                     clock: any MonotonicClock, until deadline: MonotonicInstant, step: Duration = .seconds(1),
                     done: (SentenceCollector) -> Bool = { _ in false }) throws(HILFailure) {
    while clock.now() < deadline, !done(collector) {
        let chunk = try hardware("read \(name)") { try port.readAvailable(maximum: 512, deadline: min(deadline, clock.deadline(after: step))) }
        if !chunk.isEmpty { stream.feed(chunk.span, delegate: &collector) }
    }
}

/// Opens `tty` at the receiver's rate and sends the host simulator's test command `body`.
func openWithCommand(_ context: HILContext, tty: String, command body: String) throws(HILFailure) -> any SerialPort {
    let port = try hardware("open \(tty)") { try context.platform.openSerialPort(tty, baudRate: context.configuration.gnssBaudRate) }
    let command = GNSSFixture.simulatorCommand(body)
    do {
        try hardware("write \(command.trimmingSpaces)") { try port.writeAll(command, deadline: context.clock.deadline(after: .seconds(5))) }
    } catch {
        port.close()
        throw error
    }
    return port
}

func openBus(_ context: HILContext) throws(HILFailure) -> any I2CBus {
    let n = context.configuration.i2cBus
    return try hardware("open I2C bus \(n)") { try context.platform.openI2CBus(n) }
}

func sensor<T, E: Error>(_ body: () throws(E) -> T) throws(HILFailure) -> T {
    do {
        return try body()
    } catch {
        throw HILFailure("\(error)")
    }
}

func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(b)) }

/// Polls the observer for up to 1 s until the line reads `level`; returns the last reading.
func waitForValue(
    _ observer: SimulatedLineObserver, _ line: GPIOLineID, _ level: Bool, clock: any MonotonicClock
) throws(HILFailure) -> Bool {
    let reached = try clock.poll(attempts: 50, interval: .milliseconds(20)) { () throws(HILFailure) -> Bool? in
        try observer.value(of: line) == level ? true : nil
    }
    return reached != nil ? level : try observer.value(of: line)
}

/// Counts what an NMEAStream delivers.
struct SentenceCollector: NMEAStreamDelegate {
    var sentences = 0
    var rejected = 0
    var badChecksums = 0
    var fixes: [Fix] = []
    var proprietary: [String] = []
    var acknowledged = false

    mutating func stream(fix: Fix) { fixes.append(fix) }

    mutating func stream(sentence: ParsedSentence, bytes: Span<UInt8>) {
        sentences += 1
        if case .proprietary = sentence.sentence {
            var text = ""
            for i in bytes.indices { text.unicodeScalars.append(Unicode.Scalar(bytes[i])) }
            proprietary.append(text)
            if text.hasPrefix(GNSSFixture.acknowledgement) { acknowledged = true }
        }
    }

    /// Whether the host simulator's acknowledgement of `command` (`NOISE`, `SILENT`) arrived.
    func acknowledgedSimulator(_ command: String) -> Bool {
        proprietary.contains { $0.hasPrefix(GNSSFixture.simulatorAcknowledgement(command)) }
    }

    mutating func stream(rejected error: NMEAError, bytes: Span<UInt8>) {
        rejected += 1
        if case .checksumMismatch = error { badChecksums += 1 }
    }
}
