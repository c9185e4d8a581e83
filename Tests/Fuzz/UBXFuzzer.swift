// libFuzzer entry point for the receiver side of ReceiverProtocols: what a u-blox, MediaTek or CASIC
// receiver sends back. The input is the byte stream the receiver writes on the UART.
//
// Built by .ci/fuzz.sh against the real modules NMEA, HardwareInterfaces and ReceiverProtocols (each
// compiled with -emit-module -enable-testing, so internals such as ListenSink are reachable):
//
//   .ci/fuzz.sh 60 .build-fuzz ubx
//
// Any trap or memory error is a crash, and so is a broken invariant (checked with `require`):
// - listening (ReceiverDetector.listen through a port delivering chunks of 1 to 64 bytes) gives the
//   same report as the framer fed the whole input;
// - every UBX frame decoded from the stream re-encodes (UBXMessage.bytes) to bytes that occur in
//   the input, in order, without overlap; and a UBX message built from the input encodes to a frame
//   that decodes back to itself alone;
// - MON-VER: a decoded version has 40 + 30 N bytes behind it, printable fields no longer than their
//   slots, and a u-blox identity exactly when its hardware string names a u-blox generation;
// - ACK/NAK and polls (CommandChannel, one attempt, reads of 16 to 79 bytes) agree with the whole stream: a
//   command succeeds only when the first acknowledgement-class frame naming it is an ACK-ACK, is
//   refused only when that frame is something else, gets "no acknowledgement" only when there is
//   none; a poll returns the payload of the first reply frame of its class and id; the ACK sink and
//   the listen sink frame the same UBX frames;
// - `$PMTK001` acknowledgements: success only when the first `$PMTK001,<cmd>,…` framed has flag 3;
// - detection over the stream finishes without throwing, with a rate exactly when it has an identity.

@testable import ReceiverProtocols
import HardwareInterfaces
import NMEA
#if canImport(Glibc)
import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    print("ubx fuzz invariant broken: \(message())")
    abort()
}

/// A clock that never moves: reads end when the scripted bytes run out, never at a deadline, so the
/// outcome cannot depend on timing.
private struct StillClock: MonotonicClock {
    func now() -> MonotonicInstant { .zero }
    func sleep(until deadline: MonotonicInstant) {}
}

/// A serial port whose receive side is the fuzz input, delivered `chunk` bytes per read; writes are accepted.
private final class ScriptedPort: SerialPort, @unchecked Sendable {
    let name = "fuzz"
    let clock: any MonotonicClock = StillClock()
    private(set) var baudRate = BaudRate.b9600
    private let input: [UInt8]
    private let chunk: Int
    private var offset = 0
    private(set) var written: [UInt8] = []

    init(_ input: [UInt8], chunk: Int) {
        self.input = input
        self.chunk = max(1, chunk)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int {
        let count = min(buffer.count, chunk, input.count - offset)
        for i in 0..<count { buffer[i] = input[offset + i] }
        offset += count
        return count
    }

    func write(_ bytes: UnsafeRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int {
        written.append(contentsOf: bytes)
        return bytes.count
    }

    func setBaudRate(_ rate: BaudRate) throws(HardwareError) { baudRate = rate }
    func drain(deadline: MonotonicInstant) throws(HardwareError) {}
    func discard(_ queue: SerialQueue) throws(HardwareError) {}
    func close() {}
}

/// The framer fed `bytes` in pieces of `chunk`, as ListenSink sees it.
private func listenDirect(_ bytes: [UInt8], chunk: Int) -> ListenReport {
    let framer = NMEAFramer()
    var sink = ListenSink()
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunk)
        sink.report.bytes += end - offset
        framer.feed(bytes[offset..<end].span, into: &sink)
        offset = end
    }
    sink.report.garbageBytes = framer.counters.garbageBytes
    return sink.report
}

/// Whether `needle` occurs in `haystack` at or after `start`; returns the index after it.
private func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard !needle.isEmpty, needle.count <= haystack.count - start else { return nil }
    var i = start
    while i + needle.count <= haystack.count {
        if haystack[i] == needle[0] && haystack[i..<i + needle.count].elementsEqual(needle) { return i + needle.count }
        i += 1
    }
    return nil
}

private func checkVersion(_ payload: [UInt8]) {
    guard let version = UBXVersion(payload: payload) else {
        require(payload.count < 40 || (payload.count - 40) % 30 != 0, "MON-VER of \(payload.count) bytes refused")
        return
    }
    require(payload.count >= 40 && (payload.count - 40) % 30 == 0, "MON-VER accepted \(payload.count) bytes")
    require(version.extensions.count == (payload.count - 40) / 30, "MON-VER extension count")
    let printable = { (s: String) in s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
    require(version.software.utf8.count <= 30 && printable(version.software), "MON-VER software field: \(version.software)")
    require(version.hardware.utf8.count <= 10 && printable(version.hardware), "MON-VER hardware field: \(version.hardware)")
    for e in version.extensions { require(e.utf8.count <= 30 && printable(e), "MON-VER extension: \(e)") }
    let identity = ReceiverIdentity.from(version: version)
    require((identity != nil) == (version.generation != nil), "identity without a u-blox generation or the reverse")
    if let identity {
        require(identity.family == .ublox && identity.ubloxGeneration == version.generation,
                "MON-VER identity \(identity) for hardware \(version.hardware)")
        require(identity.protocolVersion == version.protocolVersion && identity.model == version.module, "MON-VER fields lost")
        _ = identity.description
    }
}

private enum AckOutcome: Equatable {
    case acknowledged, rejected, none, other(String)
}

private func ubxAck(_ input: [UInt8], chunk: Int, message: UBXMessage) -> AckOutcome {
    let port = ScriptedPort(input, chunk: chunk)
    let channel = CommandChannel(port: port, timeout: .seconds(1), attempts: 1)
    do {
        try channel.send(message)
    } catch {
        switch error {
        case .rejected: return .rejected
        case .noAcknowledgement: return .none
        default: return .other(error.description)
        }
    }
    require(Array(port.written.prefix(message.bytes.count)) == message.bytes, "the command was not written as encoded")
    return .acknowledged
}

private func pmtkAck(_ input: [UInt8], chunk: Int, number: Int) -> AckOutcome {
    let port = ScriptedPort(input, chunk: chunk)
    let channel = CommandChannel(port: port, timeout: .seconds(1), attempts: 1)
    do {
        try channel.send(PMTK.rate(milliseconds: 1000), acknowledgedAs: number)
    } catch {
        switch error {
        case .rejected: return .rejected
        case .noAcknowledgement: return .none
        default: return .other(error.description)
        }
    }
    return .acknowledged
}

private func poll(_ input: [UInt8], chunk: Int) -> [UInt8]? {
    let channel = CommandChannel(port: ScriptedPort(input, chunk: chunk), timeout: .seconds(1), attempts: 1)
    do { return try channel.poll(.pollVersion) } catch {
        if case .noAcknowledgement = error { return nil }
        require(false, "poll failed with \(error)")
        return nil
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let control = data[0]
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let chunk = Int(control & 0x3F) + 1
    // The command channel scans everything framed so far after every read, so one-byte reads make it
    // quadratic; its reads are 16 to 79 bytes (still splitting frames anywhere), the listener's 1 to 64.
    let channelChunk = chunk + 15

    // Listening: the framer fed the whole input, and the detector's own read loop (reads of at most
    // 512 bytes) over a port that delivers `chunk` bytes at a time.
    let whole = listenDirect(input, chunk: max(1, input.count))
    let detector = ReceiverDetector(port: ScriptedPort(input, chunk: chunk))
    do {
        let heard = try detector.listen(until: .distantFuture)
        require(heard == whole, "ReceiverDetector.listen in \(chunk)-byte reads differs from the framer fed the whole input")
    } catch {
        require(false, "listen threw \(error)")
    }
    require(whole.bytes == input.count, "byte count")

    // Every decoded frame re-encodes to bytes found in the input, in order.
    var position = 0
    for frame in whole.ubxFrames {
        require(frame.payload.count <= NMEAFramer.maximumUBXPayload, "UBX payload of \(frame.payload.count) bytes")
        let encoded = UBXMessage(class: frame.messageClass, id: frame.id, payload: frame.payload).bytes
        guard let next = find(encoded, in: input, from: position) else {
            require(false, "decoded UBX frame \(frame.messageClass) \(frame.id) (\(frame.payload.count) bytes) does not re-encode to input bytes")
            return 0
        }
        position = next
        if frame.messageClass == 0x0A && frame.id == 0x04 { checkVersion(frame.payload) }
    }
    checkVersion(input)

    // A message built from the input decodes back to itself, alone.
    if input.count >= 2 {
        let message = UBXMessage(class: input[0], id: input[1], payload: Array(input.dropFirst(2).prefix(NMEAFramer.maximumUBXPayload)))
        let report = listenDirect(message.bytes, chunk: chunk)
        require(report.ubxFrames == [.init(messageClass: message.messageClass, id: message.id, payload: message.payload)]
                    && report.validSentences.isEmpty && report.invalidSentences == 0 && report.garbageBytes == 0,
                "UBX frame of \(message.payload.count) bytes did not decode back to itself")
    }

    // Banners, replies and sentence types.
    for sentence in whole.validSentences {
        require(sentence.first == "$" || sentence.first == "!", "valid sentence without a delimiter: \(sentence)")
        if let ack = PMTK.acknowledgement(sentence) { require(sentence.hasPrefix("$PMTK001,"), "PMTK ack from \(sentence) = \(ack)") }
        let body = sentence.split(separator: "*", maxSplits: 1).first.map(String.init) ?? sentence
        if let identity = ReceiverIdentity.from(sentence: body) { require(identity.evidence == body, "identity evidence") }
    }
    _ = ReceiverDetector.identityFromReplies(whole)
    let types = ReceiverDetector.sentenceTypes(whole)
    require(Set(types).count == types.count, "sentence types repeat: \(types)")

    // UBX ACK/NAK: the first acknowledgement-class frame naming the command decides.
    let command = UBXMessage.rate(milliseconds: 1000)
    let firstAck = whole.ubxFrames.first {
        $0.messageClass == 0x05 && $0.payload.count >= 2 && $0.payload[0] == command.messageClass && $0.payload[1] == command.id
    }
    switch ubxAck(input, chunk: channelChunk, message: command) {
    case .acknowledged: require(firstAck?.id == 0x01, "acknowledged without an ACK-ACK first")
    case .rejected: require(firstAck != nil && firstAck?.id != 0x01, "refused without an acknowledgement frame")
    case .none: require(firstAck == nil, "no acknowledgement reported although one was sent")
    case .other(let text): require(false, "unexpected error: \(text)")
    }

    // Polls: the first MON-VER frame's payload.
    let expectedReply = whole.ubxFrames.first { $0.messageClass == 0x0A && $0.id == 0x04 }?.payload
    let reply = poll(input, chunk: channelChunk)
    require(reply == expectedReply, "poll reply differs from the first MON-VER frame")

    // PMTK acknowledgements: the channel does not check checksums, every framed line counts, and the
    // first `$PMTK001` for the command decides (flag 3 succeeds, any other flag refuses).
    let framer = NMEAFramer()
    var sink = CommandChannel.AckSink()
    framer.feed(input.span, into: &sink)
    let firstFlag = sink.sentences.lazy.compactMap { PMTK.acknowledgement($0) }.first { $0.command == 220 }?.flag
    switch pmtkAck(input, chunk: channelChunk, number: 220) {
    case .acknowledged:
        require(firstFlag == 3 && find(Array("$PMTK001,".utf8), in: input, from: 0) != nil, "PMTK acknowledged without $PMTK001,220,3")
    case .rejected: require(firstFlag != nil && firstFlag != 3, "PMTK refused without a $PMTK001 for the command")
    case .none: require(firstFlag == nil, "no PMTK acknowledgement reported although one was sent")
    case .other(let text): require(false, "unexpected PMTK error: \(text)")
    }
    require(sink.ubx.map { ListenReport.UBXFrame(messageClass: $0.0, id: $0.1, payload: $0.2) } == whole.ubxFrames,
            "the acknowledgement sink and the listen sink framed different UBX frames")

    // Detection over the stream: bounded, never throws on a port that does not fail.
    if control & 0xC0 == 0xC0 && input.count & 3 == 0 {
        let detect = ReceiverDetector(port: ScriptedPort(input, chunk: chunk), baudRates: [.b9600, .b38400],
                                      listenWindow: .seconds(1), replyWindow: .seconds(1))
        do {
            let result = try detect.detect()
            require((result.baudRate != nil) == (result.identity != nil), "detection: a rate without an identity or the reverse")
            require(!result.steps.isEmpty, "detection without steps")
            require(result.baudRate != nil || !result.advice.isEmpty, "detection failed without advice")
        } catch {
            require(false, "detection threw \(error)")
        }
    }
    return 0
}
