import LinuxHardware
import LocationServices
import NMEA

/// Why a log could not be replayed.
public enum ReplayError: Error, CustomStringConvertible, Sendable {
    /// The file could not be opened; `reason` is the system's explanation.
    case cannotOpen(path: String, reason: String)
    /// Reading failed part way; `offset` is the byte offset reached.
    case readFailed(path: String, offset: Int64, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot open \(path): \(reason)"
        case .readFailed(let path, let offset, let reason): return "reading \(path) failed at byte \(offset): \(reason)"
        }
    }
}

/// Replays a recorded byte log (NMEA with any binary frames interleaved) through the NMEA engine.
public struct LogReplay {
    /// The file to read.
    public let path: String
    /// Playback speed relative to the log's own clock; `nil` replays as fast as possible.
    public var speed: Double?
    /// Accept sentences without a checksum (some receivers send none).
    public var acceptMissingChecksums: Bool
    /// Untimed sentences after a second's last timed sentence (``UntimedAfterCycleEnd``).
    public var untimedAfterCycleEnd: UntimedAfterCycleEnd = .joinEpoch
    /// GPS − UTC for receivers that give GPS time without their leap seconds (``LeapSecondTable``).
    public var leapSecondTable: LeapSecondTable = .iers

    public init(path: String, speed: Double? = nil, acceptMissingChecksums: Bool = false) {
        self.path = path
        self.speed = speed
        self.acceptMissingChecksums = acceptMissingChecksums
    }

    /// The delay-cookie byte declared in a log's `#` header (`# Delay-Cookie: | 0.01`), if any.
    static func delayCookie(in head: ArraySlice<UInt8>) -> UInt8? {
        let marker = Array("# Delay-Cookie:".utf8)
        var lineStart = head.startIndex
        while lineStart < head.endIndex, head[lineStart] == 0x23 {
            let lineEnd = head[lineStart...].firstIndex(of: 0x0A) ?? head.endIndex
            let line = head[lineStart..<lineEnd]
            if line.starts(with: marker) {
                let rest = line.dropFirst(marker.count).drop { $0 == 0x20 }
                if let byte = rest.first, byte > 0x20, byte < 0x7F { return byte }
            }
            lineStart = lineEnd + 1
        }
        return nil
    }

    /// The log's lines, each with its terminator, with comment lines (`#`) and the delay cookie
    /// removed (as gpsfake sends them): for replays that hand out the receiver's bytes line by line
    /// (`fieldlocd --replay`). The file is held in memory, so one larger than `maximumSize` is refused.
    public func lines(maximumSize: Int = 256 << 20) throws(ReplayError) -> [[UInt8]] {
        var data: [UInt8] = []
        try forEachRead { (buffer, count) throws(ReplayError) in
            data += buffer[0..<count]
            guard data.count <= maximumSize else {
                throw ReplayError.readFailed(path: path, offset: Int64(data.count), reason: "larger than \(maximumSize >> 20) MiB")
            }
        }
        let cookie = LogReplay.delayCookie(in: data[...])
        var lines: [[UInt8]] = []
        var start = 0
        while start < data.count {
            let end = data[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? data.count
            let line = data[start..<end]
            start = end
            if line.first == UInt8(ascii: "#") { continue }
            lines.append(cookie.map { c in line.filter { $0 != c } } ?? Array(line))
        }
        return lines
    }

    /// The stream used for replays: comment lines skipped, no week-rollover shift (logs are genuinely
    /// old), fixes marked as coming from a replay.
    public func makeStream() -> NMEAStream {
        var options = AssemblerOptions(weekRolloverPivot: nil, provenance: .replay, distance: Geodesy.wgs84Distance,
                                       ecefConversion: Geodesy.wgs84ECEF)
        options.untimedAfterCycleEnd = untimedAfterCycleEnd
        options.leapSecondTable = leapSecondTable
        return NMEAStream(parserOptions: NMEAParserOptions(requireChecksum: !acceptMissingChecksums),
                          assemblerOptions: options, skipsCommentLines: true)
    }

    /// Reads the whole file, calling `onFix` for each fix; returns the stream for its counters.
    ///
    /// With a ``speed``, `sleep` is called with the seconds to wait between fixes (from the fixes' own times).
    @discardableResult
    public func run(sleep: (Double) -> Void = { _ in }, onFix: (Fix) -> Void) throws(ReplayError) -> NMEAStream {
        let stream = makeStream()
        var cookie: UInt8?
        var headerChecked = false
        var lastTime: UTCTime?
        func pace(_ fix: Fix) {
            if let speed, speed > 0, let time = fix.time {
                if let lastTime, time > lastTime {
                    sleep(Double(time.nanosecondsSinceEpoch - lastTime.nanosecondsSinceEpoch) / 1e9 / speed)
                }
                lastTime = time
            }
            onFix(fix)
        }
        try forEachRead { buffer, count in
            var usable = count
            if !headerChecked {
                // gpsd's test logs may declare a "delay cookie": a byte marking write boundaries
                // (`# Delay-Cookie: | 0.01`). gpsfake removes it from the data, and so do we.
                cookie = LogReplay.delayCookie(in: buffer[0..<count])
                headerChecked = true
            }
            if let cookie {
                var kept = 0
                for index in 0..<count where buffer[index] != cookie {
                    buffer[kept] = buffer[index]
                    kept += 1
                }
                usable = kept
            }
            buffer.withUnsafeBufferPointer { all in
                let chunk = UnsafeBufferPointer(rebasing: all[0..<usable])
                stream.feed(chunk.span, onFix: pace)
            }
        }
        stream.finish(onFix: pace)
        return stream
    }

    /// Reads the file in 64 KiB reads, handing each to `body` in one reusable buffer with the count
    /// read (the buffer may be changed in place); errors name the file and the byte offset reached.
    private func forEachRead(_ body: (inout [UInt8], Int) throws(ReplayError) -> Void) throws(ReplayError) {
        let file: SystemFile
        do { file = try SystemFile.open(path) } catch { throw .cannotOpen(path: path, reason: error.errno.description) }
        defer { try? file.close() }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset: Int64 = 0
        while true {
            var failure: FileError?
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                do throws(FileError) { return try file.read(into: raw) } catch { failure = error; return 0 }
            }
            if let failure { throw .readFailed(path: path, offset: offset, reason: failure.errno.description) }
            if count == 0 { return }
            offset += Int64(count)
            try body(&buffer, count)
        }
    }
}
