import LocationServices
import NMEA

/// Writes fixes as JSON lines into one reusable byte buffer, handing the bytes on in large blocks.
///
/// Each fix becomes exactly the bytes of ``FixJSON/line(_:)`` followed by a newline, but without
/// building a `String`: numbers are formatted by the writer itself (``DecimalText``), as
/// `Double.description` spells them. When less than one line's worth of room is left, or on
/// ``flush()``, the buffered bytes go to the `flush` handler given at creation (`fieldloc replay`
/// writes them to standard output), so with the default capacity the handler receives writes of
/// about 64 KiB. Nothing is allocated per fix.
public final class FixJSONWriter {
    /// The most bytes one fix's line can take (every key with the longest number), with room to spare.
    static let lineReserve = 2_048

    private let storage: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var used = 0
    private let handler: (UnsafeRawBufferPointer) -> Void

    /// Creates a writer.
    /// - Parameters:
    ///   - capacity: the buffer's size in bytes (at least 4 KiB); bytes are handed on when fewer than
    ///     2 KiB are left.
    ///   - flush: receives the buffered bytes, valid only during the call.
    public init(capacity: Int = 65_536, flush: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.capacity = max(capacity, 2 * FixJSONWriter.lineReserve)
        storage = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
        handler = flush
    }

    deinit { storage.deallocate() }

    /// Bytes buffered and not yet handed on.
    public var pendingCount: Int { used }

    /// Hands the buffered bytes to the flush handler (if there are any).
    public func flush() {
        guard used > 0 else { return }
        handler(UnsafeRawBufferPointer(start: storage, count: used))
        used = 0
    }

    /// Appends `line` and a newline (for outputs that mix JSON with other text).
    public func write(line: String) {
        var line = line
        line.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                if used == capacity { flush() }
                let count = min(bytes.count - offset, capacity - used)
                (storage + used).update(from: base + offset, count: count)
                used += count
                offset += count
            }
        }
        if used == capacity { flush() }
        storage[used] = 0x0A
        used += 1
    }

    /// Appends the JSON line of `fix` and a newline: the bytes of ``FixJSON/line(_:)`` + `"\n"`.
    public func write(_ fix: Fix) {
        if capacity - used < FixJSONWriter.lineReserve { flush() }
        var p = storage + used
        literal("{\"class\":\"FIX\"", &p)
        if let time = fix.time {
            literal(",\"time\":\"", &p)
            Self.writeTime(time, &p)
            p.pointee = 0x22
            p += 1
        }
        literal(",\"mode\":", &p)
        p += DecimalText.writeInteger(fix.mode.rawValue, to: p)
        if fix.hasPosition {
            number(",\"lat\":", fix.latitude, &p)
            number(",\"lon\":", fix.longitude, &p)
            number(",\"alt\":", fix.altitudeMSL, &p)
            number(",\"altHAE\":", fix.altitudeHAE, &p)
            number(",\"geoidSep\":", fix.geoidSeparation, &p)
        }
        number(",\"speed\":", fix.speed, &p)
        number(",\"course\":", fix.course, &p)
        number(",\"magvar\":", fix.magneticVariation, &p)
        number(",\"eph\":", fix.horizontalAccuracy, &p)
        number(",\"epv\":", fix.verticalAccuracy, &p)
        // The time's measured one-sigma error (receiver tAcc, or GST's residuals); none is invented.
        number(",\"ept\":", Location.timeAccuracy(of: fix)?.seconds, &p)
        number(",\"hdop\":", fix.hdop, &p)
        number(",\"vdop\":", fix.vdop, &p)
        number(",\"pdop\":", fix.pdop, &p)
        if let satellitesUsed = fix.satellitesUsed {
            literal(",\"sats_used\":", &p)
            p += DecimalText.writeInteger(satellitesUsed, to: p)
        }
        if fix.satellites.count > 0 {
            literal(",\"sats_visible\":", &p)
            p += DecimalText.writeInteger(fix.satellites.count, to: p)
        }
        if fix.positionTalkersDiffer, fix.hasPosition, let talker = fix.positionTalker {
            literal(",\"talker\":\"", &p)
            p[0] = UInt8(truncatingIfNeeded: talker.rawValue >> 8)
            p[1] = UInt8(truncatingIfNeeded: talker.rawValue)
            p[2] = 0x22
            p += 3
        }
        if let source = fix.leapSecondsSource, source != .receiver {
            literal(source == .table ? ",\"leap_seconds\":\"table\"" : ",\"leap_seconds\":\"assumed\"", &p)
        }
        literal(",\"quality\":\"", &p)
        literal(Self.name(fix.quality), &p)
        literal("\",\"source\":\"", &p)
        literal(Self.name(fix.provenance), &p)
        literal("\"}\n", &p)
        used = storage.distance(to: p)
    }

    /// Copies an ASCII literal (a static string: no allocation, no transcoding).
    @inline(__always)
    private func literal(_ text: StaticString, _ p: inout UnsafeMutablePointer<UInt8>) {
        let count = text.utf8CodeUnitCount
        p.update(from: text.utf8Start, count: count)
        p += count
    }

    /// The JSON name of a quality, as a static string (``FixJSON/name(_:)-(FixQuality)`` reads it too).
    static func name(_ quality: FixQuality) -> StaticString {
        switch quality {
        case .invalid: return "none"
        case .gps: return "gps"
        case .differential: return "dgps"
        case .pps: return "pps"
        case .rtkFixed: return "rtk-fixed"
        case .rtkFloat: return "rtk-float"
        case .deadReckoning: return "dead-reckoning"
        case .manual: return "manual"
        case .simulated: return "simulated"
        }
    }

    /// The JSON name of a provenance, as a static string (``FixJSON/name(_:)-(Provenance)`` reads it too).
    static func name(_ provenance: Provenance) -> StaticString {
        switch provenance {
        case .receiver: return "receiver"
        case .replay: return "replay"
        case .simulator: return "simulator"
        }
    }

    /// `key` and the value, when there is one and it is finite (as ``FixJSON`` omits the others).
    @inline(__always)
    private func number(_ key: StaticString, _ value: Double?, _ p: inout UnsafeMutablePointer<UInt8>) {
        guard let value, value.isFinite else { return }
        literal(key, &p)
        p += DecimalText.writeDouble(value, to: p)
    }

    /// `UTCTime.iso8601(fractionDigits: 3)`: `2020-07-11T22:37:45.000Z`.
    static func writeTime(_ time: UTCTime, _ p: inout UnsafeMutablePointer<UInt8>) {
        let nanoseconds = time.nanosecondsSinceEpoch
        let day = nanoseconds >= 0
            ? nanoseconds / 86_400_000_000_000
            : (nanoseconds - 86_399_999_999_999) / 86_400_000_000_000
        let inDay = nanoseconds - day * 86_400_000_000_000
        let date = CalendarDate(daysSinceEpoch: Int(day))
        guard date.year >= 1000, date.year <= 9999 else {
            // Outside four-digit years (not representable in UTCTime in practice): the String path.
            for byte in time.iso8601(fractionDigits: 3).utf8 {
                p.pointee = byte
                p += 1
            }
            return
        }
        DecimalText.writeTwoDigits(date.year / 100, to: p)
        DecimalText.writeTwoDigits(date.year % 100, to: p + 2)
        p[4] = 0x2D
        DecimalText.writeTwoDigits(date.month, to: p + 5)
        p[7] = 0x2D
        DecimalText.writeTwoDigits(date.day, to: p + 8)
        p[10] = 0x54
        let seconds = Int(inDay / 1_000_000_000)
        DecimalText.writeTwoDigits(seconds / 3600, to: p + 11)
        p[13] = 0x3A
        DecimalText.writeTwoDigits(seconds / 60 % 60, to: p + 14)
        p[16] = 0x3A
        DecimalText.writeTwoDigits(seconds % 60, to: p + 17)
        p[19] = 0x2E
        let milliseconds = Int(inDay % 1_000_000_000 / 1_000_000)
        p[20] = 0x30 + UInt8(truncatingIfNeeded: milliseconds / 100)
        DecimalText.writeTwoDigits(milliseconds % 100, to: p + 21)
        p[23] = 0x5A
        p += 24
    }
}
