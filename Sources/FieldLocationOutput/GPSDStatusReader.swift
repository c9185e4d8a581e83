import FieldLocation
import GPSDProtocol
import HardwareInterfaces
import Heading
import LocationAPI
import LocationServices
import NMEA
import PowerPolicy

/// Builds the status readout from a gpsd-protocol stream (our daemon's, or any gpsd's): the last
/// TPV becomes the fix, SKY its satellites, ATT the heading. Reports it does not know are ignored.
public struct GPSDStatusReader: Sendable {
    /// Where the reports come from (`127.0.0.1:2947`).
    public var source: String
    /// The server's VERSION release, once seen.
    public private(set) var release: String?
    /// The device the server reports (DEVICES), once seen.
    public private(set) var device: String?
    private var fix: Fix?
    private var fixAt: MonotonicInstant?
    private var heading: HeadingUpdate?
    private var headingAt: MonotonicInstant?
    private var ppsAt: MonotonicInstant?
    private var serialOffset: Double?
    private var pulseOffset: Double?
    private var errors: [String] = []
    /// Reports read.
    public private(set) var reports = 0
    /// The devices the last DEVICES listed: path, whether activated (open), driver.
    private var devices: [(path: String, open: Bool, driver: String?)] = []
    /// Each device's last TPV with a position (its fix type, 68 % accuracy and when it came).
    private var lastByDevice: [String: (type: LocationFixType, accuracy: Double?, at: MonotonicInstant)] = [:]
    /// The device the last TPV named: the one delivering.
    private var delivering: String?

    /// A reader for reports from `source`.
    public init(source: String) { self.source = source }

    /// Takes one line of the stream, read at `now`.
    public mutating func read(line: some Collection<UInt8>, at now: MonotonicInstant) {
        guard let object = try? GPSDJSONValue.parse(line), case .string(let kind)? = object["class"] else { return }
        reports += 1
        switch kind {
        case "VERSION": if case .string(let r)? = object["release"] { release = r }
        case "DEVICES":
            if case .array(let list)? = object["devices"], let first = list.first, case .string(let path)? = first["path"] { device = path }
            if case .array(let list)? = object["devices"] { readDevices(list) }
        case "TPV": tpv(object, at: now)
        case "SKY": sky(object)
        case "ATT": att(object, at: now)
        case "PPS", "TOFF":
            // real minus clock: the true time of the edge (PPS) or the fix (TOFF) minus the system clock then.
            if let offset = Self.clockOffset(object) {
                if kind == "PPS" { pulseOffset = offset; ppsAt = now } else { serialOffset = offset }
            } else if kind == "PPS" {
                ppsAt = now
            }
        case "ERROR":
            if case .string(let m)? = object["message"], errors.count < 5 { errors.append("server: \(m)") }
        default: break
        }
    }

    /// A TOFF or PPS report's `real_sec.real_nsec` minus `clock_sec.clock_nsec`, seconds.
    static func clockOffset(_ object: GPSDJSONValue) -> Double? {
        guard let realSeconds = number(object["real_sec"]), let realNanoseconds = number(object["real_nsec"]),
              let clockSeconds = number(object["clock_sec"]), let clockNanoseconds = number(object["clock_nsec"]) else { return nil }
        return (realSeconds - clockSeconds) + (realNanoseconds - clockNanoseconds) / 1e9
    }

    static func number(_ v: GPSDJSONValue?) -> Double? {
        if case .number(let d)? = v { return d }
        return nil
    }

    /// `2026-05-01T12:00:01.000Z` to UTC.
    static func utc(_ text: String) -> UTCTime? {
        let b = Array(text.utf8)
        func int(_ r: Range<Int>) -> Int? {
            guard r.upperBound <= b.count else { return nil }
            var v = 0
            for i in r { guard (48...57).contains(b[i]) else { return nil }; v = v * 10 + Int(b[i] - 48) }
            return v
        }
        guard b.count >= 20, let y = int(0..<4), let mo = int(5..<7), let d = int(8..<10), let h = int(11..<13),
              let mi = int(14..<16), let s = int(17..<19), let date = CalendarDate(year: y, month: mo, day: d) else { return nil }
        var nanos: Int64 = 0
        if b.count > 20, b[19] == UInt8(ascii: ".") {
            var digits = 0
            var i = 20
            while i < b.count, (48...57).contains(b[i]), digits < 9 { nanos = nanos * 10 + Int64(b[i] - 48); digits += 1; i += 1 }
            while digits < 9 { nanos *= 10; digits += 1 }
        }
        let seconds = Int64(h * 3600 + mi * 60 + s)
        return UTCTime(nanosecondsSinceEpoch: Int64(date.daysSinceEpoch) * 86_400_000_000_000 + seconds * 1_000_000_000 + nanos)
    }

    private mutating func tpv(_ o: GPSDJSONValue, at now: MonotonicInstant) {
        var f = Fix()
        let previousSatellites = fix?.satellites ?? SatelliteList()
        f.satellites = previousSatellites
        f.satellitesUsed = fix?.satellitesUsed
        f.hdop = fix?.hdop
        switch Self.number(o["mode"]).map(Int.init) {
        case 3?: f.mode = .threeD
        case 2?: f.mode = .twoD
        case 1?: f.mode = .noFix
        default: f.mode = .unknown
        }
        if f.mode >= .twoD { f.quality = .gps }
        if case .string(let t)? = o["time"] { f.time = Self.utc(t) }
        f.latitude = Self.number(o["lat"])
        f.longitude = Self.number(o["lon"])
        f.altitudeMSL = Self.number(o["altMSL"]) ?? Self.number(o["alt"])
        f.altitudeHAE = Self.number(o["altHAE"])
        f.speed = Self.number(o["speed"])
        f.course = Self.number(o["track"])
        // gpsd's eph is a 95 % figure; the readout shows the 68 % radius.
        f.horizontalAccuracy = Self.number(o["eph"]).map { $0 / GPSDAccuracy.horizontal95PerDRMS }
        f.verticalAccuracy = Self.number(o["epv"]).map { $0 / GPSDAccuracy.vertical95PerSigma }
        f.accuracySource = f.horizontalAccuracy == nil ? .none : .dop
        f.provenance = .receiver
        fix = f
        fixAt = now
        if case .string(let path)? = o["device"] {
            delivering = path
            if f.mode >= .twoD { lastByDevice[path] = (Self.fixType(o, mode: f.mode), f.horizontalAccuracy, now) }
        }
    }

    /// DEVICES' entries: each `path`, active while it has `activated`, and its `driver`.
    private mutating func readDevices(_ list: [GPSDJSONValue]) {
        devices = list.compactMap { entry in
            guard case .string(let path)? = entry["path"] else { return nil }
            var driver: String?
            if case .string(let d)? = entry["driver"] { driver = d }
            return (path, entry["activated"] != nil, driver)
        }
    }

    /// A TPV's fix type: gpsd's `status` (2 DGPS, 3 RTK fixed, 4 RTK float, 5 and 6 dead
    /// reckoning), else its mode.
    static func fixType(_ o: GPSDJSONValue, mode: FixMode) -> LocationFixType {
        switch number(o["status"]).map(Int.init) {
        case 2?: return .dgps
        case 3?: return .rtkFixed
        case 4?: return .rtkFloat
        case 5?, 6?: return .deadReckoning
        default: return mode == .threeD ? .threeD : .twoD
        }
    }

    /// The daemon's receivers as the readout lists them, when DEVICES named two or more: each
    /// device open or absent, the one the last TPV named delivering, with its last fix.
    func receiverStatus(at now: MonotonicInstant) -> [ReceiverSourceStatus] {
        guard devices.count > 1 else { return [] }
        return devices.map { d in
            let last = lastByDevice[d.path]
            return ReceiverSourceStatus(label: d.path, device: d.path, open: d.open, chosen: d.path == delivering && d.open, problem: nil,
                                        family: d.driver ?? "—", baudRate: 0, lastFixType: last?.type, lastAccuracy: last?.accuracy,
                                        lastFixAge: last.map { (now - $0.at).secondsDouble },
                                        // The stream has no epochs: 1.5 s, the rule's limit for a 1 Hz receiver.
                                        live: d.open && last.map { (now - $0.at).secondsDouble <= 1.5 } ?? false)
        }
    }

    private mutating func sky(_ o: GPSDJSONValue) {
        var f = fix ?? Fix()
        var list = SatelliteList()
        var used = 0
        if case .array(let sats)? = o["satellites"] {
            for s in sats {
                guard let prn = Self.number(s["PRN"]), prn >= 0, prn < 65_536 else { continue }
                let isUsed: Bool
                if case .bool(let u)? = s["used"] { isUsed = u } else { isUsed = false }
                if isUsed { used += 1 }
                // u-blox gnssid numbering, as gpsd reports it; out of range (or not finite) is no constellation.
                let gnss = Self.number(s["gnssid"]).flatMap { UInt8(exactly: $0.rounded(.towardZero)) }
                list.append(SatelliteInfo(constellation: gnss.flatMap(UBXGNSS.constellation), prn: UInt16(prn),
                                          elevation: Self.number(s["el"]).map { Int16(max(-90, min(90, $0))) },
                                          azimuth: Self.number(s["az"]).map { UInt16(max(0, min(359, $0))) },
                                          snr: Self.number(s["ss"]).map { UInt8(max(0, min(99, $0))) }, used: isUsed))
            }
        }
        f.satellites = list
        f.satellitesUsed = Self.number(o["uSat"]).map(Int.init) ?? used
        f.hdop = Self.number(o["hdop"]) ?? f.hdop
        fix = f
    }

    private mutating func att(_ o: GPSDJSONValue, at now: MonotonicInstant) {
        guard let magnetic = Self.number(o["mheading"]) ?? Self.number(o["heading"]) else { return }
        let poor: Bool
        if case .string(let st)? = o["mag_st"] { poor = st == "C" } else { poor = false }
        let g = 9.80665
        heading = HeadingUpdate(magneticHeading: magnetic, trueHeading: Self.number(o["heading"]), headingAccuracy: -1,
                                x: Self.number(o["mag_x"]) ?? 0, y: Self.number(o["mag_y"]) ?? 0, z: Self.number(o["mag_z"]) ?? 0,
                                accelerationX: (Self.number(o["acc_x"]) ?? 0) / g, accelerationY: (Self.number(o["acc_y"]) ?? 0) / g,
                                accelerationZ: (Self.number(o["acc_z"]) ?? 0) / g, pitch: Self.number(o["pitch"]),
                                roll: Self.number(o["roll"]), inclination: Self.number(o["dip"]),
                                quality: poor ? .degraded : .good, flags: poor ? ["poor-calibration"] : [], takenAt: now)
        headingAt = now
    }

    /// The readout now.
    public func snapshot(at now: MonotonicInstant, uptime: Double) -> StatusSnapshot {
        var warnings = errors
        if reports == 0 { warnings.append("no reports from \(source) yet") }
        if let at = fixAt, (now - at).secondsDouble > 5 { warnings.append("no TPV from \(source) for \(Int((now - at).secondsDouble)) s") }
        var snapshot = StatusSnapshot(board: "daemon at \(source)", boardTitle: device ?? "no device yet",
                                      receiver: release.map { "served by release \($0)" } ?? "server", fix: fix,
                                      fixAge: fixAt.map { (now - $0).secondsDouble }, heading: heading,
                                      headingAge: headingAt.map { (now - $0).secondsDouble }, calibration: nil, decision: nil,
                                      energy: EnergyLedger(), uptime: uptime, counters: LocationEngine.Counters(), warnings: warnings)
        snapshot.remote = true
        snapshot.receivers = receiverStatus(at: now)
        if serialOffset != nil || pulseOffset != nil {
            snapshot.time = StatusTime(source: "\(device ?? "the device") as \(source) serves it (TOFF and PPS reports)",
                                       serialOffset: serialOffset, pulseOffset: pulseOffset)
        }
        snapshot.pps = ppsAt.map { (now - $0).secondsDouble < 2.5 ? PPSStatus.locked : .missing(seconds: Int((now - $0).secondsDouble), level: nil) } ?? .none
        return snapshot
    }
}
