/// What the host knows that shortens a receiver's start: the time (from a synchronised system
/// clock) and the last position, each with an honest accuracy. Either may be absent: the host
/// gives only what it knows.
public struct ReceiverAiding: Sendable, Hashable {
    /// UTC from the host's clock.
    public struct Time: Sendable, Hashable {
        /// Seconds since 1970-01-01 00:00:00 UTC.
        public var utcSeconds: Double
        /// The clock's error bound, seconds (the kernel's maximum error plus the time the frame takes to arrive).
        public var accuracy: Double
        /// GPS − UTC, seconds (18 since 2017); `nil` when unknown.
        public var leapSeconds: Int?

        /// Creates a time.
        public init(utcSeconds: Double, accuracy: Double, leapSeconds: Int? = 18) {
            self.utcSeconds = utcSeconds
            self.accuracy = accuracy
            self.leapSeconds = leapSeconds
        }
    }

    /// A position the receiver may start from.
    public struct Position: Sendable, Hashable {
        /// Degrees north and east (WGS84).
        public var latitude: Double, longitude: Double
        /// Height above the WGS84 ellipsoid, metres.
        public var height: Double
        /// Radius within which the receiver is, metres (the fix's accuracy grown with its age).
        public var accuracy: Double

        /// Creates a position.
        public init(latitude: Double, longitude: Double, height: Double, accuracy: Double) {
            self.latitude = latitude
            self.longitude = longitude
            self.height = height
            self.accuracy = accuracy
        }
    }

    /// The time, when the host's clock is synchronised.
    public var time: Time?
    /// The position, when one recent enough is known.
    public var position: Position?

    /// Creates an aiding set.
    public init(time: Time? = nil, position: Position? = nil) {
        self.time = time
        self.position = position
    }

    /// Whether there is anything to send.
    public var isEmpty: Bool { time == nil && position == nil }
}

/// A calendar date and time of day in UTC, from seconds since 1970 (proleptic Gregorian).
public struct UTCDateTime: Sendable, Hashable {
    /// The calendar date (month and day from 1) and the time of day.
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    /// Nanoseconds into the second.
    public var nanoseconds: Int

    /// Splits `utcSeconds` (seconds since 1970-01-01 UTC; leap seconds are not counted, as in POSIX time).
    public init(utcSeconds: Double) {
        let whole = utcSeconds.rounded(.down)
        nanoseconds = min(999_999_999, max(0, Int(((utcSeconds - whole) * 1e9).rounded())))
        let total = Int64(whole)
        var days = total / 86_400
        var secondsOfDay = total % 86_400
        if secondsOfDay < 0 { secondsOfDay += 86_400; days -= 1 }
        hour = Int(secondsOfDay / 3600)
        minute = Int(secondsOfDay / 60 % 60)
        second = Int(secondsOfDay % 60)
        // Days to civil date (H. Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = Int(doy - (153 * mp + 2) / 5 + 1)
        month = Int(mp < 10 ? mp + 3 : mp - 9)
        year = Int(yoe + era * 400 + (month <= 2 ? 1 : 0))
    }
}

extension UBXMessage {
    static func i32(_ v: Int32) -> [UInt8] { u32(UInt32(bitPattern: v)) }

    /// UBX-MGA-INI-TIME_UTC (0x13 0x40, type 0x10): UTC with its accuracy (M8, M9, M10). The leap
    /// second count is sent as unknown (-128) unless given; the receiver takes it from the sky.
    public static func initialTime(_ time: ReceiverAiding.Time, leapSecondsKnown: Bool = false) -> UBXMessage {
        let t = UTCDateTime(utcSeconds: time.utcSeconds)
        let accuracy = max(0, min(65_535.999_999_999, time.accuracy))
        let accuracySeconds = accuracy.rounded(.down)
        let leap: UInt8 = leapSecondsKnown ? UInt8(truncatingIfNeeded: time.leapSeconds ?? -128) : 0x80
        var payload: [UInt8] = [0x10, 0x00, 0x00, leap]
        payload += u16(UInt16(clamping: t.year)) + [UInt8(t.month), UInt8(t.day), UInt8(t.hour), UInt8(t.minute), UInt8(t.second), 0x00]
        payload += u32(UInt32(t.nanoseconds))
        payload += u16(UInt16(accuracySeconds)) + [0x00, 0x00]
        payload += u32(UInt32(min(999_999_999, ((accuracy - accuracySeconds) * 1e9).rounded())))
        return UBXMessage(class: 0x13, id: 0x40, payload: payload)
    }

    /// UBX-MGA-INI-POS_LLH (0x13 0x40, type 0x01): latitude and longitude (1e-7 degrees), height
    /// above the ellipsoid (cm) and the position's accuracy (cm, at most about 42,900 km).
    public static func initialPosition(_ position: ReceiverAiding.Position) -> UBXMessage {
        func scaled(_ degrees: Double) -> Int32 { Int32(clamping: Int64((degrees * 1e7).rounded())) }
        let height = Int32(clamping: Int64((position.height * 100).rounded()))
        let accuracy = UInt32(clamping: Int64((max(0, position.accuracy) * 100).rounded()))
        let payload: [UInt8] = [0x01, 0x00, 0x00, 0x00] + i32(scaled(position.latitude)) + i32(scaled(position.longitude))
            + i32(height) + u32(accuracy)
        return UBXMessage(class: 0x13, id: 0x40, payload: payload)
    }

    /// UBX-CFG-NAVX5 version 2 (u-blox M8, protVer 18+) with only the AssistNow Autonomous bit of
    /// mask1 (0x4000) set: `aopCfg.useAOP` on or off, the orbit error limit left at the firmware's default.
    public static func autonomousAssistance(_ on: Bool) -> UBXMessage {
        var payload = [UInt8](repeating: 0, count: 40)
        payload[0] = 0x02
        payload[3] = 0x40
        payload[27] = on ? 0x01 : 0x00
        return UBXMessage(class: 0x06, id: 0x23, payload: payload)
    }
}

extension UBXKey {
    /// CFG-ANA-USE_ANA, L: AssistNow Autonomous (M9, M10).
    public static let useAutonomousAssistance = UBXKey(0x1023_0001)
}

extension PMTK {
    static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    static func dateFields(_ t: UTCDateTime) -> String {
        "\(t.year),\(two(t.month)),\(two(t.day)),\(two(t.hour)),\(two(t.minute)),\(two(t.second))"
    }
    static func decimal(_ value: Double, places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((abs(value) * scale).rounded())
        let whole = scaled / Int64(scale)
        var fraction = String(scaled % Int64(scale))
        while fraction.count < places { fraction = "0" + fraction }
        return (value < 0 && scaled != 0 ? "-" : "") + "\(whole)" + (places > 0 ? "." + fraction : "")
    }

    /// `$PMTK740,YYYY,MM,DD,hh,mm,ss`: UTC time aiding.
    public static func timeAiding(utcSeconds: Double) -> NMEACommand {
        NMEACommand("PMTK740," + dateFields(UTCDateTime(utcSeconds: utcSeconds)))
    }

    /// `$PMTK741,lat,lon,alt,YYYY,MM,DD,hh,mm,ss`: position (degrees to 6 places, whole metres)
    /// and UTC time aiding.
    public static func positionAiding(latitude: Double, longitude: Double, altitude: Double, utcSeconds: Double) -> NMEACommand {
        NMEACommand("PMTK741," + decimal(latitude, places: 6) + "," + decimal(longitude, places: 6) + ","
                    + decimal(altitude, places: 0) + "," + dateFields(UTCDateTime(utcSeconds: utcSeconds)))
    }
}

extension CASICMessage {
    /// Seconds from the GPS epoch (1980-01-06) to 1970's: GPS time = UTC + this + leap seconds.
    static let gpsEpochOffset = 315_964_800.0

    /// CASIC AID-INI (0x0B 0x01, 56 bytes): latitude, longitude, height (degrees and metres, the
    /// LLA-format flag), GPS time of week and week, and their variances (position m², time
    /// stored as (c·σt)², as the CASIC specification's scale column gives it), with the
    /// position and time validity flags. Without a time, `tow` and `wn` are zero; without a
    /// position, the position fields are.
    public static func initialAiding(_ aiding: ReceiverAiding) -> CASICMessage {
        func r8(_ v: Double) -> [UInt8] { let b = v.bitPattern; return (0..<8).map { UInt8(truncatingIfNeeded: b >> (8 * UInt64($0))) } }
        func r4(_ v: Float) -> [UInt8] { let b = v.bitPattern; return (0..<4).map { UInt8(truncatingIfNeeded: b >> (8 * UInt32($0))) } }
        var flags: UInt8 = 0x20
        var payload: [UInt8] = []
        if let p = aiding.position {
            flags |= 0x01
            payload += r8(p.latitude) + r8(p.longitude) + r8(p.height)
        } else {
            payload += r8(0) + r8(0) + r8(0)
        }
        var week = 0, tow = 0.0
        if let t = aiding.time {
            flags |= 0x02
            let gps = t.utcSeconds - gpsEpochOffset + Double(t.leapSeconds ?? 18)
            week = Int((gps / 604_800).rounded(.down))
            tow = gps - Double(week) * 604_800
        }
        payload += r8(tow)
        payload += r4(0)
        let positionVariance = aiding.position.map { Float($0.accuracy * $0.accuracy) } ?? 0
        let timeVariance = aiding.time.map { Float(($0.accuracy * 299_792_458) * ($0.accuracy * 299_792_458)) } ?? 0
        payload += r4(positionVariance) + r4(timeVariance) + r4(0) + [0, 0, 0, 0]
        payload += [UInt8(truncatingIfNeeded: week), UInt8(truncatingIfNeeded: week >> 8), 0x00, flags]
        return CASICMessage(class: 0x0B, id: 0x01, payload: payload)
    }
}

/// A driver that can hand the receiver the host's time and position and switch on the
/// receiver's own orbit predictions (u-blox AssistNow Autonomous; MediaTek EASY is always on).
public protocol ReceiverAidable {
    /// Sends `aiding` (whatever of time and position it holds).
    func aid(_ aiding: ReceiverAiding) throws(ReceiverError)
    /// Switches the receiver's self-generated orbit predictions on; throws unsupported where
    /// the family has none to switch.
    func enablePredictedOrbits() throws(ReceiverError)
}

extension UBloxDriver: ReceiverAidable {
    /// MGA-INI-TIME_UTC then MGA-INI-POS_LLH (M8 and later; u-blox 6/7 have only AID-INI and get nothing).
    public func aid(_ aiding: ReceiverAiding) throws(ReceiverError) {
        guard generation != .ublox6 && generation != .ublox7 else {
            throw .unsupported(family: .ublox, operation: "take MGA-INI aiding (u-blox 6/7 use AID-INI)")
        }
        if let time = aiding.time { try channel.send(UBXMessage.initialTime(time)) }
        if let position = aiding.position { try channel.send(UBXMessage.initialPosition(position)) }
    }

    /// CFG-NAVX5 aopCfg on the M8, CFG-ANA-USE_ANA on the M9/M10.
    public func enablePredictedOrbits() throws(ReceiverError) {
        switch generation {
        case .ublox6, .ublox7: throw .unsupported(family: .ublox, operation: "run AssistNow Autonomous")
        case .m8: try channel.send(UBXMessage.autonomousAssistance(true))
        case .m9, .m10: try channel.send(UBXMessage.setValues([(.useAutonomousAssistance, 1)], layers: layers))
        }
    }
}

extension MediaTekDriver: ReceiverAidable {
    /// `$PMTK741` with a position (it carries the time too), else `$PMTK740`; both acknowledged.
    public func aid(_ aiding: ReceiverAiding) throws(ReceiverError) {
        guard let time = aiding.time else {
            // PMTK741 needs a time with its position: a position alone cannot be sent.
            throw .unsupported(family: .mediatek, operation: "take a position without the time")
        }
        if let p = aiding.position {
            try channel.send(PMTK.positionAiding(latitude: p.latitude, longitude: p.longitude, altitude: p.height, utcSeconds: time.utcSeconds),
                             acknowledgedAs: 741)
        } else {
            try channel.send(PMTK.timeAiding(utcSeconds: time.utcSeconds), acknowledgedAs: 740)
        }
    }

    /// EASY is on by default on the MT3339 and MT3333: nothing to send.
    public func enablePredictedOrbits() throws(ReceiverError) {}
}

extension CASICDriver: ReceiverAidable {
    /// One AID-INI with what is known (not acknowledged).
    public func aid(_ aiding: ReceiverAiding) throws(ReceiverError) {
        try channel.send(CASICMessage.initialAiding(aiding))
    }

    /// The AT6558 has no self-generated orbit prediction to switch on.
    public func enablePredictedOrbits() throws(ReceiverError) {
        throw .unsupported(family: .casic, operation: "predict orbits")
    }
}
