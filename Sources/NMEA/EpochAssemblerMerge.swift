/// The merge of each sentence type into the epoch's fix (gpsd's rules, QUIRKS.md section 3). Each
/// takes its sentence's fields where the parser left them: ``EpochAssembler`` switches over the
/// sentence type where the parsed sentence lies and calls one of these.
extension EpochAssembler {
    mutating func mergeRMC(_ s: RMC, hadData: Bool) {
        epochHasData = true
        // The date of an RMC without a time (`$GPRMC,,A,...,230394`: a clock not set yet, or a stale
        // date) is taken only while no date is known: it never replaces a ZDA's or a timed RMC's.
        if s.time != nil || date == nil, let day = s.day, let month = s.month, let yy = s.twoDigitYear,
           let date = CalendarDate(year: (yy < 80 ? 2000 : 1900) + Int(yy), month: Int(month), day: Int(day)) {
            self.date = date
            dateFromThisEpoch = true
        }
        if s.isValid == true, s.latitude != nil, s.longitude != nil {
            setPosition(s.latitude, s.longitude)
            // RMC says nothing of altitude. As gpsd: 3D when the last GSA used more than three
            // satellites or an altitude is known (this epoch's, or the previous epoch's when RMC
            // starts the epoch), else 2D, or 3D kept while one is held.
            if usedCount > 3 || altitudeKnown(epochHadData: hadData) {
                propose(.threeD)
            } else {
                propose(stateMode == .threeD ? .threeD : .twoD)
            }
            if let mode = s.mode, let quality = FixQuality(mode), fix.quality == .invalid || quality != .gps {
                fix.quality = quality
            } else if fix.quality == .invalid {
                fix.quality = .gps
            }
        } else if s.isValid != true {
            propose(.noFix)
        }
        setMotion(knots: s.speedKnots, course: s.courseTrue)
        rmcKnots = s.speedKnots
        rmcCourse = s.courseTrue
        // gpsd: "some GPS set 0.0,E, or 0,w instead of blank".
        if let variation = s.magneticVariation, abs(variation.doubleValue) > 0.09 { fix.magneticVariation = variation.doubleValue }
    }

    mutating func mergeGGA(_ s: GGA, talker: Talker?) {
        epochHasData = true
        let satellites = s.satellitesUsed ?? 0
        // A receiver that lost lock may repeat its last GGA with the same time: no fix. Only a GGA
        // that had a fix is so repeated: a second sent twice, first without a fix and then with
        // one, keeps the fix (QUIRKS.md section 4, M-3).
        let repeated = s.time != nil && s.time == lastGGATime && talker == lastGGATalker && lastGGAHadFix
        lastGGATime = s.time
        lastGGATalker = talker
        lastGGAHadFix = !repeated && s.quality != .invalid && s.latitude != nil && s.longitude != nil
        if repeated {
            propose(.noFix)
        } else if s.quality == .invalid {
            propose(.noFix)
        } else if s.latitude != nil, s.longitude != nil {
            setPosition(s.latitude, s.longitude)
            if let quality = s.quality { fix.quality = FixQuality(quality) }
            if let separation = s.geoidSeparation { fix.geoidSeparation = separation.doubleValue }
            var mode = FixMode.twoD
            if setAltitude(s.altitudeMSL, separation: s.geoidSeparation), satellites >= 4 { mode = .threeD }
            // GPS-only or combined GGA with fewer than 3 satellites cannot be a fix.
            if satellites < 3, talker == .gps || talker == .combined { mode = .noFix }
            propose(mode)
        } else {
            propose(.noFix)
        }
        if let used = s.satellitesUsed { fix.satellitesUsed = used }
        if let hdop = Self.dop(s.hdop, &memos.hdop) { fix.hdop = hdop }
    }

    mutating func mergeGNS(_ s: GNS) {
        epochHasData = true
        // As gpsd (processGNS): a navigational status U (unsafe) or V (not valid) leaves the
        // fix as it was; only the time counts.
        if s.navigationalStatus == .unsafe || s.navigationalStatus == .notValid { return }
        if s.isValid, s.latitude != nil, s.longitude != nil {
            setPosition(s.latitude, s.longitude)
            if let mode = s.bestMode, let quality = FixQuality(mode) { fix.quality = quality }
            if let separation = s.geoidSeparation { fix.geoidSeparation = separation.doubleValue }
            var mode = FixMode.twoD
            if setAltitude(s.altitudeMSL, separation: s.geoidSeparation), (s.satellitesUsed ?? 0) > 3 { mode = .threeD }
            propose(mode)
        } else {
            propose(.noFix)
        }
        if let used = s.satellitesUsed { fix.satellitesUsed = used }
        if let hdop = s.hdop { fix.hdop = hdop.doubleValue }
    }

    mutating func mergeGLL(_ s: GLL, hadData: Bool) {
        epochHasData = true
        if s.isValid == true, s.mode != .notValid, s.latitude != nil, s.longitude != nil {
            setPosition(s.latitude, s.longitude)
            if altitudeKnown(epochHadData: hadData) || usedCount > 3 {
                propose(.threeD)
            } else if fix.mode < .twoD || !previousHadAltitude {
                propose(.twoD)
            }
            if fix.quality == .invalid { fix.quality = .gps }
        } else {
            propose(.noFix)
        }
    }

    mutating func mergePGRMZ(_ s: PGRMZ) {
        // Garmin's own altitude overrides GGA's when it comes later in the cycle. As gpsd
        // (processPGRMZ): only an altitude in feet, read as whole feet, and field 3 sets the mode.
        if let feet = s.altitude, s.unit == 0x66 || s.unit == 0x46, fix.mode >= .twoD || stateMode >= .twoD {
            fix.altitudeMSL = Double(feet.integerPart) * 0.3048
        }
        switch s.dimension {
        case 1?: propose(.noFix)
        case 2?: propose(.twoD)
        case 3?: propose(.threeD)
        default: break
        }
    }

    mutating func mergeVTG(_ s: VTG) {
        // As gpsd: a VTG whose mode says not valid or dead reckoning, or that lacks the true
        // course or the speed in knots (u-blox sends `,,T,,M,0.117,N` when still), is not
        // believed; the epoch's RMC speed stands, or the speed is derived. QUIRKS.md E-3.
        guard Self.believed(s) else { return }
        // A VTG that repeats the epoch's RMC speed and course with fewer digits (Trimble: RMC
        // 104.669 and 0.014 kn, VTG 104.67 and 0.01 kn) says nothing new: the RMC's digits stand.
        if let knots = s.speedKnots, let course = s.courseTrue, let rmcKnots, let rmcCourse,
           Self.isShortened(knots, of: rmcKnots), Self.isShortened(course, of: rmcCourse) { return }
        setMotion(knots: s.speedKnots, course: s.courseTrue)
    }

    mutating func mergeZDA(_ s: ZDA) {
        if let date = s.date {
            self.date = date
            dateFromThisEpoch = true
        }
    }

    mutating func mergeGSA(_ s: GSA, talker: Talker?) {
        let newSeries = !lastWasGSA || gsaSeriesTime != epochTime
        if newSeries {
            usedCount = 0
            usedBits = InlineArray(repeating: 0)
            usedLarge = false
        }
        lastWasGSA = true
        gsaSeriesTime = epochTime
        let constellation = s.constellation ?? talker?.constellation
        let code = UInt32(Self.systemCode(constellation))
        // Through spans and a local count: a subscript of an inline array copies all of it.
        let named = s.satellites
        let satellites = named.span
        let first = usedCount
        let count = min(first + min(s.satelliteCount, satellites.count), 48)
        var list = used.mutableSpan
        for index in first..<count { list[unchecked: index] = code << 16 | UInt32(satellites[unchecked: index &- first]) }
        var large = false
        var bits = usedBits.mutableSpan
        for index in 0..<(count &- first) {
            let prn = UInt32(satellites[unchecked: index])
            if prn < 256 {
                let bit = Int(truncatingIfNeeded: (code & 7) << 8 | prn)
                bits[unchecked: bit >> 6] |= 1 << UInt64(bit & 63)
            } else {
                large = true
            }
        }
        if large { usedLarge = true }
        usedCount = count
        if let fixType = s.fixType {
            switch fixType {
            case .none: propose(.noFix)
            case .twoD: propose(.twoD)
            case .threeD: propose(.threeD)
            }
        }
        // gpsd: BT-451 sends 99.99 for invalid DOPs, Jackson Labs 99.00, Skytraq 0.00.
        if let pdop = Self.dop(s.pdop, &memos.pdop) { fix.pdop = pdop }
        if let hdop = Self.dop(s.hdop, &memos.hdop) { fix.hdop = hdop }
        if let vdop = Self.dop(s.vdop, &memos.vdop) { fix.vdop = vdop }
    }

    mutating func mergeGSV(_ s: GSV, talker: Talker?) {
        if s.messageNumber == 1 {
            // A new series replaces this talker's (and signal's) satellites. A GP series also
            // carries SBAS (PRN 33-64) and QZSS (193-202) satellites: those are its own too.
            removeSkySeries(of: talker?.constellation, combined: talker == .combined, signalID: s.signalID)
        }
        let signal = EpochAssembler.signalKey(s.signalID)
        let signalID = s.signalID
        // The talker's system once for the series (what `Constellation.of(satellite:talker:)` reads
        // first); the satellites read through a span (a subscript of an inline array copies all of it).
        let system = talker?.constellation
        let views = s.satellites.span
        let count = min(s.satelliteCount, views.count)
        let free = SatelliteList.capacity &- min(sky.count, SatelliteList.capacity)
        let added = min(count, free)
        let first = sky.count
        // The used set as it was last marked (a copy read through a span), and each added
        // satellite's system code for its key.
        let marked = markedBits
        let lookup = marked.span
        var codes = InlineArray<4, UInt16>(repeating: 0)
        do {
            var table = sky.storage.mutableSpan
            for index in 0..<added {
                let view = views[unchecked: index]
                let prn = view.prn
                let constellation: Constellation?
                if let system {
                    constellation = system == .gps && ((33...64).contains(prn) || (120...158).contains(prn)) ? .sbas : system
                } else {
                    constellation = Constellation.of(satellite: Int(prn), talker: nil)
                }
                table[unchecked: first &+ index] = SatelliteInfo(
                    constellation: constellation, prn: prn, elevation: view.elevation, azimuth: view.azimuth, snr: view.snr,
                    used: Self.isUsed(prn, constellation, in: lookup), signalID: signalID)
                codes[index] = EpochAssembler.systemCode(constellation)
            }
        }
        do {
            var keys = skyKeys.mutableSpan
            for index in 0..<added { keys[unchecked: first &+ index] = codes[index] << 9 | signal }
        }
        // Those that did not fit are counted, as `append` counts them.
        sky.appended(added, dropped: count &- added)
    }

    mutating func mergeGST(_ s: GST, time: TimeOfDay?) {
        epochHasData = epochHasData || time != nil
        if let rms = s.rangeRMS?.doubleValue, rms.isFinite, rms >= 0 { fix.rangeResidualRMS = rms }
        if let major = s.semiMajorSigma?.doubleValue, let minor = s.semiMinorSigma?.doubleValue,
           let orientation = s.orientation?.doubleValue {
            fix.errorEllipse = ErrorEllipse(semiMajor: major, semiMinor: minor, orientation: orientation)
        }
        if let lat = s.latitudeSigma?.doubleValue, let lon = s.longitudeSigma?.doubleValue {
            fix.horizontalAccuracy = (lat * lat + lon * lon).squareRoot()
            fix.verticalAccuracy = s.altitudeSigma?.doubleValue
            fix.accuracySource = .gst
        }
    }

    mutating func mergeGBS(_ s: GBS) {
        if fix.accuracySource != .gst, let lat = s.latitudeError?.doubleValue, let lon = s.longitudeError?.doubleValue {
            fix.horizontalAccuracy = (lat * lat + lon * lon).squareRoot()
            fix.verticalAccuracy = s.altitudeError?.doubleValue
            fix.accuracySource = .gbs
        }
    }
}
