import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import LocationAPI
import LocationServices
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Testing

/// A real board's two receivers, each an emulated MT3339 behind a simulated serial port of the
/// path its `[[receiver]]` names, on one manual clock: a live run that takes no wall-clock time.
struct TwoEmulatedReceivers: EnginePlatform {
    let platform: SimulatedPlatform
    var hardware: any HardwarePlatform { platform }
    var pacing: EnginePacing { .manual }
    var provenance: Provenance { .simulator }
    var providesReceiver: Bool { false }
    func receiverPort(for board: BoardDescription) -> String { board.receiver?.uart ?? "" }
    func receiverLines(for board: BoardDescription) throws(HardwareError) -> ReceiverLines { ReceiverLines() }
    func measuredReceiverEnergy() -> EnergyLedger? { nil }
    func utcSeconds(at instant: MonotonicInstant) -> Double { 1_777_593_600 + instant.seconds }
}

@Suite("Several receivers: status, record and replay")
struct SeveralReceiversReplayTests {
    static let board = """
    name = "two-receivers"
    title = "A HAT and a USB dongle"
    simulated = false

    [[receiver]]
    name = "hat"
    uart = "/dev/ttyS1"
    baud = 9600
    family = "generic-nmea"

    [[receiver]]
    name = "dongle"
    uart = "/dev/ttyACM0"
    baud = 9600
    family = "generic-nmea"
    """

    /// A reference station frame (1005) with a correct CRC-24Q: the dongle's fixes are differential while it gets one a second.
    static func rtcmFrame() -> [UInt8] {
        let payload: [UInt8] = [UInt8(1005 >> 4), UInt8((1005 & 0xF) << 4)] + [UInt8](repeating: 0, count: 17)
        let frame: [UInt8] = [0xD3, 0, UInt8(payload.count)] + payload
        return frame + CRC24Q.bytes(CRC24Q.compute(frame))
    }

    /// A FIX line without its `source` (the live run's fixes say `simulator`, the replay's `replay`).
    static func comparable(_ line: String) -> String {
        var out = line
        for key in [",\"source\":\"simulator\"", ",\"source\":\"replay\""] { out = out.replacingOccurrences(of: key, with: "") }
        return out
    }

    @Test("a two-receiver run with the dongle unplugged and plugged in again: status lists both, the recording tags each receiver's bytes, the replay delivers the same fixes from the same receivers at the same times")
    func recordAndReplay() throws {
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let boardFile = folder + "/two-receivers.toml"
        let board = try BoardLoader.load(text: Self.board, file: boardFile)
        #expect(board.receivers.map(\.label) == ["hat", "dongle"])

        // The live run: the dongle gets corrections (DGPS) and is chosen; unplugged at 20.5 s, the
        // HAT takes over; plugged in again at 31 s, the dongle is chosen again.
        let clock = ManualClock()
        let platform = try SimulatedPlatform(SimulatedPlatformDescription(serialPorts: [.init(path: "/dev/ttyS1"), .init(path: "/dev/ttyACM0")]),
                                             clock: clock)
        let walk = try #require(Trajectory.scenario("walk", seconds: 600))
        let hat = ReceiverEmulator(family: .mediatek, profile: .mt3339, trajectory: walk, start: clock.now(), tracking: true, seed: 1)
        let dongle = ReceiverEmulator(family: .mediatek, profile: .mt3339, trajectory: walk, start: clock.now(), tracking: true, seed: 2)
        for emulator in [hat, dongle] { emulator.setUTC(1_777_593_600_000_000_000, at: clock.now()) }
        platform.serialPort("/dev/ttyS1")?.attach(hat)
        let dongleport = try #require(platform.serialPort("/dev/ttyACM0"))
        dongleport.attach(dongle)
        let frame = Self.rtcmFrame()
        clock.addObserver { from, to in
            if Int(to.seconds) > Int(from.seconds) { dongle.receive(frame, at: to) }
        }
        let engine = LocationEngine(board: board, platform: TwoEmulatedReceivers(platform: platform))
        let out = folder + "/field.nmea"
        let recorder = try SessionRecorder(out: out, board: board, engine: engine)
        let client = SessionRecorder.registerRecordingClient(on: engine, board: board)
        let status = StatusMonitor(engine: engine, demand: false)

        engine.advance(by: .milliseconds(20_500))
        let before = engine.receiverSources
        #expect(before.map(\.label) == ["hat", "dongle"] && before.map(\.open) == [true, true] && before.map(\.chosen) == [false, true], "\(before)")
        #expect(before.map(\.lastFixType) == [.threeD, .dgps], "\(before)")
        #expect(before.allSatisfy { ($0.lastFixAge ?? 99) < 1.5 } && before.allSatisfy(\.live), "\(before)")
        let text = StatusView.text(status.snapshot())
        let lines = text.split(separator: "\n").map(String.init)
        let hatLine = try #require(lines.first { $0.hasPrefix("Receivers  hat") }, "\(text)")
        #expect(hatLine.contains("/dev/ttyS1") && hatLine.contains("open") && hatLine.contains("last fix 3D"), "\(hatLine)")
        #expect(lines.contains { $0.contains("dongle") && $0.contains("delivering") && $0.contains("last fix DGPS") }, "\(text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(StatusView.json(status.snapshot()).utf8)) as? [String: Any])
        let listed = try #require(json["receivers"] as? [[String: Any]])
        #expect(listed.compactMap { $0["name"] as? String } == ["hat", "dongle"])
        #expect(listed.compactMap { $0["chosen"] as? Bool } == [false, true] && listed.compactMap { $0["fix_type"] as? String } == ["threeD", "dgps"])

        dongleport.unplug()
        engine.advance(by: .milliseconds(10_500))
        let unplugged = engine.receiverSources
        #expect(unplugged.map(\.open) == [true, false] && unplugged.map(\.chosen) == [true, false], "\(unplugged)")
        #expect(unplugged[1].problem != nil && unplugged[1].lastFixAge == nil && unplugged.map(\.live) == [true, false], "\(unplugged)")
        let absentText = StatusView.text(status.snapshot())
        #expect(absentText.contains("dongle absent") && absentText.contains("port: "), "\(absentText)")
        dongleport.replug()
        engine.advance(by: .seconds(15))
        #expect(engine.receiverSources.map(\.chosen) == [false, true], "\(engine.receiverSources)")
        engine.unregister(client)
        status.close()
        let summary = try recorder.finish()
        #expect(summary.bytes > 10_000)

        // The recording: version 4, both receivers named; each CHUNK and FIX names its receiver; PORT lines for the unplug and the return.
        let events = try String(contentsOfFile: recorder.eventsPath, encoding: .utf8)
        let header = try #require(ReplayBoardTests.lines(events, "RECORDING").first)
        #expect(header["version"] as? Int == 4 && header["receivers"] as? [String] == ["hat", "dongle"])
        let chunks = ReplayBoardTests.lines(events, "CHUNK")
        #expect(Set(chunks.compactMap { $0["receiver"] as? String }) == ["hat", "dongle"] && chunks.allSatisfy { $0["receiver"] != nil })
        let ports = ReplayBoardTests.lines(events, "PORT").filter { $0["receiver"] as? String == "dongle" }.compactMap { $0["open"] as? Bool }
        #expect(ports == [true, false, true], "dongle's PORT lines: \(ports)")
        let recordedFixes = events.split(separator: "\n").filter { $0.hasPrefix("{\"class\":\"FIX\"") }.map(String.init)
        let fixSources = ReplayBoardTests.lines(events, "FIX").filter { $0["lat"] != nil }.compactMap { $0["receiver"] as? String }
        #expect(fixSources.contains("hat") && fixSources.contains("dongle") && fixSources.last == "dongle", "\(fixSources)")
        #expect(recordedFixes.count >= 40, "\(recordedFixes.count) fixes")

        // `fieldloc replay` (one stream through the NMEA engine) refuses the interleaved log and names the replay board.
        #expect(RecordingEvents.receivers(besideLog: out) == ["hat", "dongle"])
        if let fieldloc = ReplayBoardTests.fieldloc {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: fieldloc)
            process.arguments = ["replay", out]
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus != 0)
            #expect(said.contains("holds the reads of 2 receivers (hat, dongle, listed in \(out).events.jsonl:1), interleaved")
                && said.contains("fieldloc watch --board \(recorder.boardPath)"), "\(said)")
        }

        // The replay board names both receivers; replayed, the same fixes come from the same receivers at the same times.
        let boardText = try String(contentsOfFile: recorder.boardPath, encoding: .utf8)
        #expect(boardText.contains("receivers = [\"hat\", \"dongle\"]"), "\(boardText)")
        let replayBoard = try BoardLoader.load(text: boardText, file: recorder.boardPath)
        #expect(replayBoard.receivers.map(\.label) == ["hat", "dongle"])
        let unused = try SimulatedPlatform(SimulatedPlatformDescription())
        let replayPlatform = try #require(try BoardHardware.enginePlatform(for: replayBoard, linux: unused) as? ReplayEnginePlatform)
        #expect(replayPlatform.session.receivers == ["hat", "dongle"] && replayPlatform.session.portEvents.count >= 4)
        let replay = LocationEngine(board: replayBoard, platform: replayPlatform)
        let start = replay.clock.now()
        let fixes = Collected<String>()
        _ = replay.observe { observation in
            guard case .fix(let fix, let at) = observation else { return }
            let receiver = fix.receiverIndex.map { ["hat", "dongle"][$0] }
            fixes.append(RecordingEvents.fix(fix, t: (at - start).secondsDouble, receiver: receiver).trimmingCharacters(in: .newlines))
        }
        let manager = LocationManager(engine: replay)
        let delegate = Recorder()
        manager.delegate = delegate
        manager.pausesLocationUpdatesAutomatically = false
        manager.startUpdatingLocation()
        replay.advance(by: .seconds(48))
        let replayed = fixes.items
        #expect(replayed.count == recordedFixes.count)
        #expect(replayed.map(Self.comparable) == recordedFixes.map(Self.comparable))
        if let first = zip(replayed, recordedFixes).first(where: { Self.comparable($0) != Self.comparable($1) }) {
            Issue.record("first difference:\n replay   \(first.0)\n recorded \(first.1)")
        }
        #expect(delegate.locations.compactMap(\.source).contains(ReplayDescription.port(of: "hat")))
        #expect(replay.receiverSources.map(\.chosen) == [false, true], "\(replay.receiverSources)")
        // After the recording's end the dongle is still the chosen one, silent: no receiver is live.
        #expect(replay.receiverSources.map(\.live) == [false, false], "\(replay.receiverSources)")
        #expect(StatusView.receiverLines(replay.receiverSources).contains { $0.contains("dongle silent") })
        manager.stopUpdatingLocation()
    }

    @Test("a recording of several receivers is checked line by line: the header's receivers, each CHUNK's and PORT's receiver; a board and a recording that disagree are refused")
    func recordingsAreChecked() throws {
        let raw = Array("$GPGGA\r\n$GPRMC\r\n".utf8)
        let header = "{\"class\":\"RECORDING\",\"version\":4,\"board\":\"b\",\"receivers\":[\"hat\",\"dongle\"]}\n"
        let good = header + "{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":8,\"receiver\":\"hat\"}\n"
            + "{\"class\":\"PORT\",\"t\":0.6,\"receiver\":\"dongle\",\"open\":false}\n"
            + "{\"class\":\"CHUNK\",\"t\":0.7,\"offset\":8,\"length\":8,\"receiver\":\"dongle\"}\n"
        let session = try RecordedSession.parse(raw: raw, events: good, eventsFile: "u.events.jsonl")
        #expect(session.receivers == ["hat", "dongle"] && session.chunks.map(\.receiver) == [0, 1])
        #expect(session.portEvents == [RecordedSession.PortEvent(t: 0.6, receiver: 1, open: false)])

        func refusal(_ events: String) -> String {
            do { _ = try RecordedSession.parse(raw: raw, events: events, eventsFile: "u.events.jsonl"); return "accepted" } catch { return error.description }
        }
        #expect(refusal(header + "{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":16,\"receiver\":\"usb\"}\n")
            == "u.events.jsonl:2: CHUNK: receiver 'usb' is not one the RECORDING line lists (hat, dongle)")
        #expect(refusal(header + "{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":16}\n")
            == "u.events.jsonl:2: CHUNK: missing key 'receiver' (one of hat, dongle)")
        #expect(refusal(header + "{\"class\":\"PORT\",\"t\":0.5,\"receiver\":\"hat\"}\n")
            == "u.events.jsonl:2: PORT: missing key 'open' (true when the port opened, false when it failed)")
        #expect(refusal(header + "{\"class\":\"PORT\",\"t\":0.5,\"receiver\":\"hat\",\"open\":\"yes\"}\n")
            == "u.events.jsonl:2: PORT: key 'open' must be true or false")
        #expect(refusal("{\"class\":\"RECORDING\",\"version\":4,\"board\":\"b\",\"receivers\":[\"hat\",\"hat\"]}\n")
            == "u.events.jsonl:1: RECORDING: key 'receivers' names 'hat' twice")
        #expect(refusal("{\"class\":\"RECORDING\",\"version\":3,\"board\":\"b\",\"receivers\":[\"hat\",\"dongle\"]}\n")
            == "u.events.jsonl:1: RECORDING: key 'receivers' needs format version 4")
        #expect(refusal("{\"class\":\"RECORDING\",\"version\":3,\"board\":\"b\"}\n{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":16,\"receiver\":\"hat\"}\n")
            == "u.events.jsonl:2: CHUNK: key 'receiver' on a recording whose RECORDING line lists no receivers")
        // A version 3 recording (one receiver) still reads, its reads the first receiver's.
        let old = try RecordedSession.parse(raw: raw, events: "{\"class\":\"RECORDING\",\"version\":3,\"board\":\"b\"}\n{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":16}\n",
                                            eventsFile: "u.events.jsonl")
        #expect(old.version == 3 && old.receivers.isEmpty && old.chunks.map(\.receiver) == [0])

        // The replay board's receivers: refused when the recording lacks one, or when a recording of several is replayed as one.
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(raw).write(to: URL(fileURLWithPath: folder + "/u.nmea"))
        try good.write(toFile: folder + "/u.nmea.events.jsonl", atomically: true, encoding: .utf8)
        let unused = try SimulatedPlatform(SimulatedPlatformDescription())
        func load(_ receivers: String) throws -> String {
            let text = "name = \"r\"\ntitle = \"r\"\nsimulated = true\n\n[replay]\nlog = \"u.nmea\"\n" + receivers
            let board = try BoardLoader.load(text: text, file: folder + "/r.toml")
            do { _ = try BoardHardware.enginePlatform(for: board, linux: unused); return "accepted" } catch { return error.detail }
        }
        #expect(try load("receivers = [\"hat\", \"dongle\"]\n") == "accepted")
        #expect(try load("receivers = [\"hat\", \"usb\"]\n").hasSuffix("u.nmea.events.jsonl: the recording has no receiver 'usb' (it has hat, dongle)"))
        #expect(try load("").contains("the recording holds 2 receivers' bytes: name them in [replay] as receivers = [\"hat\", \"dongle\"]"))
        #expect(throws: BoardError.self) { try load("receivers = [\"hat\"]\n") }
    }
}
