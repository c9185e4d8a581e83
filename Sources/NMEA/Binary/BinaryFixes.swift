/// How each decoded binary message writes into the fix of its epoch. Every message writes only the
/// fields it carries, so the messages of one epoch combine in arrival order (a later message's value
/// replaces an earlier one's), as gpsd's `gps_merge_fix()` does.

extension UTCTime {
    /// A UTC instant from calendar fields and a signed nanosecond fraction (UBX `nano` may be negative);
    /// `nil` when the fields name no valid instant (a frame from a receiver without time yet).
    static func binary(year: UInt16, month: UInt8, day: UInt8, hour: UInt8, minute: UInt8, second: UInt8,
                       nanosecond: Int64) -> UTCTime? {
        guard let date = CalendarDate(year: Int(year), month: Int(month), day: Int(day)),
              let time = TimeOfDay(hour: Int(hour), minute: Int(minute), second: Int(second)),
              let base = UTCTime(representing: date, time: time), abs(nanosecond) < 1_000_000_000,
              case let (instant, false) = base.nanosecondsSinceEpoch.addingReportingOverflow(nanosecond) else { return nil }
        return UTCTime(nanosecondsSinceEpoch: instant)
    }

    /// A UTC instant from GPS week, time of week and leap seconds (UBX NAV-SOL, NAV-TIMEGPS).
    static func gps(week: Int, timeOfWeekMilliseconds: UInt32, fractionNanoseconds: Int32, leapSeconds: Int) -> UTCTime? {
        guard (1...9999).contains(week), timeOfWeekMilliseconds < 604_800_000 else { return nil }
        let gpsEpoch: Int64 = 315_964_800  // 1980-01-06T00:00:00Z
        let seconds = gpsEpoch + Int64(week) * 604_800 - Int64(leapSeconds)
        return UTCTime(nanosecondsSinceEpoch: seconds * 1_000_000_000 + Int64(timeOfWeekMilliseconds) * 1_000_000
                                              + Int64(fractionNanoseconds))
    }

    /// The time of day of this instant.
    var timeOfDay: TimeOfDay? {
        let day: Int64 = 86_400_000_000_000
        let inDay = ((nanosecondsSinceEpoch % day) + day) % day
        let seconds = Int(inDay / 1_000_000_000)
        return TimeOfDay(hour: seconds / 3600, minute: seconds / 60 % 60, second: seconds % 60,
                         nanosecond: Int(inDay % 1_000_000_000))
    }
}

extension Fix {
    /// Sets the epoch's time (and time of day) from a binary message.
    mutating func setBinaryTime(_ time: UTCTime, leapSeconds source: LeapSecondSource = .receiver) {
        self.time = time
        timeOfDay = time.timeOfDay
        leapSecondsSource = source
    }

    /// The receiver's estimates, created with `model` on first use.
    mutating func withReceiverAccuracy(_ model: ReceiverAccuracyModel, _ body: (inout ReceiverAccuracy) -> Void) {
        var accuracy = receiverAccuracy ?? ReceiverAccuracy(model: model)
        accuracy.model = model
        body(&accuracy)
        receiverAccuracy = accuracy
        if let horizontal = accuracy.horizontal {
            horizontalAccuracy = horizontal
            verticalAccuracy = accuracy.vertical
            accuracySource = .receiver
        }
    }

    /// Mode and quality from a UBX fix type and `flags` (bit 1 diffSoln, bits 6-7 carrSoln on NAV-PVT).
    mutating func setUBXFix(_ raw: UBXRawFixType, flags: UInt8, carrierSolution: Bool) {
        let type = raw.type ?? .noFix
        mode = type.mode
        guard mode >= .twoD else { quality = .invalid; return }
        if type == .deadReckoningOnly {
            quality = .deadReckoning
        } else if flags & 0x02 != 0 {
            switch carrierSolution ? flags >> 6 : 0 {
            case 1: quality = .rtkFloat
            case 2: quality = .rtkFixed
            default: quality = .differential
            }
        } else {
            quality = .gps
        }
    }

    /// Position and heights (UBX units: 1e-7 degrees, millimetres). The heights in a 2D fix too: the
    /// receiver sends them with their vAcc, and gpsd reports them (ublox-glo.log: 169 2D NAV-PVT epochs
    /// with altHAE/altMSL), as the assembler keeps a GGA altitude in a 2D epoch.
    /// A latitude or longitude out of range (a corrupt frame whose checksum passed) sets nothing, as gpsd
    /// drops it.
    mutating func setUBXPosition(latitude: Int32, longitude: Int32, height: Int32, heightMSL: Int32) {
        guard latitude.magnitude <= 900_000_000, longitude.magnitude <= 1_800_000_000 else { return }
        self.latitude = Double(latitude) * 1e-7
        self.longitude = Double(longitude) * 1e-7
        rawLatitude = nil
        rawLongitude = nil
        altitudeHAE = Double(height) / 1000
        altitudeMSL = Double(heightMSL) / 1000
        geoidSeparation = Double(Int64(height) - Int64(heightMSL)) / 1000
    }

    mutating func apply(_ m: UBXNavPVT) {
        binaryProtocol = .ubx
        setUBXFix(m.fixType, flags: m.flags, carrierSolution: true)
        timeValidity = m.validity.union(timeValidity?.intersection(.leapSecondsKnown) ?? [])
        if m.validity.isSuperset(of: [.validDate, .validTime]),
           let time = UTCTime.binary(year: m.year, month: m.month, day: m.day, hour: m.hour, minute: m.minute,
                                     second: m.second, nanosecond: Int64(m.nano)) {
            setBinaryTime(time)
        }
        satellitesUsed = Int(m.numSV)
        pdop = Double(m.pDOP) * 0.01
        guard mode >= .twoD, !m.invalidLLH else { return }
        setUBXPosition(latitude: m.latitude, longitude: m.longitude, height: m.height, heightMSL: m.heightMSL)
        speed = Double(m.gSpeed) / 1000
        speedIsDerived = false
        course = Double(m.headMot) * 1e-5
        velocityNorth = Double(m.velN) / 1000
        velocityEast = Double(m.velE) / 1000
        velocityDown = Double(m.velD) / 1000
        withReceiverAccuracy(.ubxAccuracyEstimate) {
            $0.horizontal = Double(m.hAcc) / 1000
            $0.vertical = Double(m.vAcc) / 1000
            $0.speed = Double(m.sAcc) / 1000
            $0.course = Double(m.headAcc) * 1e-5
            $0.time = Double(m.tAcc) * 1e-9
        }
    }

    mutating func apply(_ m: UBXHNRPVT) {
        binaryProtocol = .ubx
        setUBXFix(m.fixType, flags: m.flags, carrierSolution: false)
        if m.validity.isSuperset(of: [.validDate, .validTime]),
           let time = UTCTime.binary(year: m.year, month: m.month, day: m.day, hour: m.hour, minute: m.minute,
                                     second: m.second, nanosecond: Int64(m.nano)) {
            setBinaryTime(time)
        }
        guard mode >= .twoD else { return }
        setUBXPosition(latitude: m.latitude, longitude: m.longitude, height: m.height, heightMSL: m.heightMSL)
        speed = Double(m.gSpeed) / 1000
        speedIsDerived = false
        course = Double(m.headMot) * 1e-5
        withReceiverAccuracy(.ubxAccuracyEstimate) {
            $0.horizontal = Double(m.hAcc) / 1000
            $0.vertical = Double(m.vAcc) / 1000
            $0.speed = Double(m.sAcc) / 1000
            $0.course = Double(m.headAcc) * 1e-5
        }
    }

    /// NAV-SOL's solution; its GPS time becomes UTC with `leapSeconds` from `source` (a table's
    /// count does not replace a time the receiver gave the epoch in UTC).
    mutating func apply(_ m: UBXNavSOL, leapSeconds: Int?, source: LeapSecondSource = .receiver) {
        binaryProtocol = .ubx
        setUBXFix(m.fixType, flags: m.flags, carrierSolution: false)
        satellitesUsed = Int(m.numSV)
        pdop = Double(m.pDOP) * 0.01
        if m.flags & 0x0C == 0x0C, let leapSeconds, source == .receiver || leapSecondsSource != .receiver,
           let time = UTCTime.gps(week: Int(m.week), timeOfWeekMilliseconds: m.iTOW, fractionNanoseconds: m.fTOW,
                                  leapSeconds: leapSeconds) {
            setBinaryTime(time, leapSeconds: source)
        }
        withReceiverAccuracy(.ubxAccuracyEstimate) {
            $0.position3D = Double(m.pAcc) / 100
            $0.speed = Double(m.sAcc) / 100
        }
    }

    /// Mode and quality from NAV-STATUS: no fix unless `gpsFixOk` (flags bit 0); the carrier solution is
    /// in `flags2` bits 6-7 (u-blox 8 protocol 20 and later).
    mutating func apply(_ m: UBXNavStatus) {
        guard m.flags & 0x01 != 0 else {
            mode = .noFix
            quality = .invalid
            return
        }
        setUBXFix(m.fixType, flags: (m.flags & 0x03) | (m.carrierSolution << 6), carrierSolution: true)
    }

    mutating func apply(_ m: UBXNavPOSLLH) {
        binaryProtocol = .ubx
        guard mode >= .twoD || mode == .unknown else { return }
        setUBXPosition(latitude: m.latitude, longitude: m.longitude, height: m.height, heightMSL: m.heightMSL)
        withReceiverAccuracy(.ubxAccuracyEstimate) {
            $0.horizontal = Double(m.hAcc) / 1000
            $0.vertical = Double(m.vAcc) / 1000
        }
    }

    mutating func apply(_ m: UBXNavVELNED) {
        binaryProtocol = .ubx
        guard mode >= .twoD || mode == .unknown else { return }
        speed = Double(m.gSpeed) / 100
        speedIsDerived = false
        course = Double(m.heading) * 1e-5
        velocityNorth = Double(m.velN) / 100
        velocityEast = Double(m.velE) / 100
        velocityDown = Double(m.velD) / 100
        withReceiverAccuracy(.ubxAccuracyEstimate) {
            $0.speed = Double(m.sAcc) / 100
            $0.course = Double(m.cAcc) * 1e-5
        }
    }

    mutating func apply(_ m: UBXNavDOP) {
        pdop = Double(m.pDOP) * 0.01
        hdop = Double(m.hDOP) * 0.01
        vdop = Double(m.vDOP) * 0.01
    }

    mutating func apply(_ m: CASICNavPV) {
        binaryProtocol = .casic
        let dimensions: Int
        switch m.positionValidity {
        case .twoD?: dimensions = 2
        case .threeD?, .gnssDeadReckoning?: dimensions = 3
        default: dimensions = 0
        }
        mode = dimensions == 0 ? .noFix : (dimensions == 2 ? .twoD : .threeD)
        quality = dimensions == 0 ? .invalid : .gps
        satellitesUsed = Int(m.numSV)
        if m.pDOP.isFinite, m.pDOP > 0 { pdop = Double(m.pDOP) }
        if dimensions > 0, m.latitude.isFinite, m.longitude.isFinite, abs(m.latitude) <= 90, abs(m.longitude) <= 180 {
            latitude = m.latitude
            longitude = m.longitude
            rawLatitude = nil
            rawLongitude = nil
            let separation = Double(m.geoidSeparation)
            if separation.isFinite { geoidSeparation = separation }
            withReceiverAccuracy(.casicVariance) { $0.horizontal = CASICNavPV.sigma(m.hAccVariance) }
            if dimensions == 3, m.height.isFinite {
                altitudeHAE = Double(m.height)
                if separation.isFinite { altitudeMSL = Double(m.height) - separation }
                withReceiverAccuracy(.casicVariance) { $0.vertical = CASICNavPV.sigma(m.vAccVariance) }
            }
        }
        let velocity: Int
        switch m.velocityValidity {
        case .twoD?: velocity = 2
        case .threeD?, .gnssDeadReckoning?: velocity = 3
        default: velocity = 0
        }
        guard velocity > 0, m.speed2D.isFinite, m.heading.isFinite else { return }
        speed = Double(m.speed2D)
        speedIsDerived = false
        course = Double(m.heading)
        velocityNorth = Double(m.velN)
        velocityEast = Double(m.velE)
        if velocity == 3 { velocityDown = -Double(m.velU) }
        withReceiverAccuracy(.casicVariance) {
            $0.speed = CASICNavPV.sigma(m.sAccVariance)
            $0.course = m.cAccVariance < 1.0e6 ? CASICNavPV.sigma(m.cAccVariance) : nil
        }
    }

    mutating func apply(_ m: CASICNavTimeUTC) {
        binaryProtocol = .casic
        guard m.isUsable, let time = UTCTime.binary(year: m.year, month: m.month, day: m.day, hour: m.hour,
                                                    minute: m.minute, second: m.second,
                                                    nanosecond: Int64(m.millisecond) * 1_000_000) else { return }
        setBinaryTime(time)
        timeValidity = [.validDate, .validTime, .fullyResolved, .leapSecondsKnown]
    }

    mutating func apply(_ m: CASICNavDOP) {
        if m.pDOP.isFinite { pdop = Double(m.pDOP) }
        if m.hDOP.isFinite { hdop = Double(m.hDOP) }
        if m.vDOP.isFinite { vdop = Double(m.vDOP) }
    }
}
