import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import FieldLocationStore
import Foundation
import HardwareInterfaces
import LinuxHardware
import LocationAPI
import NMEA

extension FieldLoc {
    /// `fieldloc record`: raw receiver bytes plus decoded events with timestamps.
    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a board: the receiver's raw bytes, and the decoded fixes and headings with timestamps.",
            discussion: """
            Writes OUT (the raw byte stream exactly as read: replay it with 'fieldloc replay OUT', or feed it to \
            gpsfake) and OUT.events.jsonl (one JSON line per event with "t", seconds since the start on the \
            board's clock: CHUNK lines give the offset and length of each read, so the timing can be replayed; \
            FIX and HEADING lines are the decoded values, as 'fieldloc watch' prints them). On a board with a \
            gyroscope (gyro = true) it records headings at 50 Hz and also writes OUT.samples.csv: t_s, the \
            body-frame accelerometer (g) and calibrated magnetometer (µT) and gyro_x_dps,gyro_y_dps,gyro_z_dps \
            of every sample the attitude filter took, which \
            'fieldloc heading --samples OUT.samples.csv' runs through the attitude filter again. A simulated \
            board records on its virtual clock, so an hour takes moments.
            """)

        @Option(help: "Board: a built-in name (default sim) or a board file.")
        var board: String = BoardCatalog.defaultBoardName

        @Option(help: "How long: 30s, 5m, 1h.")
        var duration: String = "60s"

        @Option(name: .shortAndLong, help: "Output file for the raw bytes (events go to OUT.events.jsonl).")
        var out: String

        func validate() throws {
            guard Simulate.seconds(duration) != nil else { throw ValidationError("--duration '\(duration)' is not like 30s, 5m or 1h") }
        }

        final class Sink: @unchecked Sendable {
            let lock = NSLock()
            let raw: FileHandle, events: FileHandle
            /// The attitude filter's samples (boards with a gyroscope), header written.
            let samples: FileHandle?
            var offset = 0
            var sampleRows = 0
            var failure: String?
            let start: MonotonicInstant
            init(raw: FileHandle, events: FileHandle, samples: FileHandle?, start: MonotonicInstant) {
                self.raw = raw; self.events = events; self.samples = samples; self.start = start
            }
            func write(_ observation: EngineObservation, now: MonotonicInstant) {
                lock.withLock {
                    guard failure == nil else { return }
                    let t = (now - start).secondsDouble
                    do {
                        switch observation {
                        case .bytes(let bytes):
                            try raw.write(contentsOf: bytes)
                            try events.write(contentsOf: Data(RecordingEvents.chunk(t: t, offset: offset, length: bytes.count).utf8))
                            offset += bytes.count
                        case .fix(let fix, _):
                            try events.write(contentsOf: Data(RecordingEvents.fix(fix, t: t).utf8))
                        case .heading(let h):
                            try events.write(contentsOf: Data(RecordingEvents.heading(h, t: t).utf8))
                            if let samples, let row = HeadingCSV.recordedRow(h, seconds: (h.takenAt - start).secondsDouble) {
                                try samples.write(contentsOf: Data((row + "\n").utf8))
                                sampleRows += 1
                            }
                        case .pps(let p):
                            try events.write(contentsOf: Data(RecordingEvents.pps(p, t: t).utf8))
                        case .frames:
                            break  // The raw bytes are recorded as read.
                        }
                    } catch {
                        failure = "\(error)"
                    }
                }
            }
        }

        func run() throws {
            let description: BoardDescription
            do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
            let seconds = Simulate.seconds(duration) ?? 60
            let engine: LocationEngine
            do { engine = try LocationEngine.open(board: description, linux: LinuxPlatform()) } catch { throw ValidationError(error.description) }
            let eventsPath = out + ".events.jsonl"
            for path in [out, eventsPath] {
                guard FileManager.default.createFile(atPath: path, contents: nil) else {
                    throw ValidationError("\(path): cannot be created (does the folder exist and is it writable?)")
                }
            }
            guard let raw = FileHandle(forWritingAtPath: out), let events = FileHandle(forWritingAtPath: eventsPath) else {
                throw ValidationError("\(out): cannot be opened for writing")
            }
            var samples: FileHandle?
            let samplesPath = out + ".samples.csv"
            if description.accelerometer?.gyroscopeRange != nil && engine.headingAvailable {
                // A heading (and a row) for every sample the attitude filter takes, so a replay
                // of the rows steps the filter exactly as the engine did.
                engine.headingPeriod = LocationEngine.gyroscopeSamplePeriod
                guard FileManager.default.createFile(atPath: samplesPath, contents: Data((HeadingCSV.recordedHeader + "\n").utf8)),
                      let handle = FileHandle(forWritingAtPath: samplesPath) else {
                    throw ValidationError("\(samplesPath): cannot be created (does the folder exist and is it writable?)")
                }
                _ = try? handle.seekToEnd()
                samples = handle
            }
            let sink = Sink(raw: raw, events: events, samples: samples, start: engine.clock.now())
            let clock = engine.clock
            let observer = engine.observe { sink.write($0, now: clock.now()) }
            let client = engine.register(name: "record") { _ in }.id
            engine.update(client) { s in
                s.updatingLocation = true
                s.pausesAutomatically = false
                s.updatingHeading = engine.headingAvailable
                s.headingFilter = nil
            }
            switch engine.platform.pacing {
            case .manual:
                engine.advance(by: .seconds(seconds))
            case .realTime:
                engine.runInBackground()
                Thread.sleep(forTimeInterval: Double(seconds))
            }
            engine.removeObserver(observer)
            engine.unregister(client)
            engine.shutdown()
            try? raw.synchronize(); try? events.synchronize()
            try? raw.close(); try? events.close()
            if let samples { try? samples.synchronize(); try? samples.close() }
            if let failure = sink.lock.withLock({ sink.failure }) { throw ValidationError("\(out): writing failed: \(failure)") }
            let stats = engine.statistics
            FileHandle.standardError.write(Data("recorded \(sink.offset) bytes, \(stats.fixes) epochs, \(stats.headings) headings to \(out) and \(eventsPath)\n".utf8))
            if samples != nil {
                FileHandle.standardError.write(Data("recorded \(sink.lock.withLock { sink.sampleRows }) gyroscope sample rows to \(samplesPath)\n".utf8))
            }
        }
    }

    /// `fieldloc export --gpx`: fixes to GPX.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export fixes as a GPX 1.1 track (accepted by gpsbabel).",
            discussion: """
            INPUT is either JSON lines with FIX records ('fieldloc watch', 'fieldloc replay --json', a recording's \
            .events.jsonl) or an NMEA log (a recording's raw file, a receiver capture), which is replayed through \
            the NMEA engine. Fixes without a position are skipped.
            """)

        @Flag(help: "GPX output (the only format so far).")
        var gpx = false

        @Argument(help: "Input file.")
        var input: String

        @Option(name: .shortAndLong, help: "Output file (default: standard output).")
        var output: String?

        func validate() throws {
            guard gpx else { throw ValidationError("choose a format: --gpx") }
        }

        func run() throws {
            guard let data = FileManager.default.contents(atPath: input) else {
                throw ValidationError("\(input): no such file or not readable")
            }
            let text = String(decoding: data.prefix(4096), as: UTF8.self)
            let firstLine = text.split(whereSeparator: \.isNewline).first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
            var points: [GPXWriter.Point] = []
            if firstLine.hasPrefix("{") {
                do { points = try GPXWriter.points(jsonLines: String(decoding: data, as: UTF8.self), file: input) } catch {
                    throw ValidationError(error.description)
                }
            } else {
                do { _ = try LogReplay(path: input).run { fix in if let p = GPXWriter.Point(fix) { points.append(p) } } } catch {
                    throw ValidationError(error.description)
                }
            }
            let document = GPXWriter.document(points, name: (input as NSString).lastPathComponent)
            if let output {
                do { try AtomicFile.write(Data(document.utf8), to: output) } catch { throw ValidationError(error.description) }
                FileHandle.standardError.write(Data("\(points.count) points to \(output)\n".utf8))
            } else {
                print(document, terminator: "")
            }
        }
    }
}
