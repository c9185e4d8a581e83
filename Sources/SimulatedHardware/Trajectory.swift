import RealModule

/// A ground-truth track: position, speed and course at every second.
public struct Trajectory: Sendable {
    /// One second of truth.
    public struct Point: Sendable, Hashable {
        /// Seconds since the start.
        public var time: Double
        /// Latitude, degrees.
        public var latitude: Double
        /// Longitude, degrees.
        public var longitude: Double
        /// Speed over ground, m/s.
        public var speed: Double
        /// Course over ground, degrees true.
        public var course: Double
    }

    /// The points, one per second from 0.
    public private(set) var points: [Point]

    /// Creates a trajectory from points (sorted by time; one per second is expected).
    public init(points: [Point]) { self.points = points }

    /// The truth at `seconds` (clamped to the track; between points, the earlier point).
    public func at(_ seconds: Double) -> Point {
        guard let first = points.first else { return Point(time: seconds, latitude: 0, longitude: 0, speed: 0, course: 0) }
        let i = Int(seconds.rounded(.down))
        if i <= 0 { return first }
        return i < points.count ? points[i] : points[points.count - 1]
    }

    /// Duration in seconds.
    public var duration: Double { points.last?.time ?? 0 }

    /// A leg: walk, drive or stand for a time at a speed and course.
    public struct Leg: Sendable, Hashable {
        /// Seconds.
        public var duration: Int
        /// m/s.
        public var speed: Double
        /// Degrees true.
        public var course: Double

        /// Creates a leg.
        public init(duration: Int, speed: Double, course: Double) {
            self.duration = duration
            self.speed = speed
            self.course = course
        }
    }

    /// Integrates legs from a start position on a local tangent plane.
    public static func legs(_ legs: [Leg], latitude: Double, longitude: Double) -> Trajectory {
        let earth = 6_371_008.8
        var north = 0.0, east = 0.0
        var points: [Point] = []
        var t = 0
        let cosLat = Double.cos(latitude * Double.pi / 180)
        func point(_ speed: Double, _ course: Double) -> Point {
            Point(time: Double(t), latitude: latitude + north / earth * 180 / Double.pi,
                  longitude: longitude + east / (earth * cosLat) * 180 / Double.pi, speed: speed, course: course)
        }
        for leg in legs {
            for _ in 0..<max(0, leg.duration) {
                points.append(point(leg.speed, leg.course))
                north += leg.speed * Double.cos(leg.course * Double.pi / 180)
                east += leg.speed * Double.sin(leg.course * Double.pi / 180)
                t += 1
            }
        }
        points.append(point(0, legs.last?.course ?? 0))
        return Trajectory(points: points)
    }

    /// A named scenario: `walk` (1.4 m/s with two 5-minute stops), `drive` (0-30 m/s with traffic
    /// stops), `stationary`; `seconds` long.
    public static func scenario(_ name: String, seconds: Int, latitude: Double = 38.1, longitude: Double = -122.6) -> Trajectory? {
        var legs: [Leg] = []
        switch name {
        case "walk":
            // 15 min out, 5 min stop, 20 min on, 5 min stop, the rest back; turning every leg.
            let pattern: [(Int, Double, Double)] = [(900, 1.4, 45), (300, 0, 45), (1200, 1.4, 135), (300, 0, 135), (3600, 1.4, 250)]
            var left = seconds
            for (d, v, c) in pattern where left > 0 {
                legs.append(Leg(duration: min(d, left), speed: v, course: c))
                left -= d
            }
        case "drive":
            // Three minutes of driving at 10-30 m/s, then 30 s stopped at a light, repeated.
            var left = seconds
            var k = 0
            let speeds: [Double] = [13, 25, 8, 30, 18]
            while left > 0 {
                let drive = min(180, left)
                legs.append(Leg(duration: drive, speed: speeds[k % speeds.count], course: Double((k * 70) % 360)))
                left -= drive
                if left > 0 {
                    legs.append(Leg(duration: min(30, left), speed: 0, course: Double((k * 70) % 360)))
                    left -= 30
                }
                k += 1
            }
        case "stationary":
            legs = [Leg(duration: seconds, speed: 0, course: 0)]
        default:
            return nil
        }
        return .legs(legs, latitude: latitude, longitude: longitude)
    }

    /// Reads a CSV track with header `time_s,lat_deg,lon_deg`; points are interpolated to one per
    /// second. Errors name the line.
    public static func csv(_ text: String, file: String) throws(TrackError) -> Trajectory {
        var samples: [(Double, Double, Double)] = []
        var lineNumber = 0
        var header = true
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let line = raw.trimmingCharacters()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if header {
                guard line == "time_s,lat_deg,lon_deg" else { throw .badHeader(file: file, found: line) }
                header = false
                continue
            }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters() }
            guard cells.count == 3, let t = Double(cells[0]), let lat = Double(cells[1]), let lon = Double(cells[2]),
                  t.isFinite, lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...360).contains(lon) else {
                throw .badRow(file: file, line: lineNumber, text: line)
            }
            if let last = samples.last, t <= last.0 { throw .notIncreasing(file: file, line: lineNumber) }
            samples.append((t, lat, lon))
        }
        guard samples.count >= 2 else { throw .tooShort(file: file) }
        return resample(samples)
    }

    /// Reads the track points (`<trkpt lat=".." lon="..">` with `<time>` ISO 8601 UTC) of a GPX file.
    public static func gpx(_ text: String, file: String) throws(TrackError) -> Trajectory {
        var samples: [(Double, Double, Double)] = []
        var rest = Substring(text)
        var t0: Double? = nil
        while let start = rest.firstRange(of: "<trkpt") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstRange(of: "</trkpt>") else { throw .badGPX(file: file, detail: "unterminated <trkpt>") }
            let element = rest[..<end.lowerBound]
            rest = rest[end.upperBound...]
            guard let lat = attribute("lat", in: element).flatMap(Double.init),
                  let lon = attribute("lon", in: element).flatMap(Double.init) else {
                throw .badGPX(file: file, detail: "a <trkpt> without numeric lat and lon")
            }
            guard let timeText = tag("time", in: element), let seconds = iso8601Seconds(timeText) else {
                throw .badGPX(file: file, detail: "a <trkpt> without a <time> in ISO 8601 UTC")
            }
            let t = seconds - (t0 ?? seconds)
            if t0 == nil { t0 = seconds }
            if let last = samples.last, t <= last.0 { continue }
            samples.append((t, lat, lon))
        }
        guard samples.count >= 2 else { throw .tooShort(file: file) }
        return resample(samples)
    }

    static func resample(_ samples: [(Double, Double, Double)]) -> Trajectory {
        var points: [Point] = []
        var j = 0
        let end = Int(samples[samples.count - 1].0)
        let earth = 6_371_008.8
        for second in 0...max(0, end) {
            let t = Double(second) + samples[0].0
            while j + 1 < samples.count - 1 && samples[j + 1].0 < t { j += 1 }
            let a = samples[j], b = samples[min(j + 1, samples.count - 1)]
            let f = b.0 > a.0 ? max(0, min(1, (t - a.0) / (b.0 - a.0))) : 0
            let lat = a.1 + (b.1 - a.1) * f, lon = a.2 + (b.2 - a.2) * f
            let dn = (b.1 - a.1) * Double.pi / 180 * earth
            let de = (b.2 - a.2) * Double.pi / 180 * earth * Double.cos(lat * Double.pi / 180)
            let dt = max(b.0 - a.0, 1e-9)
            let speed = (dn * dn + de * de).squareRoot() / dt
            var course = Double.atan2(y: de, x: dn) * 180 / Double.pi
            if course < 0 { course += 360 }
            points.append(Point(time: Double(second), latitude: lat, longitude: lon, speed: speed, course: course))
        }
        return Trajectory(points: points)
    }

    static func attribute(_ name: String, in element: Substring) -> String? {
        for quote in ["\"", "'"] {
            if let r = element.firstRange(of: " \(name)=\(quote)") {
                let after = element[r.upperBound...]
                if let close = after.firstIndex(of: Character(quote)) { return String(after[..<close]) }
            }
        }
        return nil
    }

    static func tag(_ name: String, in element: Substring) -> String? {
        guard let open = element.firstRange(of: "<\(name)>"), let close = element.firstRange(of: "</\(name)>"),
              open.upperBound <= close.lowerBound else { return nil }
        return String(element[open.upperBound..<close.lowerBound])
    }

    /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SS[.fff]Z`.
    static func iso8601Seconds(_ text: String) -> Double? {
        let s = Array(text.utf8)
        guard s.count >= 20, s[4] == 0x2D, s[7] == 0x2D, s[10] == 0x54, s[13] == 0x3A, s[16] == 0x3A, s.last == 0x5A else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: s[range], as: UTF8.self)) }
        guard let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10), let h = number(11..<13),
              let mi = number(14..<16), let sec = Double(String(decoding: s[17..<(s.count - 1)], as: UTF8.self)),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, sec < 61 else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Double(days * 86400 + h * 3600 + mi * 60) + sec
    }
}

/// Why a track file could not be read; each case names the file and, where known, the line.
public enum TrackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The CSV header is not `time_s,lat_deg,lon_deg`.
    case badHeader(file: String, found: String)
    /// A CSV row is malformed or out of range.
    case badRow(file: String, line: Int, text: String)
    /// Times do not increase.
    case notIncreasing(file: String, line: Int)
    /// Fewer than two points.
    case tooShort(file: String)
    /// The GPX is malformed.
    case badGPX(file: String, detail: String)

    public var description: String {
        switch self {
        case .badHeader(let file, let found): return "\(file): line 1: expected header 'time_s,lat_deg,lon_deg', found '\(found)'"
        case .badRow(let file, let line, let text): return "\(file): line \(line): '\(text)' is not time_s,lat_deg,lon_deg in range"
        case .notIncreasing(let file, let line): return "\(file): line \(line): time does not increase"
        case .tooShort(let file): return "\(file): a track needs at least two points"
        case .badGPX(let file, let detail): return "\(file): \(detail)"
        }
    }
}

extension StringProtocol {
    func trimmingCharacters() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\r" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\r" { scalars.removeLast() }
        return String(scalars)
    }
}
