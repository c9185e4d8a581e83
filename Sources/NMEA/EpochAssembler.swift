/// Merges the sentences of one navigation epoch into one ``Fix``.
///
/// Epoch boundaries are found by a change of time of day, as gpsd does: sentences carrying a time
/// (RMC, GGA, GLL, GNS, ZDA, GST, GBS) start a new epoch when their time differs from the current
/// one; untimed sentences (GSA, GSV, VTG, PGRMZ, ...) join the epoch in progress, as in gpsd, which
/// clears its fix at each change of time.
///
/// The *cycle ender* is the last sentence of an epoch that brought fix data: a timed sentence, or an
/// untimed one (VTG with speed or course, PGRMZ) directly after a timed one (Garmin sends PGRMZ after
/// the cycle's last GLL). Once the same ender has closed two epochs in a row, each fix is emitted right
/// after its ender instead of at the next change of time, so latency is one sentence. An ender that
/// is ever followed by another timed sentence of the same epoch (10 Hz GGA with RMC once a second) is
/// never trusted again, and those epochs are emitted at the change of time. One fix per epoch;
/// nothing here allocates.
///
/// Fix mode follows gpsd's rules: GGA gives 2D with a position, 3D with an altitude and four or more
/// satellites, no fix for a GP/GN GGA with fewer than three or a GGA repeating the previous GGA's
/// time; RMC and GLL give 3D when an altitude is known (this epoch's, or the previous one's when they
/// start the epoch) or the last GSA used more than three satellites; a 2D report does not downgrade a
/// 3D fix while an altitude has been seen since the last "no fix".
///
/// Where the sentences of one epoch disagree, the fix reports what gpsd would: the last position
/// (GGA, RMC, GLL, GNS), PGRMZ's altitude over GGA's when it comes later, the last believed speed and
/// course (a VTG without its true course or knots, or with mode N or E, is not believed), and no DOP
/// or variation from gpsd's "invalid" markers. `Sources/NMEA/QUIRKS.md` (section 3) lists these rules
/// with their source; `docs/CONFORMANCE.md` the few places we differ from gpsd on purpose.
public struct EpochAssembler: Sendable {
    public var options: AssemblerOptions
    /// Counters of accepted and rejected sentences and fixes emitted.
    public internal(set) var counters = SentenceCounters()

    var fix = Fix()
    /// A fix as `Fix()` makes it, copied over the epoch's fix at each change of time: one copy
    /// instead of building the 64 entries of its satellite table anew.
    private let emptyFix = Fix()
    private var epochTime: TimeOfDay?
    private var epochHasData = false
    private var epochEmitted = false
    var date: CalendarDate?
    private var dateFromThisEpoch = false
    /// The fix mode as of the previous sentence (across epoch boundaries), for gpsd's rule that a
    /// 2D report does not downgrade a 3D fix while an altitude is held.
    private var stateMode: FixMode = .unknown
    /// Whether a fix since the last "no fix" had an altitude (gpsd keeps 3D across RMC/GLL then).
    private var previousHadAltitude = false
    /// Whether the previous epoch's fix had an altitude.
    private var lastEpochHadAltitude = false
    /// The previous emitted fix's position and time, for deriving speed.
    private var previousPosition: TimedPosition?
    /// The time field of the last GGA, to spot a receiver repeating a stale GGA (no fix).
    private var lastGGATime: TimeOfDay?
    private var lastGGATalker: Talker?
    /// The learned cycle ender and how many times in a row it ended an epoch since it was learned.
    var ender: SentenceAddress?
    var enderConfirmations = 0
    /// The same, learned only from epochs that had a position (QUIRKS.md E-12): what ends a receiver's
    /// epochs while it has no fix need not end them once it has one.
    var fixEnder: SentenceAddress?
    var fixEnderConfirmations = 0
    /// The ender at which the current epoch was emitted.
    private var emittedAt: SentenceAddress?
    /// The current epoch's last sentence that brought fix data.
    var lastContributor: SentenceAddress?
    var previousWasContributor = false
    /// Sentences seen to be followed by more timed sentences of the same epoch (a small ring).
    var distrusted = InlineArray<4, SentenceAddress?>(repeating: nil)
    var distrustedNext = 0
    /// The satellites-in-view table, kept across epochs (GSV is often sent less often than fixes).
    var sky = SatelliteList()
    /// The used set the sky's used flags were last marked from (one bit per system + 1 and PRN), and
    /// whether that set named PRNs of 256 or more; satellites added since were marked from it too.
    var markedBits = InlineArray<32, UInt64>(repeating: 0)
    var markedLarge = false
    /// Satellites used, from the current GSA series: (system + 1) << 16 | PRN, system 0 when the
    /// series named none.
    var used = InlineArray<48, UInt32>(repeating: 0)
    var usedCount = 0
    /// The same series as a set of bits, one per (system + 1) << 8 | PRN for PRNs below 256, kept
    /// as entries are added; whether it named larger PRNs.
    var usedBits = InlineArray<32, UInt64>(repeating: 0)
    var usedLarge = false
    private var lastWasGSA = false
    private var gsaSeriesTime: TimeOfDay?

    public init(options: AssemblerOptions = AssemblerOptions()) {
        self.options = options
        fix.provenance = options.provenance
    }

    /// Counts a sentence or frame the caller rejected (so all counters live in one place).
    public mutating func noteRejected(_ reason: RejectionReason) { counters.reject(reason) }

    /// Adds one parsed sentence; calls `emit` with the fix of each epoch this sentence completes
    /// (at most one: the previous epoch when this sentence starts a new one, or the current epoch
    /// when this sentence is its learned cycle ender).
    public mutating func add(_ parsed: ParsedSentence, emit: (Fix) -> Void) {
        add(parsed, time: parsed.epochTime) { emit($0.pointee) }
    }

    /// ``add(_:emit:)`` with the sentence's ``Sentence/epochTime`` already known (the stream reads it
    /// once for the merger and the assembler), handing out the fix in place: `emit` gets a pointer to
    /// the assembler's own fix, valid during the call, instead of a copy of its two kilobytes.
    @inline(__always)
    mutating func add(_ parsed: ParsedSentence, time: TimeOfDay?, emit: (UnsafePointer<Fix>) -> Void) {
        counters.accept(parsed.sentenceType)
        if !parsed.unreadableFields.isEmpty { counters.noteUnreadable(parsed.sentenceType, parsed.unreadableFields) }
        if let time {
            if let epochTime, time != epochTime {
                if epochHasData && !epochEmitted { emitEpoch(emit) }
                learnEnder()
                startEpoch(time)
            } else if epochTime == nil {
                epochTime = time
            }
        }
        if epochEmitted, time != nil, let ender = emittedAt {
            // A timed sentence of the same epoch after the learned ender: that sentence does not
            // end every epoch (a receiver adding RMC/ZDA once a second to 10 Hz GGA). Never trust
            // it again; such epochs are emitted at the change of time.
            distrust(ender)
            if self.ender == ender { self.ender = nil; enderConfirmations = 0 }
            if fixEnder == ender { fixEnder = nil; fixEnderConfirmations = 0 }
            emittedAt = nil
        }
        // The epoch's last sentence that brought fix data: a timed sentence, or an untimed one
        // (VTG, PGRMZ) directly after a timed one. It is learned even after the
        // epoch was emitted, so a late sentence becomes the ender from the next epochs on.
        if time != nil {
            lastContributor = parsed.address
            previousWasContributor = true
        } else if previousWasContributor, Self.bringsFixData(parsed.sentence) {
            lastContributor = parsed.address
            previousWasContributor = false
        } else {
            previousWasContributor = false
        }
        // After the epoch was emitted, later data still updates the sky view and used satellites;
        // what it adds to `fix` is dropped at the next change of time, as gpsd clears its fix then.
        let alreadyEmitted = epochEmitted
        merge(parsed, time: time)
        if alreadyEmitted { return }
        // An epoch with a position ends at the ender learned from epochs with a position; before one
        // is learned, at the ender learned from any epoch unless the epoch may still lack its date or
        // its mode (QUIRKS.md E-12).
        let byFixEnder = fix.latitude != nil && fixEnder != nil && fixEnderConfirmations >= 1
        let confirmations = byFixEnder ? fixEnderConfirmations : enderConfirmations
        if confirmations >= 1, let ender = byFixEnder ? fixEnder : ender, ender == parsed.address,
           lastContributor == parsed.address, !isDistrusted(ender), epochHasData, byFixEnder || !awaitsRestOfEpoch {
            // The learned cycle ender arrived: the epoch is complete now.
            emitEpoch(emit)
            epochEmitted = true
            emittedAt = ender
        }
    }

    /// Ends the stream: returns the fix of the last epoch if it was not emitted yet.
    public mutating func finish() -> Fix? {
        guard epochHasData, !epochEmitted else { return nil }
        epochEmitted = true
        let latitude = fix.latitude, longitude = fix.longitude
        finishEpoch()
        let out = fix
        fix.latitude = latitude
        fix.longitude = longitude
        return out
    }

    private mutating func startEpoch(_ time: TimeOfDay) {
        if let previous = epochTime {
            // Midnight passed without a new date yet: the date moves on by one day.
            if let date, !dateFromThisEpoch, time.nanosecondsSinceMidnight + 43_200_000_000_000 < previous.nanosecondsSinceMidnight {
                self.date = date.adding(days: 1)
            }
        }
        epochTime = time
        epochHasData = false
        epochEmitted = false
        emittedAt = nil
        dateFromThisEpoch = false
        fix = emptyFix
        fix.provenance = options.provenance
        fix.timeOfDay = time
    }

    /// Completes the epoch's fix and hands it to `emit` in place (no copy of its two kilobytes).
    /// Afterwards `fix` holds the position its sentences gave again (the fix handed out has none
    /// below 2D): what the rest of the epoch and ``learnEnder()`` read of `fix` is then as if the fix
    /// had been completed in a copy.
    @inline(__always)
    private mutating func emitEpoch(_ emit: (UnsafePointer<Fix>) -> Void) {
        let latitude = fix.latitude, longitude = fix.longitude
        finishEpoch()
        withUnsafePointer(to: &fix, emit)
        fix.latitude = latitude
        fix.longitude = longitude
    }

    /// Completes the epoch's fix in place (time, derived speed, the sky with used flags, accuracy).
    /// Called once per epoch; of what later sentences of the epoch read of `fix` (mode, altitude,
    /// quality, whether GST set the accuracy, the position) only the position is changed here, and
    /// the callers put it back.
    private mutating func finishEpoch() {
        fix.timeOfDay = epochTime
        if let date, let time = epochTime {
            var corrected = date
            var rolled = false
            if let pivot = options.weekRolloverPivot {
                var guardCount = 0
                while corrected < pivot, guardCount < 8 {
                    corrected = corrected.adding(days: 7168)
                    rolled = true
                    guardCount += 1
                }
            }
            // A date the receiver cannot mean (a ZDA year past 2262) gives no time rather than a trap.
            if let instant = UTCTime(representing: corrected, time: time) {
                fix.time = instant
                fix.weekRolloverCorrected = rolled
            }
        }
        if fix.mode < .twoD {
            fix.latitude = nil
            fix.longitude = nil
        }
        // No sentence gave a speed: derive it from the previous fix, as gpsd does.
        let here = fix.mode >= .twoD ? TimedPosition(fix) : nil
        if fix.speed == nil, let here, let distance = options.distance,
           let speed = previousPosition?.speed(to: here, distance: distance) {
            fix.speed = speed
            fix.speedIsDerived = true
        }
        previousPosition = here
        lastEpochHadAltitude = fix.altitudeMSL != nil && fix.mode >= .twoD
        if fix.altitudeMSL != nil { previousHadAltitude = true } else if fix.mode < .twoD { previousHadAltitude = false }
        // Satellites: the sky table with used flags from the latest GSA series.
        markUsedSatellites()
        if fix.satellitesUsed == nil, usedCount > 0 { fix.satellitesUsed = usedCount }
        Self.computeAccuracy(&fix)
        counters.fixes += 1
    }

    private static func computeAccuracy(_ out: inout Fix) {
        guard out.mode >= .twoD else { return }
        if out.accuracySource == .gst || out.accuracySource == .gbs { return }
        let uere = Fix.userEquivalentRangeError(for: out.quality)
        if let hdop = out.hdop {
            out.horizontalAccuracy = hdop * uere
            out.accuracySource = .dop
        }
        if let vdop = out.vdop, out.mode == .threeD {
            out.verticalAccuracy = vdop * uere
        }
    }

    /// Applies a mode a sentence asserts. As gpsd does, a 2D assertion (RMC, GLL, GSA) does not
    /// downgrade a 3D fix while an altitude is held; "no fix" always applies.
    private mutating func propose(_ mode: FixMode) {
        if mode == .twoD, stateMode == .threeD, previousHadAltitude || fix.altitudeMSL != nil {
            fix.mode = .threeD
        } else {
            fix.mode = mode
        }
    }

    /// Whether an altitude is known for a 2D-only sentence (RMC, GLL) to report 3D: this epoch's, or
    /// the previous epoch's when the sentence is the first of its epoch.
    @inline(__always)
    private func altitudeKnown(epochHadData: Bool) -> Bool {
        epochHadData ? fix.altitudeMSL != nil : fix.altitudeMSL != nil || lastEpochHadAltitude
    }

    /// Takes GGA's or GNS's altitude (MSL, and ellipsoid height when the geoid separation is given);
    /// returns whether there was one.
    private mutating func setAltitude(_ altitude: FixedDecimal?, separation: FixedDecimal?) -> Bool {
        guard let altitude else { return false }
        fix.altitudeMSL = altitude.doubleValue
        fix.altitudeHAE = separation.map { altitude.doubleValue + $0.doubleValue }
        return true
    }

    private mutating func setPosition(_ latitude: Coordinate?, _ longitude: Coordinate?) {
        guard let latitude, let longitude else { return }
        fix.rawLatitude = latitude
        fix.rawLongitude = longitude
        fix.latitude = latitude.degrees
        fix.longitude = longitude.degrees
    }

    @inline(__always)
    private mutating func merge(_ parsed: ParsedSentence, time: TimeOfDay?) {
        mergeFields(parsed, time: time)
        if fix.mode != .unknown { stateMode = fix.mode }
    }

    private mutating func mergeFields(_ parsed: ParsedSentence, time: TimeOfDay?) {
        let hadData = epochHasData
        if parsed.sentenceType != .gsa { lastWasGSA = false }
        switch parsed.sentence {
        case .rmc(let s):
            epochHasData = true
            if let day = s.day, let month = s.month, let yy = s.twoDigitYear,
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
            if let knots = s.speedKnots { fix.speed = knots.doubleValue * 1852.0 / 3600.0 }
            if let course = s.courseTrue { fix.course = course.doubleValue }
            // gpsd: "some GPS set 0.0,E, or 0,w instead of blank".
            if let variation = s.magneticVariation, abs(variation.doubleValue) > 0.09 { fix.magneticVariation = variation.doubleValue }
        case .gga(let s):
            epochHasData = true
            let satellites = s.satellitesUsed ?? 0
            // A receiver that lost lock may repeat its last GGA with the same time: no fix.
            let repeated = s.time != nil && s.time == lastGGATime && parsed.talker == lastGGATalker
            lastGGATime = s.time
            lastGGATalker = parsed.talker
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
                if satellites < 3, parsed.talker == .gps || parsed.talker == .combined { mode = .noFix }
                propose(mode)
            } else {
                propose(.noFix)
            }
            if let used = s.satellitesUsed { fix.satellitesUsed = used }
            if let hdop = Self.dop(s.hdop) { fix.hdop = hdop }
        case .gns(let s):
            epochHasData = true
            // As gpsd (processGNS): a navigational status U (unsafe) or V (not valid) leaves the
            // fix as it was; only the time counts.
            if s.navigationalStatus == .unsafe || s.navigationalStatus == .notValid { break }
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
        case .gll(let s):
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
        case .pgrmz(let s):
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
        case .vtg(let s):
            // As gpsd: a VTG whose mode says not valid or dead reckoning, or that lacks the true
            // course or the speed in knots (u-blox sends `,,T,,M,0.117,N` when still), is not
            // believed; the epoch's RMC speed stands, or the speed is derived. QUIRKS.md E-3.
            guard Self.believed(s) else { break }
            if let knots = s.speedKnots { fix.speed = knots.doubleValue * 1852.0 / 3600.0 }
            if let course = s.courseTrue { fix.course = course.doubleValue }
        case .zda(let s):
            if let date = s.date {
                self.date = date
                dateFromThisEpoch = true
            }
        case .gsa(let s):
            let newSeries = !lastWasGSA || gsaSeriesTime != epochTime
            if newSeries {
                usedCount = 0
                usedBits = InlineArray(repeating: 0)
                usedLarge = false
            }
            lastWasGSA = true
            gsaSeriesTime = epochTime
            let constellation = s.constellation ?? parsed.talker?.constellation
            let code = UInt32(constellation.map { $0.rawValue &+ 1 } ?? 0)
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
            if let pdop = Self.dop(s.pdop) { fix.pdop = pdop }
            if let hdop = Self.dop(s.hdop) { fix.hdop = hdop }
            if let vdop = Self.dop(s.vdop) { fix.vdop = vdop }
        case .gsv(let s):
            let talker = parsed.talker
            if s.messageNumber == 1 {
                // A new series replaces this talker's (and signal's) satellites. A GP series also
                // carries SBAS (PRN 33-64) and QZSS (193-202) satellites: those are its own too.
                sky.removeSeries(of: talker?.constellation, combined: talker == .combined, signalID: s.signalID)
            }
            // The satellites read through a span (a subscript of an inline array copies all of it).
            let views = s.satellites.span
            let count = min(s.satelliteCount, views.count)
            withUnsafePointer(to: &markedBits) { marked in
                for index in 0..<count {
                    let view = views[unchecked: index]
                    let constellation = Constellation.of(satellite: Int(view.prn), talker: talker)
                    sky.append(SatelliteInfo(constellation: constellation, prn: view.prn, elevation: view.elevation,
                                             azimuth: view.azimuth, snr: view.snr,
                                             used: Self.isUsed(view.prn, constellation, in: marked), signalID: s.signalID))
                }
            }
        case .gst(let s):
            epochHasData = epochHasData || time != nil
            if let lat = s.latitudeSigma?.doubleValue, let lon = s.longitudeSigma?.doubleValue {
                fix.horizontalAccuracy = (lat * lat + lon * lon).squareRoot()
                fix.verticalAccuracy = s.altitudeSigma?.doubleValue
                fix.accuracySource = .gst
            }
        case .gbs(let s):
            if fix.accuracySource != .gst, let lat = s.latitudeError?.doubleValue, let lon = s.longitudeError?.doubleValue {
                fix.horizontalAccuracy = (lat * lat + lon * lon).squareRoot()
                fix.verticalAccuracy = s.altitudeError?.doubleValue
                fix.accuracySource = .gbs
            }
        case .hdt, .hdg, .ths, .txt, .dtm, .proprietary, .encapsulated, .other:
            break
        }
    }
}
