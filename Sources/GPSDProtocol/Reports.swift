// gpsd's JSON reports (the server side of the protocol), encoded as gpsd 3.22 prints them: the same
// member names, order and decimals as `gpsd/gpsd_json.c` and the recorded session, unknown values
// left out, never `null`, NaN, infinity or an exponent.
#if canImport(NMEA)
import NMEA
#endif

/// The report encoders. Each returns one JSON object **without** a line terminator; the server must
/// append ``lineTerminator`` (CR LF: python3-gps only decodes lines ending in `}\r\n`).
public enum GPSDReport {
    /// What ends every report line on the wire.
    public static let lineTerminator = "\r\n"

    /// gpsd's cap on one report line (`GPS_JSON_RESPONSE_MAX`); a SKY with 64 satellites stays far
    /// below it, a POLL over many devices might not.
    public static let maxReportLength = 10240

    /// `{"class":"VERSION","release":...,"rev":...,"proto_major":3,"proto_minor":14}`.
    public static func version(_ version: GPSDVersion) -> String {
        var out = GPSDObjectWriter(class: "VERSION")
        out.add("release", version.release)
        out.add("rev", version.rev)
        out.add("proto_major", version.protoMajor)
        out.add("proto_minor", version.protoMinor)
        out.add("remote", version.remote)
        return out.json
    }

    /// `{"class":"DEVICES","devices":[DEVICE...]}`.
    public static func devices(_ devices: [GPSDDevice], remote: String? = nil) -> String {
        var out = GPSDObjectWriter(class: "DEVICES")
        out.add("devices", array: devices.map(device))
        out.add("remote", remote)
        return out.json
    }

    /// One DEVICE object: path, driver, subtypes, activation time, flags, serial settings, cycle.
    public static func device(_ device: GPSDDevice) -> String {
        var out = GPSDObjectWriter(class: "DEVICE")
        out.add("path", device.path)
        out.add("driver", device.driver)
        out.add("subtype", device.subtype)
        out.add("subtype1", device.subtype1)
        out.add("activated", device.activated.flatMap(iso8601))
        out.add("flags", device.flags)
        out.add("native", device.native)
        out.add("bps", device.bps)
        out.add("parity", device.parity?.rawValue)
        out.add("stopbits", device.stopbits)
        out.add("cycle", device.cycle, digits: 2)
        out.add("mincycle", device.mincycle, digits: 2)
        return out.json
    }

    /// The WATCH report echoing a client's complete policy (gpsd's member order; `device` only when set).
    public static func watch(_ policy: GPSDWatchPolicy) -> String {
        var out = GPSDObjectWriter(class: "WATCH")
        out.add("enable", policy.enable)
        out.add("json", policy.json)
        out.add("nmea", policy.nmea)
        out.add("raw", policy.raw)
        out.add("scaled", policy.scaled)
        out.add("timing", policy.timing)
        out.add("split24", policy.split24)
        out.add("pps", policy.pps)
        out.add("device", policy.device)
        return out.json
    }

    /// A TPV report from a fix.
    ///
    /// `status` (only when 2 or more), `mode`, `time` (ms) and, with a 2D or 3D fix, `lat`/`lon`
    /// (9 decimals), `altHAE`/`altMSL`/`alt` (4; `alt` is MSL, or HAE when MSL is unknown), `track` and
    /// `magtrack` (4), `magvar` (1), `speed` (3), and in 3D `geoidSep` (3). Error estimates are gpsd's
    /// 95 % figures converted from the fix's 1-sigma values by ``GPSDAccuracy``: `eph`, `epv`, `sep`.
    /// Values the fix does not carry come from `extras`.
    ///
    /// `magtrack` is `track - magvar` (declination east-positive), the true magnetic course; gpsd 3.22
    /// prints `track + magvar`, so comparisons against gpsd must skip `magtrack`. `magvar` has gpsd's sign
    /// (east positive). `jam` is the receiver's CW jamming indicator (0-255, UBX MON-RF/MON-HW), as
    /// gpsd names it.
    public static func tpv(_ fix: Fix, device: String? = nil, extras: GPSDTPVExtras = GPSDTPVExtras()) -> String {
        var out = GPSDObjectWriter(class: "TPV")
        writeTPV(fix, device: device, extras: extras, into: &out)
        return out.json
    }

    static func writeTPV(_ fix: Fix, device: String?, extras: GPSDTPVExtras, into out: inout GPSDObjectWriter) {
        out.add("device", device)
        let status = gpsdStatus(fix.quality)
        out.add("status", status >= 2 ? status : nil)
        out.add("mode", fix.mode.rawValue)
        if let time = fix.time.flatMap(iso8601) {
            out.add("time", time)
            out.add("leapseconds", extras.leapSeconds ?? fix.leapSeconds)
            // gpsd prints three decimals; a measured sub-millisecond error keeps nanoseconds.
            out.add("ept", extras.timeError, digits: (extras.timeError ?? 1) < 0.001 ? 9 : 3)
        }
        guard fix.mode >= .twoD else { return }
        let threeD = fix.mode == .threeD
        out.add("lat", fix.latitude, digits: 9)
        out.add("lon", fix.longitude, digits: 9)
        out.add("altHAE", fix.altitudeHAE, digits: 4)
        out.add("altMSL", fix.altitudeMSL, digits: 4)
        out.add("alt", finite(fix.altitudeMSL) ?? fix.altitudeHAE, digits: 4)
        out.add("epx", extras.longitudeError, digits: 3)
        out.add("epy", extras.latitudeError, digits: 3)
        out.add("epv", GPSDAccuracy.epv(fix), digits: 3)
        out.add("track", fix.course, digits: 4)
        out.add("magtrack", magneticTrack(fix), digits: 4)
        out.add("magvar", fix.magneticVariation, digits: 1)
        out.add("speed", fix.speed, digits: 3)
        out.add("climb", threeD ? extras.climb : nil, digits: 3)
        out.add("eps", extras.speedError ?? fix.receiverAccuracy?.speed, digits: 2)
        out.add("epd", fix.receiverAccuracy?.course, digits: 4)
        out.add("epc", threeD ? extras.climbError : nil, digits: 2)
        out.add("geoidSep", threeD ? fix.geoidSeparation : nil, digits: 3)
        out.add("ecefpAcc", fix.receiverAccuracy?.position3D, digits: 4)
        out.add("velN", fix.velocityNorth, digits: 3)
        out.add("velE", fix.velocityEast, digits: 3)
        out.add("velD", fix.velocityDown, digits: 3)
        out.add("eph", GPSDAccuracy.eph(fix), digits: 3)
        out.add("sep", GPSDAccuracy.sep(fix), digits: 3)
        out.add("dgpsAge", status >= 2 ? extras.dgpsAge : nil, digits: 1)
        out.add("dgpsSta", status >= 2 ? extras.dgpsStation : nil)
        out.add("jam", fix.receiverStatus?.jammingIndicator)
    }

    /// A SKY report from a fix's satellite view and DOPs (`vdop`, `hdop`, `pdop`, 2 decimals; the fix
    /// has no x/y/t/g DOP). `nSat` counts the satellites listed, `uSat` those used. Each satellite has
    /// `PRN` and `used`, plus `el`, `az`, `ss` (1 decimal) when known and `gnssid`/`svid` when the
    /// constellation is known (see ``gpsdIdentity(_:)``). Satellites numbered 0 are skipped, as gpsd does.
    /// An untracked satellite has no `ss` (gpsd 3.22 printed `0.0`).
    public static func sky(_ fix: Fix, device: String? = nil) -> String {
        var out = GPSDObjectWriter(class: "SKY")
        writeSKY(fix, device: device, into: &out)
        return out.json
    }

    static func satellite(_ satellite: SatelliteInfo) -> String {
        var out = GPSDObjectWriter()
        writeSatellite(satellite, into: &out)
        return out.json
    }

    /// gpsd's numbering of a satellite: `PRN` in gpsd's NMEA-style ranges (GPS 1-32, SBAS as the
    /// receiver numbered it, GLONASS 65-96, QZSS 193-202, Galileo 301-336, BeiDou 401-463, NavIC 501-514)
    /// and u-blox `gnssid`/`svid` (0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 5 QZSS, 6 GLONASS, 7 NavIC), as
    /// `nmeaid_to_prn()` in gpsd's NMEA driver. Unknown constellations or numbers keep the receiver's
    /// number and have no `gnssid`/`svid`.
    public static func gpsdIdentity(_ satellite: SatelliteInfo) -> (prn: Int, gnssid: Int?, svid: Int?) {
        let n = Int(satellite.prn)
        // A UBX or CASIC sky names its satellites itself (its PRN is already gpsd's `ubx2_to_prn()`).
        if let gnssid = satellite.gnssID, let svid = satellite.svID { return (n, Int(gnssid), Int(svid)) }
        // The system's own number from the ranges receivers use, then gpsd's PRN base for it.
        // The first of up to three (range, offset) pairs holding n (no array: this runs per satellite and epoch).
        func mapped(_ gnssid: Int, base: Int, _ a: (ClosedRange<Int>, Int), _ b: (ClosedRange<Int>, Int)? = nil,
                    _ c: (ClosedRange<Int>, Int)? = nil) -> (Int, Int?, Int?)? {
            let offset: Int
            if a.0.contains(n) {
                offset = a.1
            } else if let b, b.0.contains(n) {
                offset = b.1
            } else if let c, c.0.contains(n) {
                offset = c.1
            } else {
                return nil
            }
            let svid = n - offset
            return (base + svid, gnssid, svid)
        }
        let result: (Int, Int?, Int?)?
        switch satellite.constellation {
        case .gps?: result = mapped(0, base: 0, (1...32, 0))
        case .sbas?: result = (33...64).contains(n) ? (n, 1, n + 87) : (120...158).contains(n) ? (n, 1, n) : nil
        case .glonass?: result = mapped(6, base: 64, (1...32, 0), (65...96, 64))
        case .galileo?: result = mapped(2, base: 300, (1...36, 0), (101...136, 100), (301...336, 300))
        case .beidou?: result = mapped(3, base: 400, (1...63, 0), (201...263, 200), (401...463, 400))
        case .qzss?: result = mapped(5, base: 192, (1...10, 0), (193...202, 192))
        case .navic?: result = mapped(7, base: 500, (1...14, 0))
        case nil: result = nil
        }
        return result ?? (n, nil, nil)
    }

    /// An ATT report from compass/IMU values (gpsd 3.22's member order and decimals: `heading`,
    /// `mheading`, `dip`, magnetic, acceleration and gyroscope values and `temp` with 3,
    /// `pitch`/`roll` with 2).
    /// `mag_st`, `pitch_st`, `roll_st` are only printed with their value.
    public static func att(_ attitude: AttitudeInput) -> String {
        var out = GPSDObjectWriter(class: "ATT")
        out.add("device", attitude.device)
        out.add("time", attitude.time.flatMap(iso8601))
        out.add("heading", attitude.heading, digits: 3)
        out.add("mag_st", finite(attitude.heading) == nil ? nil : attitude.magnetometerStatus?.rawValue)
        out.add("mheading", attitude.magneticHeading, digits: 3)
        out.add("pitch", attitude.pitch, digits: 2)
        out.add("pitch_st", finite(attitude.pitch) == nil ? nil : attitude.pitchStatus?.rawValue)
        out.add("roll", attitude.roll, digits: 2)
        out.add("roll_st", finite(attitude.roll) == nil ? nil : attitude.rollStatus?.rawValue)
        out.add("dip", attitude.dip, digits: 3)
        out.add("mag_len", attitude.magneticLength, digits: 3)
        out.add("mag_x", attitude.magneticX, digits: 3)
        out.add("mag_y", attitude.magneticY, digits: 3)
        out.add("mag_z", attitude.magneticZ, digits: 3)
        out.add("acc_len", attitude.accelerationLength, digits: 3)
        out.add("acc_x", attitude.accelerationX, digits: 3)
        out.add("acc_y", attitude.accelerationY, digits: 3)
        out.add("acc_z", attitude.accelerationZ, digits: 3)
        out.add("gyro_x", attitude.gyroX, digits: 3)
        out.add("gyro_y", attitude.gyroY, digits: 3)
        out.add("gyro_z", attitude.gyroZ, digits: 3)
        out.add("temp", attitude.temperature, digits: 3)
        return out.json
    }

    /// The TOFF report (time offset of the cycle start): device, `real_sec`/`real_nsec`,
    /// `clock_sec`/`clock_nsec`, then `precision` and `shm` when known. No `qErr`.
    public static func toff(_ offset: GPSDClockOffset) -> String { clock("TOFF", offset, qErr: nil) }

    /// The PPS report (one pulse edge): as TOFF, plus `qErr` (picoseconds) when known.
    public static func pps(_ offset: GPSDClockOffset) -> String { clock("PPS", offset, qErr: offset.quantizationError) }

    static func clock(_ name: String, _ offset: GPSDClockOffset, qErr: Int?) -> String {
        var out = GPSDObjectWriter(class: name)
        out.add("device", offset.device)
        out.add("real_sec", offset.realSeconds)
        out.add("real_nsec", offset.realNanoseconds)
        out.add("clock_sec", offset.clockSeconds)
        out.add("clock_nsec", offset.clockNanoseconds)
        out.add("precision", offset.precision)
        out.add("shm", offset.shm)
        out.add("qErr", qErr)
        return out.json
    }

    /// The POLL report: `time` (now), `active` (the devices listed), and one TPV and one SKY per
    /// device; `gst` is always an empty array (gpsd 3.22 includes the member; we have no GST data).
    public static func poll(time: UTCTime, devices: [GPSDPollEntry]) -> String {
        var out = GPSDObjectWriter(class: "POLL")
        out.add("time", iso8601(time))
        out.add("active", devices.count)
        out.add("tpv", array: devices.map { tpv($0.fix, device: $0.device, extras: $0.extras) })
        out.add("gst", array: [])
        out.add("sky", array: devices.map { sky($0.fix, device: $0.device) })
        return out.json
    }

    /// `{"class":"ERROR","message":"..."}` with the message JSON-escaped.
    public static func error(message: String) -> String {
        var out = GPSDObjectWriter(class: "ERROR")
        out.add("message", message)
        return out.json
    }

    /// The ERROR report for a request that failed to parse.
    public static func error(_ error: GPSDRequestError) -> String { self.error(message: error.message) }

    /// gpsd's fix status for a quality (`STATUS_*` in gps.h): 0 unknown, 1 GPS, 2 DGPS, 3 RTK fixed,
    /// 4 RTK float, 5 dead reckoning, 7 surveyed/manual, 8 simulated, 9 PPS (P(Y)) fix.
    public static func gpsdStatus(_ quality: FixQuality) -> Int {
        switch quality {
        case .invalid: return 0
        case .gps: return 1
        case .differential: return 2
        case .rtkFixed: return 3
        case .rtkFloat: return 4
        case .deadReckoning: return 5
        case .manual: return 7
        case .simulated: return 8
        case .pps: return 9
        }
    }

    /// ISO 8601 with milliseconds; `nil` for times at or before 1970-01-01, which gpsd never prints
    /// (it tests `tv_sec > 0`).
    static func iso8601(_ time: UTCTime) -> String? {
        time.nanosecondsSinceEpoch > 0 ? time.iso8601(fractionDigits: 3) : nil
    }

    static func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }

    static func magneticTrack(_ fix: Fix) -> Double? {
        guard let track = finite(fix.course), let variation = finite(fix.magneticVariation) else { return nil }
        let magnetic = (track - variation).truncatingRemainder(dividingBy: 360)
        return magnetic < 0 ? magnetic + 360 : magnetic
    }
}

/// gpsd's error members are 95 % figures; ``Fix`` carries 1-sigma values. These convert, assuming
/// normally distributed errors with equal sigma on each horizontal axis (and, for `sep`, on all three).
public enum GPSDAccuracy {
    /// 95 % radius per 2D RMS radius, sqrt(-ln 0.05). ``Fix/horizontalAccuracy`` is the 2D RMS error
    /// (sqrt(sigma_lat^2 + sigma_lon^2), from GST, GBS or HDOP x UERE), which a circle of that radius
    /// contains 63 % of the time; labelled ``Fix/accuracyConfidence`` (68 %).
    public static let horizontal95PerDRMS = 1.7308183826022854
    /// Two-sided 95 % per 1 sigma (1.96). ``Fix/verticalAccuracy`` is 1 sigma.
    public static let vertical95PerSigma = 1.9599639845400536
    /// 95 % sphere radius per 3D RMS error, sqrt(chi2_3(0.95) / 3).
    public static let spherical95PerRMS = 1.613973141376189

    /// TPV `eph`: 95 % horizontal radius, metres. The receiver's own estimate (UBX hAcc, CASIC
    /// sqrt of its variance) is shipped unscaled, as gpsd's `driver_ubx.c` and `driver_casic.c` do.
    public static func eph(_ fix: Fix) -> Double? {
        if let own = GPSDReport.finite(fix.receiverAccuracy?.horizontal) { return own }
        return GPSDReport.finite(fix.horizontalAccuracy).map { $0 * horizontal95PerDRMS }
    }

    /// TPV `epv`: 95 % vertical error, metres (the receiver's own estimate unscaled, as gpsd).
    public static func epv(_ fix: Fix) -> Double? {
        if let own = GPSDReport.finite(fix.receiverAccuracy?.vertical) { return own }
        return GPSDReport.finite(fix.verticalAccuracy).map { $0 * vertical95PerSigma }
    }

    /// TPV `sep`: 95 % spherical error, metres; needs both accuracies. From the receiver's own
    /// estimates it is their hypotenuse, as gpsd's CASIC driver computes it.
    public static func sep(_ fix: Fix) -> Double? {
        if let h = GPSDReport.finite(fix.receiverAccuracy?.horizontal), let v = GPSDReport.finite(fix.receiverAccuracy?.vertical) {
            return (h * h + v * v).squareRoot()
        }
        guard let h = GPSDReport.finite(fix.horizontalAccuracy), let v = GPSDReport.finite(fix.verticalAccuracy) else { return nil }
        return (h * h + v * v).squareRoot() * spherical95PerRMS
    }
}

/// What the VERSION report says.
public struct GPSDVersion: Sendable, Equatable {
    /// Our product name and version (gpsd puts its own version here; clients only display it).
    public var release: String
    /// Revision string (defaults to ``release``).
    public var rev: String
    /// 3 and 14 by default: the protocol of gpsd 3.22 (Debian 12), which the field units' clients were
    /// built against. Upstream 3.23-3.27 sends 3.15; newer cgps warns on a mismatch, Debian 12's does not.
    public var protoMajor: Int
    /// See ``protoMajor``.
    public var protoMinor: Int
    /// Set when relaying another daemon.
    public var remote: String?

    /// A VERSION with gpsd 3.22's protocol numbers unless told otherwise.
    public init(release: String, rev: String? = nil, protoMajor: Int = 3, protoMinor: Int = 14, remote: String? = nil) {
        self.release = release
        self.rev = rev ?? release
        self.protoMajor = protoMajor
        self.protoMinor = protoMinor
        self.remote = remote
    }
}

/// One device as DEVICE/DEVICES report it. Serial settings belong to serial devices only.
public struct GPSDDevice: Sendable, Equatable {
    /// The device path, e.g. `/dev/ttyAMA0`.
    public var path: String
    /// Driver name, e.g. `NMEA0183`, `u-blox`.
    public var driver: String?
    /// Receiver model/firmware details, when known.
    public var subtype: String?
    /// More receiver details, when known.
    public var subtype1: String?
    /// When the device was opened; `nil` while inactive.
    public var activated: UTCTime?
    /// 0x01 GPS data seen, 0x02 RTCM2, 0x04 RTCM3, 0x08 AIS.
    public var flags: Int?
    /// 0 NMEA, 1 binary.
    public var native: Int?
    /// Serial speed, bits per second.
    public var bps: Int?
    /// Serial parity.
    public var parity: GPSDParity?
    /// Serial stop bits, 1 or 2.
    public var stopbits: Int?
    /// Seconds per measurement cycle (2 decimals).
    public var cycle: Double?
    /// Shortest settable cycle, only for receivers whose rate can be changed.
    public var mincycle: Double?

    /// A device with the given members (the others omitted).
    public init(path: String, driver: String? = nil, subtype: String? = nil, subtype1: String? = nil,
                activated: UTCTime? = nil, flags: Int? = nil, native: Int? = nil, bps: Int? = nil,
                parity: GPSDParity? = nil, stopbits: Int? = nil, cycle: Double? = nil, mincycle: Double? = nil) {
        self.path = path
        self.driver = driver
        self.subtype = subtype
        self.subtype1 = subtype1
        self.activated = activated
        self.flags = flags
        self.native = native
        self.bps = bps
        self.parity = parity
        self.stopbits = stopbits
        self.cycle = cycle
        self.mincycle = mincycle
    }
}

/// TPV values a ``Fix`` does not carry. All optional; error values are already 95 % figures.
public struct GPSDTPVExtras: Sendable, Equatable {
    /// `ept`: time error, seconds: the measured one when there is one, else gpsd's 0.005 for receivers
    /// that state none (NMEA).
    public var timeError: Double?
    /// `leapseconds`: GPS-UTC, only when the receiver reported it.
    public var leapSeconds: Int?
    /// `climb`: vertical speed, m/s, up positive (3D fixes only).
    public var climb: Double?
    /// `eps`: speed error, m/s.
    public var speedError: Double?
    /// `epc`: climb error, m/s (3D fixes only).
    public var climbError: Double?
    /// `epx`: longitude error, metres.
    public var longitudeError: Double?
    /// `epy`: latitude error, metres.
    public var latitudeError: Double?
    /// `dgpsAge`: seconds since the differential corrections last reached the receiver (with `status` 2-4).
    public var dgpsAge: Double?
    /// `dgpsSta`: the reference station ID of the corrections (with `status` 2-4).
    public var dgpsStation: Int?

    /// Extras with the given values (the others omitted).
    public init(timeError: Double? = nil, leapSeconds: Int? = nil, climb: Double? = nil, speedError: Double? = nil,
                climbError: Double? = nil, longitudeError: Double? = nil, latitudeError: Double? = nil) {
        self.timeError = timeError
        self.leapSeconds = leapSeconds
        self.climb = climb
        self.speedError = speedError
        self.climbError = climbError
        self.longitudeError = longitudeError
        self.latitudeError = latitudeError
    }
}

/// One watched device in a POLL report: its last fix.
public struct GPSDPollEntry: Sendable {
    /// The device path (gpsd always names one).
    public var device: String?
    /// The device's last fix.
    public var fix: Fix
    /// TPV values the fix does not carry.
    public var extras: GPSDTPVExtras

    /// An entry for one device.
    public init(device: String?, fix: Fix, extras: GPSDTPVExtras = GPSDTPVExtras()) {
        self.device = device
        self.fix = fix
        self.extras = extras
    }
}

/// The status letter gpsd prints after a compass value (`mag_st`, `pitch_st`, `roll_st`), as True
/// North compasses define them.
public enum GPSDSensorStatus: String, Sendable, Hashable {
    /// `C` calibration alarm, `L` low alarm, `M` low warning, `N` normal.
    case calibrationAlarm = "C", lowAlarm = "L", lowWarning = "M", normal = "N"
    /// `O` high warning, `P` high alarm, `V` supply voltage alarm.
    case highWarning = "O", highAlarm = "P", voltageAlarm = "V"
}

/// A GPS time and the host clock at the same moment, for TOFF and PPS reports.
public struct GPSDClockOffset: Sendable, Equatable {
    /// The device path.
    public var device: String?
    /// `real_sec`, `real_nsec`: the GPS time (cycle start, or pulse edge).
    public var realSeconds: Int64
    /// 0...999_999_999.
    public var realNanoseconds: Int
    /// `clock_sec`, `clock_nsec`: the host clock at that moment.
    public var clockSeconds: Int64
    /// 0...999_999_999.
    public var clockNanoseconds: Int
    /// NTP-style log2 seconds (gpsd: -20 for a serial PPS, -10 over USB).
    public var precision: Int?
    /// The NTP shared-memory segment fed, e.g. `NTP0`.
    public var shm: String?
    /// `qErr`: the receiver's quantisation error of the pulse, picoseconds (PPS only).
    public var quantizationError: Int?

    /// Splits both instants into seconds and nanoseconds (nanoseconds always 0...999_999_999).
    public init(device: String?, real: UTCTime, clock: UTCTime, precision: Int? = nil, shm: String? = nil,
                quantizationError: Int? = nil) {
        func split(_ time: UTCTime) -> (Int64, Int) {
            let (seconds, nanoseconds) = time.nanosecondsSinceEpoch.quotientAndRemainder(dividingBy: 1_000_000_000)
            return nanoseconds < 0 ? (seconds - 1, Int(nanoseconds + 1_000_000_000)) : (seconds, Int(nanoseconds))
        }
        self.device = device
        (realSeconds, realNanoseconds) = split(real)
        (clockSeconds, clockNanoseconds) = split(clock)
        self.precision = precision
        self.shm = shm
        self.quantizationError = quantizationError
    }
}
