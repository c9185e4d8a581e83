import ArgumentParser
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import LocationAPI
import NMEA

extension FieldLoc {
    /// `fieldloc replay FILE`: a recorded log through the NMEA engine, as fast as possible or paced.
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a recorded NMEA log (binary UBX/RTCM frames may be interleaved).",
            discussion: """
            Prints one line per navigation epoch. With --json each line is a JSON object with time, mode, \
            lat, lon, alt (MSL), speed (m/s), course (degrees true) and accuracy fields; missing values \
            are omitted. Counters of accepted and rejected sentences go to standard error at the end.
            """)

        @Argument(help: "The log file to replay.")
        var file: String

        @Flag(help: "Print one JSON line per fix.")
        var json = false

        @Option(help: "Playback speed: 1 is real time, 10 is ten times faster. Default: as fast as possible.")
        var speed: Double?

        @Flag(inversion: .prefixedNo,
              help: "With --json, also print fixes whose date is not known (they have no \"time\"; the text lines always include them). Off by default: compare_tpv.py and other tools that read the JSON lines expect a time on every line.")
        var includeUndated = false

        @Flag(help: "Leave out of a second's fix the VTG and PGRMZ that come after its last timed sentence, as gpsd 3.22 does (by default they join it, as the gpsd of the shared corpus reports them).")
        var gpsd322Cycle = false

        @Option(help: "A leap-second list (IERS/NIST leap-seconds.list format) in place of the built-in table, for receivers that give GPS time without their leap seconds.")
        var leapSeconds: String?

        @Flag(help: "Accept sentences that carry no checksum.")
        var noChecksum = false

        @Flag(help: "Do not print the counters summary on standard error.")
        var quiet = false

        func validate() throws {
            if let speed, !(speed > 0) { throw ValidationError("--speed must be a positive number, got \(speed)") }
        }

        func run() throws {
            // A recording of several receivers interleaves their reads in one log: only the engine,
            // with the events file's tags, can take them apart.
            let receivers = RecordingEvents.receivers(besideLog: file)
            if !receivers.isEmpty {
                throw ValidationError("\(file) holds the reads of \(receivers.count) receivers (\(receivers.joined(separator: ", ")), "
                                      + "listed in \(file).events.jsonl:1), interleaved; replay it through the engine with its replay board: "
                                      + "fieldloc watch --board \(ReplayBoardFile.path(out: file))")
            }
            var replay = LogReplay(path: file, speed: speed, acceptMissingChecksums: noChecksum)
            if gpsd322Cycle { replay.untimedAfterCycleEnd = .leftOut }
            if let leapSeconds {
                do { replay.leapSecondTable = try LeapSecondFile.load(leapSeconds) } catch { throw ValidationError(error.description) }
            }
            // One reusable buffer, written to standard output in blocks of about 64 KiB.
            var writeError: Error?
            let writer = FixJSONWriter { bytes in
                guard writeError == nil, let base = bytes.baseAddress else { return }
                do {
                    try FileHandle.standardOutput.write(contentsOf: Data(
                        bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
                } catch {
                    writeError = error
                }
            }
            let stream: NMEAStream
            do {
                stream = try replay.print(to: writer, json: json, includeUndated: includeUndated, sleep: { seconds in
                    if seconds > 0 {
                        writer.flush()
                        Thread.sleep(forTimeInterval: min(seconds, 60))
                    }
                })
            } catch {
                throw ValidationError(error.description)
            }
            writer.flush()
            if let writeError { throw ValidationError("writing standard output failed: \(writeError)") }
            if !quiet {
                let c = stream.counters
                let f = stream.framer.counters
                var summary = "replay: \(f.bytes) bytes, \(f.sentences) sentences, \(c.totalAccepted) accepted, "
                summary += "\(c.totalRejected) rejected ("
                summary += RejectionReason.allCases.filter { c.rejected($0) > 0 }.map { "\($0): \(c.rejected($0))" }
                    .joined(separator: ", ")
                summary += "), \(f.ubxFrames) UBX and \(f.rtcm3Frames) RTCM3 frames, \(c.fixes) fixes\n"
                FileHandle.standardError.write(Data(summary.utf8))
            }
        }
    }
}
