/// Where the GPS − UTC offset of a fix's time came from.
public enum LeapSecondSource: String, Sendable, Hashable, CaseIterable {
    /// The receiver gave UTC itself or stated the offset (UBX NAV-PVT, NAV-TIMEUTC, NAV-TIMEGPS,
    /// NAV-TIMELS; CASIC NAV-TIMEUTC; any NMEA sentence, whose times are UTC).
    case receiver
    /// The ``LeapSecondTable``, for an instant before the table's expiry: the receiver said nothing
    /// of leap seconds (a u-blox unit logging only NAV-SOL), and GPS time was turned into UTC with
    /// the count the table has for that instant.
    case table
    /// The table's last count, for an instant after the table's expiry: assumed unchanged since.
    /// Right unless a leap second was announced after the table was made.
    case assumed
}

/// An error reading a leap-second list.
public enum LeapSecondTableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Line `line` (1-based) is neither a comment nor `NTP-seconds TAI-UTC`.
    case malformedLine(line: Int)
    /// The list has no `#@` expiry line.
    case missingExpiry
    /// The steps are not in increasing order of time, or a count does not grow by one second at a time.
    case notIncreasing(line: Int)
    /// The list has no step at all.
    case empty

    public var description: String {
        switch self {
        case .malformedLine(let line): return "leap-second list line \(line): expected `NTP-seconds TAI-UTC [# comment]`"
        case .missingExpiry: return "leap-second list has no `#@` expiry line"
        case .notIncreasing(let line): return "leap-second list line \(line): steps must be in increasing time, one second each"
        case .empty: return "leap-second list has no entries"
        }
    }
}

/// The history of UTC's leap seconds: TAI − UTC from each step on, and the date after which the
/// table says nothing (IERS announces each leap second about six months ahead, so any table expires).
///
/// GPS time runs 19 s behind TAI with no leap seconds, so GPS − UTC is TAI − UTC − 19: 16 s in 2013,
/// 18 s since 2017. A receiver that gives only GPS time (u-blox NAV-SOL without NAV-TIMEGPS or
/// NAV-TIMEUTC) gets its UTC from this table (``LeapSecondSource/table``), or from the table's last
/// count past its expiry (``LeapSecondSource/assumed``), instead of from a constant.
///
/// ``iers`` is built in; ``init(leapSecondsList:)`` reads the IERS/NIST `leap-seconds.list` format
/// (as tzdata installs it), so a newer list replaces the built-in one without a new build.
public struct LeapSecondTable: Sendable, Hashable {
    /// One step: from `utc` (seconds since 1970-01-01, POSIX) on, TAI − UTC is `taiMinusUTC` seconds.
    public struct Step: Sendable, Hashable {
        public var utc: Int64
        public var taiMinusUTC: Int
        public init(utc: Int64, taiMinusUTC: Int) {
            self.utc = utc
            self.taiMinusUTC = taiMinusUTC
        }
    }

    /// The steps, in increasing time.
    public let steps: [Step]
    /// The instant (seconds since 1970) after which the table is not known to be complete.
    public let expires: Int64

    /// Seconds between the NTP epoch (1900) and the POSIX epoch (1970).
    static let ntpToPOSIX: Int64 = 2_208_988_800
    /// The GPS epoch, 1980-01-06T00:00:00Z, in POSIX seconds.
    static let gpsEpoch: Int64 = 315_964_800

    /// A table of `steps` (increasing in time) that expires at `expires` (POSIX seconds).
    public init(steps: [Step], expires: Int64) {
        self.steps = steps
        self.expires = expires
    }

    /// The IERS history from 1972 (Bulletin C): TAI − UTC 10 s on 1972-01-01 and one second more at
    /// each of the 27 leap seconds since, the last on 2017-01-01 (37 s, GPS − UTC 18 s). It expires on
    /// 2026-06-28, the expiry of the IERS list after Bulletin C 70 (July 2025), which announced no leap
    /// second for the end of 2025. Update the dates here, or load a newer list with
    /// ``init(leapSecondsList:)``, when the IERS publishes one.
    public static let iers: LeapSecondTable = {
        // Days since 1970-01-01 of each step (1 January or 1 July), TAI − UTC from 10 s.
        let dates: [(Int, Int)] = [
            (1972, 1), (1972, 7), (1973, 1), (1974, 1), (1975, 1), (1976, 1), (1977, 1), (1978, 1), (1979, 1),
            (1980, 1), (1981, 7), (1982, 7), (1983, 7), (1985, 7), (1988, 1), (1990, 1), (1991, 1), (1992, 7),
            (1993, 7), (1994, 7), (1996, 1), (1997, 7), (1999, 1), (2006, 1), (2009, 1), (2012, 7), (2015, 7),
            (2017, 1),
        ]
        var steps: [Step] = []
        for (index, (year, month)) in dates.enumerated() {
            let days = CalendarDate(year: year, month: month, day: 1).map { Int64($0.daysSinceEpoch) } ?? 0
            steps.append(Step(utc: days * 86_400, taiMinusUTC: 10 + index))
        }
        let expiry = CalendarDate(year: 2026, month: 6, day: 28).map { Int64($0.daysSinceEpoch) * 86_400 } ?? 0
        return LeapSecondTable(steps: steps, expires: expiry)
    }()

    /// Reads a list in the IERS/NIST `leap-seconds.list` format: lines `NTP-seconds TAI-UTC`
    /// (anything after `#` a comment), and the expiry on a line `#@ NTP-seconds`.
    ///
    /// - Throws: ``LeapSecondTableError`` naming the line that is wrong.
    public init(leapSecondsList text: String) throws(LeapSecondTableError) {
        var steps: [Step] = []
        var expiry: Int64?
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw[...]
            if line.hasPrefix("#@") {
                guard let value = Int64(line.dropFirst(2).trimmingBlanks) else { throw .malformedLine(line: number) }
                expiry = value - Self.ntpToPOSIX
                continue
            }
            let content = (line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").trimmingBlanks
            if content.isEmpty { continue }
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count == 2, let ntp = Int64(words[0]), let count = Int(words[1]) else { throw .malformedLine(line: number) }
            let step = Step(utc: ntp - Self.ntpToPOSIX, taiMinusUTC: count)
            if let last = steps.last, step.utc <= last.utc || abs(step.taiMinusUTC - last.taiMinusUTC) != 1 {
                throw .notIncreasing(line: number)
            }
            steps.append(step)
        }
        guard !steps.isEmpty else { throw .empty }
        guard let expiry else { throw .missingExpiry }
        self.init(steps: steps, expires: expiry)
    }

    /// GPS − UTC at GPS time `gpsSeconds` (seconds since 1980-01-06 on the GPS time scale), and whether
    /// the table covers that instant; `nil` before GPS time began or before the table's first step.
    public func gpsMinusUTC(gpsSeconds: Int64) -> (seconds: Int, source: LeapSecondSource)? {
        guard gpsSeconds >= 0 else { return nil }
        let gpsAsPOSIX = gpsSeconds + Self.gpsEpoch
        // The step in force: the latest whose start, on the GPS scale, is not after the instant.
        for step in steps.reversed() {
            let offset = step.taiMinusUTC - 19
            if gpsAsPOSIX - Int64(offset) >= step.utc {
                return (offset, gpsAsPOSIX - Int64(offset) < expires ? .table : .assumed)
            }
        }
        return nil
    }

    /// ``gpsMinusUTC(gpsSeconds:)`` for a GPS week (full, not modulo 1024) and time of week.
    public func gpsMinusUTC(week: Int, timeOfWeekMilliseconds: UInt32) -> (seconds: Int, source: LeapSecondSource)? {
        guard (0...9999).contains(week) else { return nil }
        return gpsMinusUTC(gpsSeconds: Int64(week) * 604_800 + Int64(timeOfWeekMilliseconds / 1000))
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmingBlanks: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
