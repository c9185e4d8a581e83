import ArgumentParser
import FieldLocation
import FieldLocationOutput
import Foundation
import NMEA

extension FieldLoc {
    /// `fieldloc replay FILE`: a recorded log through the NMEA engine, as fast as possible or paced.
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a recorded NMEA log (binary UBX/RTCM frames may be interleaved).",
            discussion: """
            Prints one line per navigation epoch. With --json each line is a JSON object with time, mode,
            lat, lon, alt (MSL), speed (m/s), course (degrees true) and accuracy fields; missing values
            are omitted. Counters of accepted and rejected sentences go to standard error at the end.
            """)

        @Argument(help: "The log file to replay.")
        var file: String

        @Flag(help: "Print one JSON line per fix.")
        var json = false

        @Option(help: "Playback speed: 1 is real time, 10 is ten times faster. Default: as fast as possible.")
        var speed: Double?

        @Flag(help: "With --json, also print fixes whose date is not known yet (they have no \"time\").")
        var includeUndated = false

        @Flag(help: "Accept sentences that carry no checksum.")
        var noChecksum = false

        @Flag(help: "Do not print the counters summary on standard error.")
        var quiet = false

        func validate() throws {
            if let speed, !(speed > 0) { throw ValidationError("--speed must be a positive number, got \(speed)") }
        }

        func run() throws {
            let replay = LogReplay(path: file, speed: speed, acceptMissingChecksums: noChecksum)
            var output = FileHandleOutput()
            let stream: NMEAStream
            do {
                stream = try replay.run(sleep: { seconds in
                    if seconds > 0 { Thread.sleep(forTimeInterval: min(seconds, 60)) }
                }) { fix in
                    if json && fix.time == nil && !includeUndated { return }
                    output.write(json ? FixJSON.line(fix) : FixText.line(fix))
                }
            } catch {
                throw ValidationError(error.description)
            }
            output.flush()
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

/// Buffered standard output, flushed in large writes.
struct FileHandleOutput {
    private var pending: [UInt8] = []

    mutating func write(_ line: String) {
        pending.append(contentsOf: line.utf8)
        pending.append(0x0A)
        if pending.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !pending.isEmpty else { return }
        FileHandle.standardOutput.write(Data(pending))
        pending.removeAll(keepingCapacity: true)
    }
}
