import GPSDProtocol
import NMEA
import Testing

/// A UTC instant from calendar fields (test data: the fields are valid).
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int, ms: Int = 0) -> UTCTime {
    let days = CalendarDate(year: year, month: month, day: day)?.daysSinceEpoch ?? 0
    let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    return UTCTime(nanosecondsSinceEpoch: seconds * 1_000_000_000 + Int64(ms) * 1_000_000)
}

/// The fix behind the transcript's TPV at 20:27:00 (Bend, Oregon, MTK3339, DGPS).
func transcriptFix(time: UTCTime? = utc(2034, 11, 27, 20, 27, 0)) -> Fix {
    var fix = Fix()
    fix.time = time
    fix.mode = .threeD
    fix.quality = .differential
    fix.latitude = 44 + 4.1304 / 60
    fix.longitude = -(121 + 18.8515 / 60)
    fix.altitudeMSL = 1127.7
    fix.altitudeHAE = 1108.1
    fix.geoidSeparation = -19.6
    fix.speed = 0.021
    fix.course = 165.6
    fix.magneticVariation = 14.4
    fix.horizontalAccuracy = 4.655 / GPSDAccuracy.horizontal95PerDRMS
    fix.verticalAccuracy = 7.533 / GPSDAccuracy.vertical95PerSigma
    fix.vdop = 1.31
    fix.hdop = 0.98
    fix.pdop = 1.64
    return fix
}

/// gpsd's extra TPV values at that epoch.
let transcriptExtras = GPSDTPVExtras(timeError: 0.005, climb: 0, speedError: 6.25, climbError: 15.07,
                                     longitudeError: 1.93, latitudeError: 3.125)

@Suite("Report encoders")
struct ReportTests {
    @Test func version() throws {
        #expect(GPSDReport.version(GPSDVersion(release: "3.22")) == Transcript.version)
        let ours = try parsed(GPSDReport.version(GPSDVersion(release: "fieldlocd 0.4.0", rev: "abc123")))
        #expect(ours.keys == ["class", "release", "rev", "proto_major", "proto_minor"])
        #expect(ours["proto_major"] == .number(3) && ours["proto_minor"] == .number(14))
    }

    @Test func devicesAndDevice() {
        let bare = GPSDDevice(path: "/dev/pts/N")
        #expect(GPSDReport.devices([bare]) == Transcript.devicesBeforeWatch)
        #expect(GPSDReport.device(bare) == Transcript.deviceBare)
        var active = GPSDDevice(path: "/dev/pts/N", driver: "NMEA0183", activated: utc(2026, 11, 22, 11, 10, 11, ms: 425),
                                flags: 1, native: 0, bps: 4800, parity: GPSDParity.none, stopbits: 1, cycle: 1)
        #expect(GPSDReport.devices([active]) == Transcript.devicesActive)
        active.activated = utc(2026, 11, 22, 11, 10, 10, ms: 674)
        #expect(GPSDReport.device(active) == Transcript.deviceActive)
        #expect(GPSDReport.devices([]) == #"{"class":"DEVICES","devices":[]}"#)
    }

    @Test("TPV against the transcript: same members in the same order, same digits")
    func tpvTranscript() throws {
        let ours = GPSDReport.tpv(transcriptFix(), device: "/dev/pts/N", extras: transcriptExtras)
        let theirs = rawMembers(Transcript.tpv)
        #expect(rawMembers(ours).map(\.key) == theirs.map(\.key))
        for (key, value) in theirs where key != "magtrack" && key != "sep" {
            #expect(raw(ours, key) == value, "member \(key)")
        }
        // By design: magnetic = true - declination (gpsd 3.22 adds), and sep from our 1-sigma values.
        #expect(raw(ours, "magtrack") == "151.2000")
        let fix = transcriptFix()
        let sep = try #require(GPSDAccuracy.sep(fix))
        #expect(raw(ours, "sep") == GPSDNumber.fixed(sep, 3))
        #expect(try parsed(ours)["mode"] == .number(3))
    }

    @Test("TPV without time, course or vertical accuracy matches gpsd's first TPV exactly")
    func tpvNoTime() {
        var fix = transcriptFix(time: nil)
        fix.latitude = 44 + 4.1305 / 60
        fix.course = nil
        fix.speed = nil
        fix.verticalAccuracy = nil
        #expect(GPSDReport.tpv(fix, device: "/dev/pts/N") == Transcript.tpvNoTime)
    }

    @Test("68 % (1-sigma) accuracies become gpsd's 95 % figures")
    func accuracyConversion() {
        var fix = Fix()
        fix.mode = .threeD
        fix.latitude = 1
        fix.longitude = 2
        fix.horizontalAccuracy = 2   // 2D RMS, metres
        fix.verticalAccuracy = 1     // 1 sigma
        let line = GPSDReport.tpv(fix)
        #expect(raw(line, "eph") == "3.462")   // 2 x sqrt(-ln 0.05)
        #expect(raw(line, "epv") == "1.960")   // 1 x 1.96
        #expect(raw(line, "sep") == "3.609")   // sqrt(2^2 + 1^2) x 1.614
        fix.verticalAccuracy = nil
        #expect(raw(GPSDReport.tpv(fix), "sep") == nil)
    }

    @Test("TPV members that depend on the mode, and gpsd's status numbers")
    func tpvModes() throws {
        var fix = transcriptFix()
        fix.mode = .noFix
        fix.quality = .gps
        let noFix = GPSDReport.tpv(fix, extras: transcriptExtras)
        #expect(rawMembers(noFix).map(\.key) == ["class", "mode", "time", "ept"])
        fix.mode = .twoD
        let twoD = rawMembers(GPSDReport.tpv(fix, extras: transcriptExtras)).map(\.key)
        #expect(twoD.contains("lat") && twoD.contains("eps"))
        #expect(!twoD.contains("climb") && !twoD.contains("epc") && !twoD.contains("geoidSep") && !twoD.contains("status"))
        fix.mode = .threeD
        fix.altitudeMSL = nil
        #expect(raw(GPSDReport.tpv(fix), "alt") == "1108.1000")
        let statuses: [(FixQuality, String?)] = [(.invalid, nil), (.gps, nil), (.differential, "2"), (.rtkFixed, "3"),
                                                 (.rtkFloat, "4"), (.deadReckoning, "5"), (.manual, "7"), (.simulated, "8"), (.pps, "9")]
        for (quality, status) in statuses {
            fix.quality = quality
            #expect(raw(GPSDReport.tpv(fix), "status") == status, "quality \(quality)")
        }
    }

    @Test("missing, NaN and infinite values are left out; no exponent ever")
    func tpvNonFinite() throws {
        var fix = transcriptFix(time: UTCTime(nanosecondsSinceEpoch: 0))
        fix.latitude = .nan
        fix.longitude = .infinity
        fix.altitudeHAE = 1e300
        fix.altitudeMSL = -.infinity
        fix.speed = 1e-12
        fix.course = -.nan
        let line = GPSDReport.tpv(fix, extras: GPSDTPVExtras(climb: .nan, speedError: .infinity))
        let keys = rawMembers(line).map(\.key)
        for absent in ["time", "lat", "lon", "altMSL", "track", "magtrack", "climb", "eps"] {
            #expect(!keys.contains(absent), "\(absent) should be omitted")
        }
        #expect(raw(line, "speed") == "0.000")
        let altitude = try #require(raw(line, "altHAE"))
        #expect(altitude.count == 301 + 5 && altitude.hasPrefix("1000") && altitude.hasSuffix(".0000"))
        #expect(raw(line, "alt") == altitude)
        #expect(!line.contains("e+") && !line.contains("nan") && !line.contains("inf") && !line.contains("null"))
        #expect(try parsed(line)["altHAE"] == .number(1e300))
    }

    @Test("round trip: a TPV from a fix parses back to the fix's values")
    func tpvRoundTrip() throws {
        var fix = transcriptFix(time: utc(2025, 6, 1, 12, 34, 56, ms: 789))
        fix.latitude = -33.856784123
        fix.longitude = 151.215297987
        fix.altitudeMSL = -12.34567
        let line = GPSDReport.tpv(fix, device: "/dev/ttyAMA0", extras: transcriptExtras)
        let value = try parsed(line)
        #expect(value["class"] == .string("TPV") && value["device"] == .string("/dev/ttyAMA0"))
        #expect(value["time"] == .string("2025-06-01T12:34:56.789Z"))
        #expect(value["mode"] == .number(3) && value["status"] == .number(2))
        func number(_ key: String) throws -> Double {
            guard case .number(let n)? = value[key] else { throw TestFailure.missing(key) }
            return n
        }
        #expect(abs(try number("lat") - (-33.856784123)) < 1e-9)
        #expect(abs(try number("lon") - 151.215297987) < 1e-9)
        #expect(abs(try number("altMSL") - (-12.34567)) < 1e-4)
        #expect(abs(try number("alt") - (-12.34567)) < 1e-4)
        #expect(abs(try number("altHAE") - 1108.1) < 1e-4)
        #expect(abs(try number("speed") - 0.021) < 1e-3)
        #expect(abs(try number("track") - 165.6) < 1e-4)
        #expect(abs(try number("eph") - 4.655) < 1e-3)
        #expect(abs(try number("ept") - 0.005) < 1e-3)
    }

    @Test("SKY against the transcript: satellites byte for byte, DOPs in gpsd's order")
    func skyTranscript() throws {
        var fix = transcriptFix()
        let view: [(Constellation, UInt16, Int16, UInt16, UInt8, Bool)] = [
            (.gps, 9, 88, 89, 33, true), (.gps, 7, 60, 281, 44, true), (.gps, 23, 54, 124, 37, true),
            (.gps, 10, 44, 274, 31, true), (.gps, 16, 39, 51, 30, true), (.sbas, 46, 37, 146, 0, false),
            (.gps, 30, 30, 262, 28, true), (.gps, 20, 24, 308, 30, true), (.gps, 27, 23, 92, 31, true),
            (.gps, 19, 13, 123, 27, true), (.gps, 3, 7, 176, 20, true), (.gps, 5, 5, 328, 0, false),
        ]
        for (constellation, prn, elevation, azimuth, snr, used) in view {
            fix.satellites.append(SatelliteInfo(constellation: constellation, prn: prn, elevation: elevation,
                                                azimuth: azimuth, snr: snr, used: used))
        }
        let ours = GPSDReport.sky(fix, device: "/dev/pts/N")
        let keys = rawMembers(ours).map(\.key)
        #expect(keys == ["class", "device", "time", "vdop", "hdop", "pdop", "nSat", "uSat", "satellites"])
        #expect(isOrderedSubsequence(keys.filter { $0 != "time" }, of: rawMembers(Transcript.sky).map(\.key)))
        for key in ["vdop", "hdop", "pdop", "nSat", "uSat", "satellites"] {
            #expect(raw(ours, key) == raw(Transcript.sky, key), "member \(key)")
        }
    }

    @Test("SKY: untracked satellites have no ss, PRN 0 is skipped, angles out of range are dropped")
    func skyEdges() throws {
        var fix = Fix()
        fix.satellites.append(SatelliteInfo(constellation: .glonass, prn: 70, elevation: 91, azimuth: 360, snr: nil, used: false))
        fix.satellites.append(SatelliteInfo(constellation: .gps, prn: 0, elevation: 10, used: true))
        fix.satellites.append(SatelliteInfo(constellation: nil, prn: 200, elevation: -5, azimuth: 0, snr: 41, used: true))
        let line = GPSDReport.sky(fix)
        #expect(line == #"{"class":"SKY","nSat":2,"uSat":1,"satellites":[{"PRN":70,"used":false,"gnssid":6,"svid":6},{"PRN":200,"el":-5.0,"az":0.0,"ss":41.0,"used":true}]}"#)
        #expect(GPSDReport.sky(Fix()) == #"{"class":"SKY","nSat":0,"uSat":0}"#)
        var full = Fix()
        for index in 0..<SatelliteList.capacity {
            full.satellites.append(SatelliteInfo(constellation: .beidou, prn: UInt16(index + 1), elevation: -89, azimuth: 359,
                                                 snr: 99, used: true))
        }
        #expect(GPSDReport.sky(full, device: "/dev/serial/by-id/usb-u-blox_GNSS_receiver-if00").utf8.count < GPSDReport.maxReportLength)
    }

    static let identities: [(Constellation?, UInt16, Int, Int?, Int?)] = [
        (.gps, 9, 9, 0, 9), (.sbas, 46, 46, 1, 133), (.sbas, 133, 133, 1, 133),
        (.glonass, 70, 70, 6, 6), (.glonass, 6, 70, 6, 6),
        (.galileo, 5, 305, 2, 5), (.galileo, 305, 305, 2, 5), (.galileo, 105, 305, 2, 5),
        (.beidou, 12, 412, 3, 12), (.beidou, 212, 412, 3, 12), (.beidou, 412, 412, 3, 12),
        (.qzss, 1, 193, 5, 1), (.qzss, 193, 193, 5, 1), (.navic, 3, 503, 7, 3),
        (nil, 77, 77, nil, nil), (.gps, 40, 40, nil, nil),
    ]

    @Test("gpsd's PRN, gnssid and svid for each constellation", arguments: identities)
    func identity(constellation: Constellation?, prn: UInt16, expectedPRN: Int, gnssid: Int?, svid: Int?) {
        let identity = GPSDReport.gpsdIdentity(SatelliteInfo(constellation: constellation, prn: prn))
        #expect(identity.prn == expectedPRN && identity.gnssid == gnssid && identity.svid == svid)
    }

    @Test("ATT: the transcript's compass line exactly; all members in gpsd's order")
    func att() throws {
        let compass = AttitudeInput(device: "/dev/pts/N", heading: 14199, magnetometerStatus: .normal, pitch: 171,
                                    pitchStatus: .normal, roll: -40, rollStatus: .normal, dip: 13614, magneticX: 2452)
        #expect(GPSDReport.att(compass) == Transcript.att)
        let full = AttitudeInput(device: "/dev/i2c-1", time: utc(2026, 1, 2, 3, 4, 5, ms: 600), heading: 12.3456,
                                 magneticHeading: 358.9999, magnetometerStatus: .calibrationAlarm, pitch: -1.234,
                                 roll: 0.005, dip: 67.25, magneticX: 18.1234, magneticY: -4.5, magneticZ: 45.0001,
                                 magneticLength: 48.7, accelerationX: 0.01, accelerationY: -0.02, accelerationZ: 9.80665,
                                 accelerationLength: 9.81, temperature: 21.5)
        let line = GPSDReport.att(full)
        #expect(rawMembers(line).map(\.key) == ["class", "device", "time", "heading", "mag_st", "mheading", "pitch", "roll", "dip",
                                                "mag_len", "mag_x", "mag_y", "mag_z", "acc_len", "acc_x", "acc_y", "acc_z", "temp"])
        #expect(raw(line, "mheading") == "359.000" && raw(line, "pitch") == "-1.23" && raw(line, "roll") == "0.01")
        #expect(raw(line, "mag_st") == #""C""# && raw(line, "acc_z") == "9.807" && raw(line, "time") == #""2026-01-02T03:04:05.600Z""#)
        // A status letter is printed only with its value.
        let headless = AttitudeInput(device: "/dev/x", heading: .nan, magnetometerStatus: .normal, pitchStatus: .normal)
        #expect(GPSDReport.att(headless) == #"{"class":"ATT","device":"/dev/x"}"#)
    }

    @Test("TOFF parses to the same value as the transcript's (gpsd prints a stray space); PPS adds qErr")
    func toffAndPPS() throws {
        let offset = GPSDClockOffset(device: "/dev/pts/N", real: UTCTime(nanosecondsSinceEpoch: 2_048_272_025_000_000_000),
                                     clock: UTCTime(nanosecondsSinceEpoch: 1_795_345_820_940_966_788))
        let toff = GPSDReport.toff(offset)
        #expect(toff == Transcript.toff.replacingOccurrences(", ", ","))
        #expect(try parsed(toff) == parsed(Transcript.toff))
        var pulse = GPSDClockOffset(device: "/dev/pps0", real: UTCTime(nanosecondsSinceEpoch: 1_700_000_000_000_000_000),
                                    clock: UTCTime(nanosecondsSinceEpoch: 1_699_999_999_999_876_543), precision: -20, shm: "NTP0",
                                    quantizationError: -1234)
        #expect(GPSDReport.pps(pulse) == #"{"class":"PPS","device":"/dev/pps0","real_sec":1700000000,"real_nsec":0,"clock_sec":1699999999,"clock_nsec":999876543,"precision":-20,"shm":"NTP0","qErr":-1234}"#)
        #expect(!GPSDReport.toff(pulse).contains("qErr"))
        pulse = GPSDClockOffset(device: nil, real: UTCTime(nanosecondsSinceEpoch: -1), clock: UTCTime(nanosecondsSinceEpoch: -2_000_000_000))
        #expect(GPSDReport.toff(pulse) == #"{"class":"TOFF","real_sec":-1,"real_nsec":999999999,"clock_sec":-2,"clock_nsec":0}"#)
    }

    @Test("POLL before any WATCH, and with one device")
    func poll() throws {
        #expect(GPSDReport.poll(time: utc(2026, 11, 22, 11, 10, 6, ms: 45), devices: []) == Transcript.pollBeforeWatch)
        var fix = transcriptFix()
        let ours = GPSDReport.poll(time: utc(2026, 11, 22, 11, 10, 10, ms: 317),
                                   devices: [GPSDPollEntry(device: "/dev/pts/N", fix: fix, extras: transcriptExtras)])
        #expect(rawMembers(ours).map(\.key) == rawMembers(Transcript.poll).map(\.key))
        let value = try parsed(ours)
        #expect(value["active"] == .number(1) && value["gst"] == .array([]))
        guard case .array(let tpvs)? = value["tpv"], case .array(let skies)? = value["sky"] else {
            Issue.record("tpv/sky are not arrays: \(ours)")
            return
        }
        #expect(tpvs.count == 1 && tpvs.first?["class"] == .string("TPV") && tpvs.first?["lat"] == .number(44.06884))
        #expect(skies.count == 1 && skies.first?["class"] == .string("SKY"))
        // gpsd's SKY in that POLL had DOPs and no satellites; so does ours for a fix without a time.
        fix.time = nil
        let noTime = GPSDReport.poll(time: utc(2026, 11, 22, 11, 10, 10, ms: 317), devices: [GPSDPollEntry(device: "/dev/pts/N", fix: fix)])
        #expect(raw(noTime, "sky") == raw(Transcript.poll, "sky"))
    }

    @Test("ERROR escapes the message")
    func error() throws {
        let line = GPSDReport.error(message: "bad \"x\" \\ \u{01}\u{7F}\tZürich")
        #expect(line == #"{"class":"ERROR","message":"bad \"x\" \\ \u0001\u007f\tZürich"}"#)
        #expect(try parsed(line)["message"] == .string("bad \"x\" \\ \u{01}\u{7F}\tZürich"))
    }
}

enum TestFailure: Error {
    case missing(String)
}

extension String {
    /// `self` with every `target` replaced (no Foundation in these tests).
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
