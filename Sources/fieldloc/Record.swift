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
            abstract: "Record a board: the receiver's raw bytes, raw sensor samples and Bluetooth adverts, and the decoded fixes and headings, with timestamps.",
            discussion: """
            Writes OUT (the raw byte stream exactly as read: replay it with 'fieldloc replay OUT', or feed it to \
            gpsfake) and OUT.events.jsonl (a RECORDING line with the format version, then one JSON line per \
            event with "t", seconds since the start on the board's clock: CHUNK lines give the offset and length \
            of each read, so the timing can be replayed; FIX and HEADING lines are the decoded values, as \
            'fieldloc watch' prints them; SENSOR lines are the raw accelerometer (g), gyroscope (dps) and \
            magnetometer (µT) readings before calibration, ADVERT lines the Bluetooth advertising reports: a \
            replay board ([replay] in a board file) plays them all through the engine again). On a board with a \
            gyroscope (gyro = true) it records headings at 50 Hz and also writes OUT.samples.csv: t_s, the \
            body-frame accelerometer (g) and calibrated magnetometer (µT), gyro_x_dps,gyro_y_dps,gyro_z_dps \
            and the fix's speed_mps,course_deg (blank without a fix) of every sample the attitude filter took, which \
            'fieldloc heading --samples OUT.samples.csv' runs through the attitude filter again. The unit's \
            stored magnetometer calibration is applied and written into the RECORDING line, and NAME-replay.toml \
            is a replay board with the recorded board's receiver settings and sensor layout: 'fieldloc watch \
            --board NAME-replay.toml' replays the session. A simulated board records on its virtual clock, so an \
            hour takes moments.
            """)

        @Option(help: "Board: a built-in name (default sim) or a board file.")
        var board: String = BoardCatalog.defaultBoardName

        @Option(help: "How long: 30s, 5m, 1h.")
        var duration: String = "60s"

        @Option(name: .shortAndLong, help: "Output file for the raw bytes (events go to OUT.events.jsonl, the replay board to NAME-replay.toml beside it, NAME being OUT's file name in lower case with '.' as '-').")
        var out: String

        @Option(name: .customLong("state-dir"), help: "Folder of the unit's state: its stored magnetometer calibration is applied and recorded (default: FIELDLOC_STATE_DIR, XDG_STATE_HOME/fieldloc or ~/.local/state/fieldloc).")
        var stateDirectory: String?

        func validate() throws {
            guard Simulate.seconds(duration) != nil else { throw ValidationError("--duration '\(duration)' is not like 30s, 5m or 1h") }
        }

        func run() throws {
            let description: BoardDescription
            do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
            let seconds = Simulate.seconds(duration) ?? 60
            let engine: LocationEngine
            do { engine = try LocationEngine.open(board: description, linux: LinuxPlatform()) } catch { throw ValidationError(error.description) }
            // Headings as the unit computes them: with its stored calibration, which the recording carries.
            let store = CalibrationStore(directory: stateDirectory ?? CalibrationStore.defaultDirectory())
            do {
                if let stored = try store.calibration(for: description) { engine.calibration = stored.calibration }
            } catch {
                FileHandle.standardError.write(Data("warning: \(error.description); recording without a calibration\n".utf8))
            }
            let recorder: SessionRecorder
            do { recorder = try SessionRecorder(out: out, board: description, engine: engine) } catch { throw ValidationError(error.description) }
            let client = SessionRecorder.registerRecordingClient(on: engine, board: description)
            switch engine.platform.pacing {
            case .manual:
                engine.advance(by: .seconds(seconds))
            case .realTime:
                engine.runInBackground()
                Thread.sleep(forTimeInterval: Double(seconds))
            }
            let summary: SessionRecorder.Summary
            do { summary = try recorder.finish() } catch { throw ValidationError(error.description) }
            engine.unregister(client)
            engine.shutdown()
            let stats = engine.statistics
            var report = "recorded \(summary.bytes) bytes, \(stats.fixes) epochs, \(stats.headings) headings, "
            report += "\(summary.sensorSamples) sensor samples and \(summary.adverts) Bluetooth adverts to \(out) and \(recorder.eventsPath)\n"
            FileHandle.standardError.write(Data(report.utf8))
            FileHandle.standardError.write(Data("replay it with: fieldloc watch --board \(recorder.boardPath)\n".utf8))
            if summary.sampleRows > 0 {
                FileHandle.standardError.write(Data("recorded \(summary.sampleRows) gyroscope sample rows to \(recorder.samplesPath)\n".utf8))
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
