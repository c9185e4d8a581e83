/// A latitude or longitude as sent: `ddmm.mmmm` / `dddmm.mmmm` with its hemisphere.
public struct Coordinate: Sendable, Hashable {
    /// Degrees and minutes as the receiver wrote them (`4807.038` is 48 degrees 7.038 minutes).
    public let degreesMinutes: FixedDecimal
    /// `true` for south latitudes and west longitudes.
    public let isNegative: Bool

    /// Signed decimal degrees.
    public var degrees: Double {
        let value = degreesMinutes.doubleValue
        let whole = (value / 100).rounded(.towardZero)
        let result = whole + (value - whole * 100) / 60
        return isNegative ? -result : result
    }
}

/// A UTC time of day, `hhmmss.sss`, with the fraction kept to nanoseconds.
public struct TimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let hour: UInt8
    public let minute: UInt8
    /// 0...60 (60 only in a leap second).
    public let second: UInt8
    public let nanosecond: UInt32

    /// Creates a time of day; returns `nil` when a component is out of range.
    public init?(hour: Int, minute: Int, second: Int, nanosecond: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              (0..<1_000_000_000).contains(nanosecond) else { return nil }
        self.hour = UInt8(hour)
        self.minute = UInt8(minute)
        self.second = UInt8(second)
        self.nanosecond = UInt32(nanosecond)
    }

    /// Nanoseconds since midnight.
    public var nanosecondsSinceMidnight: Int64 {
        (Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)) * 1_000_000_000 + Int64(nanosecond)
    }

    public static func < (a: TimeOfDay, b: TimeOfDay) -> Bool { a.nanosecondsSinceMidnight < b.nanosecondsSinceMidnight }

    public var description: String {
        let ms = nanosecond / 1_000_000
        return "\(twoDigits(Int(hour))):\(twoDigits(Int(minute))):\(twoDigits(Int(second))).\(threeDigits(Int(ms)))"
    }
}

/// A calendar date (UTC) in the proleptic Gregorian calendar.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Creates a date; returns `nil` when the month or day is out of range for that month.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), (1...9999).contains(year),
              day >= 1, day <= CalendarDate.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01 (negative before it).
    public var daysSinceEpoch: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` days after 1970-01-01.
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (m <= 2 ? 1 : 0)
        month = m
        day = d
    }

    /// The date `count` days later (or earlier, when negative).
    public func adding(days count: Int) -> CalendarDate { CalendarDate(daysSinceEpoch: daysSinceEpoch + count) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public static func < (a: CalendarDate, b: CalendarDate) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

    public var description: String {
        let y = String(year)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + twoDigits(month) + "-" + twoDigits(day)
    }
}

/// An instant in UTC: nanoseconds since 1970-01-01T00:00:00Z (leap seconds not counted, as in POSIX).
public struct UTCTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let nanosecondsSinceEpoch: Int64

    public init(nanosecondsSinceEpoch: Int64) { self.nanosecondsSinceEpoch = nanosecondsSinceEpoch }

    /// Combines a date and a time of day. A leap second (`:60`) maps onto the following second.
    public init(date: CalendarDate, time: TimeOfDay) {
        nanosecondsSinceEpoch = Int64(date.daysSinceEpoch) * 86_400_000_000_000 + time.nanosecondsSinceMidnight
    }

    /// Combines a date and a time of day, or `nil` when the instant does not fit
    /// ``nanosecondsSinceEpoch`` (before 1677-09-21 or after 2262-04-11: a ZDA may say year 9999).
    init?(representing date: CalendarDate, time: TimeOfDay) {
        let (day, dayOverflow) = Int64(date.daysSinceEpoch).multipliedReportingOverflow(by: 86_400_000_000_000)
        let (instant, overflow) = day.addingReportingOverflow(time.nanosecondsSinceMidnight)
        guard !dayOverflow, !overflow else { return nil }
        nanosecondsSinceEpoch = instant
    }

    /// Seconds since the epoch as a `Double`.
    public var secondsSinceEpoch: Double { Double(nanosecondsSinceEpoch) / 1e9 }

    public static func < (a: UTCTime, b: UTCTime) -> Bool { a.nanosecondsSinceEpoch < b.nanosecondsSinceEpoch }

    /// ISO 8601 with milliseconds: `2020-07-11T22:37:45.000Z`.
    public var description: String { iso8601(fractionDigits: 3) }

    /// ISO 8601 in UTC with the given number of fraction digits (0...9).
    public func iso8601(fractionDigits: Int = 3) -> String {
        let day = nanosecondsSinceEpoch >= 0
            ? nanosecondsSinceEpoch / 86_400_000_000_000
            : (nanosecondsSinceEpoch - 86_399_999_999_999) / 86_400_000_000_000
        let inDay = nanosecondsSinceEpoch - day * 86_400_000_000_000
        let date = CalendarDate(daysSinceEpoch: Int(day))
        let seconds = Int(inDay / 1_000_000_000)
        var text = "\(date)T\(twoDigits(seconds / 3600)):\(twoDigits(seconds / 60 % 60)):\(twoDigits(seconds % 60))"
        let digits = min(max(fractionDigits, 0), 9)
        if digits > 0 {
            let fraction = String(inDay % 1_000_000_000)
            let padded = String(repeating: "0", count: 9 - fraction.count) + fraction
            text += "." + padded.prefix(digits)
        }
        return text + "Z"
    }
}

func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
func threeDigits(_ value: Int) -> String { value < 10 ? "00\(value)" : value < 100 ? "0\(value)" : String(value) }

/// The positioning mode indicator (RMC field 12, GLL field 7, VTG field 9, GNS field 6), NMEA 2.3 and later.
public enum ModeIndicator: UInt8, Sendable, Hashable {
    case autonomous = 0x41      // A
    case differential = 0x44    // D
    case estimated = 0x45       // E (dead reckoning)
    case floatRTK = 0x46        // F
    case manual = 0x4D          // M
    case notValid = 0x4E        // N
    case precise = 0x50         // P
    case rtk = 0x52             // R (RTK fixed)
    case simulator = 0x53       // S

    /// Whether the mode indicates a usable position.
    public var isValid: Bool { self != .notValid }
}

/// NMEA 4.10 navigational status (RMC field 13, GNS field 13).
public enum NavigationalStatus: UInt8, Sendable, Hashable {
    case safe = 0x53     // S
    case caution = 0x43  // C
    case unsafe = 0x55   // U
    case notValid = 0x56 // V
}

/// GGA field 6: the GPS quality indicator.
public enum GGAQuality: UInt8, Sendable, Hashable {
    case invalid = 0, gps = 1, differential = 2, pps = 3, rtkFixed = 4, rtkFloat = 5
    case deadReckoning = 6, manual = 7, simulator = 8
}

/// GSA field 2: the fix type.
public enum GSAFixType: UInt8, Sendable, Hashable {
    case none = 1, twoD = 2, threeD = 3
}
