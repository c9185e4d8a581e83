#if canImport(NMEA)
import NMEA
#endif

/// The position the client reports to the caster: a `$GPGGA` sentence.
public struct GGAReport: Sendable, Hashable {
    /// Degrees north and east (WGS84).
    public var latitude: Double, longitude: Double
    /// Metres above mean sea level.
    public var altitude: Double
    /// The geoid separation, metres.
    public var geoidSeparation: Double
    /// UTC seconds since midnight.
    public var secondsOfDay: Double
    /// The GGA quality (1 autonomous, 2 DGPS, 4 RTK fixed, 5 RTK float).
    public var quality: Int
    /// Satellites used.
    public var satellites: Int
    /// Horizontal dilution of precision.
    public var hdop: Double

    /// A report with every field given.
    public init(latitude: Double, longitude: Double, altitude: Double = 0, geoidSeparation: Double = 0,
                secondsOfDay: Double, quality: Int = 1, satellites: Int = 10, hdop: Double = 1) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.geoidSeparation = geoidSeparation
        self.secondsOfDay = secondsOfDay
        self.quality = quality
        self.satellites = satellites
        self.hdop = hdop
    }

    /// The sentence with its checksum and CR LF, or `nil` when a value is not finite or out of range.
    /// Latitude and longitude carry 7 decimals of minutes (about 0.2 mm), as RTK casters expect.
    public var sentence: [UInt8]? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180,
              altitude.isFinite, geoidSeparation.isFinite, secondsOfDay.isFinite, hdop.isFinite else { return nil }
        let day = ((secondsOfDay.truncatingRemainder(dividingBy: 86_400)) + 86_400).truncatingRemainder(dividingBy: 86_400)
        let hundredths = Int((day * 100).rounded(.down))
        let seconds = hundredths / 100
        let time = pad(seconds / 3600, 2) + pad(seconds / 60 % 60, 2) + pad(seconds % 60, 2) + "." + pad(hundredths % 100, 2)
        let body = "GPGGA,\(time),\(Self.angle(latitude, 2)),\(latitude >= 0 ? "N" : "S"),\(Self.angle(longitude, 3)),"
            + "\(longitude >= 0 ? "E" : "W"),\(max(0, min(quality, 8))),\(pad(max(0, min(satellites, 99)), 2)),"
            + "\(Self.decimal(hdop, 1)),\(Self.decimal(altitude, 3)),M,\(Self.decimal(geoidSeparation, 3)),M,,"
        return NMEAChecksum.sentence(body: Array(body.utf8)) + [0x0D, 0x0A]
    }

    /// `ddmm.mmmmmmm` (or `dddmm.…`) of the absolute value.
    static func angle(_ value: Double, _ degreeDigits: Int) -> String {
        let scale = 10_000_000
        let totalMinutes = Int((abs(value) * 60 * Double(scale)).rounded())
        let degrees = totalMinutes / (60 * scale)
        let minutes = totalMinutes % (60 * scale)
        return pad(degrees, degreeDigits) + pad(minutes / scale, 2) + "." + pad(minutes % scale, 7)
    }

    static func decimal(_ value: Double, _ places: Int) -> String {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int((abs(value) * Double(scale)).rounded())
        return (value < 0 && scaled != 0 ? "-" : "") + "\(scaled / scale)." + pad(scaled % scale, places)
    }
}

func pad(_ value: Int, _ width: Int) -> String {
    var text = "\(value)"
    while text.count < width { text = "0" + text }
    return text
}

/// Exponential reconnection backoff: 1 s, 2 s, 4 s … up to a cap (60 s), back to the start after a
/// connection that delivered corrections.
public struct NTRIPBackoff: Sendable, Hashable {
    /// The first delay and the cap, seconds.
    public var initial: Double, maximum: Double
    /// The delay the next failure waits.
    public private(set) var next: Double
    /// Failures in a row.
    public private(set) var failures = 0

    /// A backoff from `initial` doubling up to `maximum` seconds.
    public init(initial: Double = 1, maximum: Double = 60) {
        self.initial = initial
        self.maximum = maximum
        next = initial
    }

    /// A failure: returns the seconds to wait before the next attempt.
    public mutating func failed() -> Double {
        let delay = next
        failures += 1
        next = min(next * 2, maximum)
        return delay
    }

    /// A connection delivered corrections: the next failure waits the initial delay again.
    public mutating func succeeded() {
        next = initial
        failures = 0
    }
}
