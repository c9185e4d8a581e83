import HardwareInterfaces
import NMEA
import Synchronization

/// A minimal GNSS receiver on a ``SimulatedSerialPort``: one epoch of GGA, RMC, GSA and GSV
/// (valid checksums) per fix interval on the manual clock, for a stationary or straight-line
/// moving position, the firmware query `$PMTK605` answered with `$PMTK705`, and the MediaTek rate
/// command `$PMTK220,<ms>` acknowledged with
/// `$PMTK001,220,3` (or `,2` for a rate it refuses) and applied to the next epoch.
public final class SimulatedGNSSReceiver: SimulatedSerialPeer {
    /// One satellite in view.
    public struct Satellite: Sendable, Hashable {
        /// PRN (GPS 1-32).
        public var prn: Int
        /// Elevation, degrees.
        public var elevation: Int
        /// Azimuth, degrees true.
        public var azimuth: Int
        /// Carrier-to-noise density, dB-Hz.
        public var snr: Int
        /// Whether the fix uses it.
        public var used: Bool

        /// Creates a satellite.
        public init(prn: Int, elevation: Int, azimuth: Int, snr: Int, used: Bool = true) {
            self.prn = prn
            self.elevation = elevation
            self.azimuth = azimuth
            self.snr = snr
            self.used = used
        }
    }

    /// What the receiver reports.
    public struct Configuration: Sendable, Hashable {
        /// Latitude at the first epoch, degrees (north positive).
        public var latitude: Double
        /// Longitude at the first epoch, degrees (east positive).
        public var longitude: Double
        /// Altitude above mean sea level, m.
        public var altitude: Double
        /// Geoid separation, m.
        public var geoidSeparation: Double
        /// Ground speed, m/s (0 for a stationary receiver).
        public var speed: Double
        /// Course over ground, degrees true.
        public var course: Double
        /// The UTC date of the first epoch.
        public var year: Int, month: Int, day: Int
        /// The UTC time of day of the first epoch, seconds.
        public var secondsOfDay: Double
        /// The fix interval (1 s is 1 Hz).
        public var interval: Duration
        /// The satellites in view.
        public var satellites: [Satellite]
        /// Dilutions of precision.
        public var pdop: Double, hdop: Double, vdop: Double

        /// Creates a configuration (a stationary receiver at 1 Hz with eight satellites by default).
        public init(latitude: Double, longitude: Double, altitude: Double = 50, geoidSeparation: Double = -30,
                    speed: Double = 0, course: Double = 0, year: Int = 2026, month: Int = 5, day: Int = 1,
                    secondsOfDay: Double = 12 * 3600, interval: Duration = .seconds(1),
                    satellites: [Satellite] = Configuration.defaultSatellites,
                    pdop: Double = 1.6, hdop: Double = 0.9, vdop: Double = 1.3) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
            self.geoidSeparation = geoidSeparation
            self.speed = speed
            self.course = course
            self.year = year
            self.month = month
            self.day = day
            self.secondsOfDay = secondsOfDay
            self.interval = interval
            self.satellites = satellites
            self.pdop = pdop
            self.hdop = hdop
            self.vdop = vdop
        }

        /// Eight GPS satellites spread over the sky.
        public static let defaultSatellites: [Satellite] = [
            .init(prn: 2, elevation: 64, azimuth: 42, snr: 44), .init(prn: 5, elevation: 31, azimuth: 301, snr: 38),
            .init(prn: 12, elevation: 48, azimuth: 130, snr: 41), .init(prn: 15, elevation: 22, azimuth: 210, snr: 33),
            .init(prn: 18, elevation: 12, azimuth: 75, snr: 29), .init(prn: 24, elevation: 55, azimuth: 260, snr: 42),
            .init(prn: 25, elevation: 9, azimuth: 160, snr: 25, used: false), .init(prn: 29, elevation: 37, azimuth: 10, snr: 39),
        ]
    }

    /// The fastest and slowest intervals `$PMTK220` accepts, ms (MTK3339: 100 ms to 10 s).
    public static let rateLimits = 100...10_000

    private struct State {
        var configuration: Configuration
        var start: MonotonicInstant
        var nextEpoch: MonotonicInstant
        var lastEpoch: MonotonicInstant?
        var pending: [(at: MonotonicInstant, bytes: [UInt8])] = []
        var input: [UInt8] = []
        var epochs = 0
        var commands: [String] = []
    }

    private let clock: ManualClock
    private let state: Mutex<State>

    /// Creates a receiver whose first epoch is one interval after the clock's current instant,
    /// and attaches it to `port`.
    public init(configuration: Configuration, port: SimulatedSerialPort) {
        clock = port.manualClock
        let now = clock.now()
        state = Mutex(State(configuration: configuration, start: now, nextEpoch: now.advanced(by: configuration.interval)))
        port.attach(self)
    }

    /// The configuration (the interval follows `$PMTK220`).
    public var configuration: Configuration { state.withLock { $0.configuration } }

    /// The current fix interval.
    public var interval: Duration { state.withLock { $0.configuration.interval } }

    /// Epochs sent so far.
    public var epochCount: Int { state.withLock { $0.epochs } }

    /// The valid sentences the host sent, without `$` and checksum, oldest first.
    public var commandsReceived: [String] { state.withLock { $0.commands } }

    /// The next instant bytes go out.
    public func nextTransmission(after instant: MonotonicInstant) -> MonotonicInstant? {
        state.withLock { s in
            let pending = s.pending.map(\.at).filter { $0 > instant }.min()
            let epoch = s.nextEpoch > instant ? s.nextEpoch : nil
            switch (pending, epoch) {
            case let (p?, e?): return min(p, e)
            case let (p?, nil): return p
            default: return epoch
            }
        }
    }

    /// The replies and epochs due by `instant`, in time order.
    public func transmit(upTo instant: MonotonicInstant) -> [UInt8] {
        state.withLock { s in
            var out: [(MonotonicInstant, [UInt8])] = s.pending.filter { $0.at <= instant }.map { ($0.at, $0.bytes) }
            s.pending.removeAll { $0.at <= instant }
            var guardCount = 0
            while s.nextEpoch <= instant && guardCount < 100_000 {
                out.append((s.nextEpoch, Self.epoch(s, at: s.nextEpoch)))
                s.lastEpoch = s.nextEpoch
                s.epochs += 1
                s.nextEpoch = s.nextEpoch.advanced(by: s.configuration.interval)
                guardCount += 1
            }
            return out.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }

    /// Parses host commands; `$PMTK220` changes the rate and is acknowledged.
    public func receive(_ bytes: [UInt8], at instant: MonotonicInstant) {
        state.withLock { s in
            s.input += bytes
            while let newline = s.input.firstIndex(of: 0x0A) {
                var line = Array(s.input[..<newline])
                s.input.removeSubrange(...newline)
                if line.last == 0x0D { line.removeLast() }
                // Like a real receiver, resynchronise on the last '$' (binary polls may precede it).
                if let dollar = line.lastIndex(of: UInt8(ascii: "$")) { line.removeSubrange(..<dollar) }
                guard let body = Self.validBody(line) else { continue }
                s.commands.append(body)
                Self.handle(body, &s, at: instant)
            }
            if s.input.count > 256 { s.input.removeAll() }
        }
    }

    private static func handle(_ body: String, _ s: inout State, at instant: MonotonicInstant) {
        let fields = body.split(separator: ",", omittingEmptySubsequences: false)
        if fields.first == "PMTK605" {
            // Firmware query, answered as an Adafruit Ultimate GPS (MT3339) answers it.
            s.pending.append((instant, sentence("PMTK705,AXN_2.31_3339_13101700,5632,PA6H,1.0")))
            return
        }
        guard fields.first == "PMTK220" else {
            if let first = fields.first, first.hasPrefix("PMTK"), first.count == 7 {
                s.pending.append((instant, sentence("PMTK001,\(first.dropFirst(4)),1")))
            }
            return
        }
        guard fields.count == 2, let ms = Int(fields[1]), rateLimits.contains(ms) else {
            s.pending.append((instant, sentence("PMTK001,220,2")))
            return
        }
        s.configuration.interval = .milliseconds(ms)
        let base = s.lastEpoch ?? s.start
        var next = base.advanced(by: s.configuration.interval)
        if next <= instant { next = instant.advanced(by: s.configuration.interval) }
        s.nextEpoch = next
        s.pending.append((instant, sentence("PMTK001,220,3")))
    }

    /// The body between `$` and `*` when the checksum is right.
    private static func validBody(_ line: [UInt8]) -> String? {
        guard line.first == UInt8(ascii: "$"), let star = line.lastIndex(of: UInt8(ascii: "*")), star + 3 == line.count else { return nil }
        let body = Array(line[1..<star])
        let sum = body.reduce(0, ^)
        let (h, l) = NMEAChecksum.hexDigits(sum)
        guard line[star + 1] == h, line[star + 2] == l else { return nil }
        return String(decoding: body, as: UTF8.self)
    }

    /// `$body*CS\r\n`.
    static func sentence(_ body: String) -> [UInt8] {
        let bytes = Array(body.utf8)
        let (h, l) = NMEAChecksum.hexDigits(bytes.reduce(0, ^))
        return [UInt8(ascii: "$")] + bytes + [UInt8(ascii: "*"), h, l, 0x0D, 0x0A]
    }

    // MARK: Epoch contents

    private static func epoch(_ s: State, at instant: MonotonicInstant) -> [UInt8] {
        let c = s.configuration
        let elapsed = s.start.duration(to: instant).secondsDouble - c.interval.secondsDouble
        let t = max(0, elapsed)
        let distance = c.speed * t
        let radius = 6_371_008.8
        let north = distance * SimMath.cos(degrees: c.course), east = distance * SimMath.sin(degrees: c.course)
        let latitude = c.latitude + north / radius * 180 / Double.pi
        let longitude = c.longitude + east / (radius * SimMath.cos(degrees: c.latitude)) * 180 / Double.pi
        let (date, seconds) = SimMath.utc(year: c.year, month: c.month, day: c.day, secondsOfDay: c.secondsOfDay + t)
        let time = SimMath.hhmmss(seconds)
        let lat = SimMath.coordinate(latitude, degreeDigits: 2, positive: "N", negative: "S")
        let lon = SimMath.coordinate(longitude, degreeDigits: 3, positive: "E", negative: "W")
        let used = c.satellites.filter(\.used).prefix(12)
        var out: [UInt8] = []
        out += sentence("GPGGA,\(time),\(lat),\(lon),1,\(SimMath.pad(used.count, 2)),\(SimMath.decimal(c.hdop, 1)),"
                        + "\(SimMath.decimal(c.altitude, 1)),M,\(SimMath.decimal(c.geoidSeparation, 1)),M,,")
        let knots = c.speed * 3600 / 1852
        let dateField = SimMath.pad(date.day, 2) + SimMath.pad(date.month, 2) + SimMath.pad(date.year % 100, 2)
        out += sentence("GPRMC,\(time),A,\(lat),\(lon),\(SimMath.decimal(knots, 2)),\(SimMath.decimal(c.speed > 0 ? c.course : 0, 2)),\(dateField),,,A")
        let prns = used.map { SimMath.pad($0.prn, 2) } + [String](repeating: "", count: 12 - used.count)
        out += sentence("GPGSA,A,3,\(prns.joined(separator: ",")),\(SimMath.decimal(c.pdop, 1)),\(SimMath.decimal(c.hdop, 1)),\(SimMath.decimal(c.vdop, 1))")
        let groups = stride(from: 0, to: c.satellites.count, by: 4).map { Array(c.satellites[$0..<min($0 + 4, c.satellites.count)]) }
        for (i, group) in groups.enumerated() {
            let sats = group.map { "\(SimMath.pad($0.prn, 2)),\(SimMath.pad($0.elevation, 2)),\(SimMath.pad($0.azimuth, 3)),\(SimMath.pad($0.snr, 2))" }
            out += sentence("GPGSV,\(groups.count),\(i + 1),\(SimMath.pad(c.satellites.count, 2)),\(sats.joined(separator: ","))")
        }
        return out
    }
}

/// Formatting and trigonometry without Foundation, for the simulated receiver.
enum SimMath {
    /// Sine of an angle in degrees (range-reduced Taylor series, error below 1e-12).
    static func sin(degrees: Double) -> Double {
        var x = degrees.truncatingRemainder(dividingBy: 360)
        if x > 180 { x -= 360 } else if x < -180 { x += 360 }
        // sin(x) = sin(180 - x): fold into -90...90.
        if x > 90 { x = 180 - x } else if x < -90 { x = -180 - x }
        let r = x * Double.pi / 180
        let r2 = r * r
        var term = r, sum = r
        for n in stride(from: 2, through: 30, by: 2) {
            term *= -r2 / Double(n * (n + 1))
            sum += term
        }
        return sum
    }

    /// Cosine of an angle in degrees.
    static func cos(degrees: Double) -> Double { sin(degrees: degrees + 90) }

    /// `value` with `places` decimals, rounded half away from zero.
    static func decimal(_ value: Double, _ places: Int) -> String {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int((abs(value) * Double(scale)).rounded())
        let whole = scaled / scale, fraction = scaled % scale
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return places == 0 ? "\(sign)\(whole)" : "\(sign)\(whole)." + pad(fraction, places)
    }

    /// `value` with leading zeros to `width` digits.
    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// `4807.03800,N`: degrees and minutes with five decimals.
    static func coordinate(_ degrees: Double, degreeDigits: Int, positive: String, negative: String) -> String {
        let total = Int((abs(degrees) * 60 * 100_000).rounded())
        let whole = total / 6_000_000, minutes = total % 6_000_000
        return pad(whole, degreeDigits) + pad(minutes / 100_000, 2) + "." + pad(minutes % 100_000, 5) + "," + (degrees < 0 ? negative : positive)
    }

    /// `123519.00`.
    static func hhmmss(_ seconds: Double) -> String {
        let hundredths = Int((seconds * 100).rounded())
        let s = hundredths / 100
        return pad(s / 3600, 2) + pad(s / 60 % 60, 2) + pad(s % 60, 2) + "." + pad(hundredths % 100, 2)
    }

    /// The date and time of day `secondsOfDay` after midnight of the given date (days roll over).
    static func utc(year: Int, month: Int, day: Int, secondsOfDay: Double) -> (date: (year: Int, month: Int, day: Int), seconds: Double) {
        let extraDays = Int((secondsOfDay / 86_400).rounded(.down))
        let days = daysFromCivil(year, month, day) + extraDays
        return (civilFromDays(days), secondsOfDay - Double(extraDays) * 86_400)
    }

    /// Days since 1970-01-01 (proleptic Gregorian).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    static func civilFromDays(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
