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
    /// A fix as `Fix()` makes it, copied over the epoch's fix at each change of time (all but its
    /// satellite table: see ``Fix/reset(from:)``). A variable only so that its address can be taken.
    private var emptyFix = Fix()
    var epochTime: TimeOfDay?
    var epochHasData = false
    var epochEmitted = false
    var date: CalendarDate?
    var dateFromThisEpoch = false
    /// The fix mode as of the previous sentence (across epoch boundaries), for gpsd's rule that a
    /// 2D report does not downgrade a 3D fix while an altitude is held.
    var stateMode: FixMode = .unknown
    /// Whether a fix since the last "no fix" had an altitude (gpsd keeps 3D across RMC/GLL then).
    var previousHadAltitude = false
    /// Whether the previous epoch's fix had an altitude.
    var lastEpochHadAltitude = false
    /// The previous emitted fix's position and time, for deriving speed.
    private var previousPosition: TimedPosition?
    /// The time field of the last GGA, to spot a receiver repeating a stale GGA (no fix).
    var lastGGATime: TimeOfDay?
    var lastGGATalker: Talker?
    /// Whether that GGA had a fix: only a GGA with a fix repeated with its time is a stale repeat.
    var lastGGAHadFix = false
    /// The talker of the sentence being merged (for ``Fix/positionTalker``).
    var currentTalker: Talker?
    /// The epoch was emitted at its ender without a position: the same second repeated with a fix
    /// opens it again (QUIRKS.md section 4, M-3).
    var emittedWithoutFix = false
    /// Untimed sentences held until a timed sentence of the same second follows
    /// (``UntimedAfterCycleEnd/leftOut``).
    var heldVTG: VTG?
    /// The speed and course of the epoch's RMC, as written (a VTG repeating them with fewer digits
    /// does not replace them: QUIRKS.md M-1).
    var rmcKnots: FixedDecimal?
    var rmcCourse: FixedDecimal?
    var heldPGRMZ: PGRMZ?
    /// The learned cycle ender and how many times in a row it ended an epoch since it was learned.
    var ender: SentenceAddress?
    var enderConfirmations = 0
    /// The same, learned only from epochs that had a position (QUIRKS.md E-12): what ends a receiver's
    /// epochs while it has no fix need not end them once it has one.
    var fixEnder: SentenceAddress?
    var fixEnderConfirmations = 0
    /// The ender at which the current epoch was emitted.
    private var emittedAt: SentenceAddress?
    /// The same, kept when a later timed sentence of the epoch distrusts it: that ender sent again
    /// with the epoch's time is the second repeated (QUIRKS.md section 4, M-3).
    private var emittedEnder: SentenceAddress?
    /// The position the epoch was emitted with at its ender (a repeat of the same position, such as
    /// a ZDA sent twice, is not a new copy of the second).
    private var emittedLatitude: Double?
    private var emittedLongitude: Double?
    /// The current epoch's last sentence that brought fix data.
    var lastContributor: SentenceAddress?
    var previousWasContributor = false
    /// Sentences seen to be followed by more timed sentences of the same epoch (a small ring).
    var distrusted = InlineArray<4, SentenceAddress?>(repeating: nil)
    var distrustedNext = 0
    /// The last conversions of values receivers repeat (`EpochAssemblerMemo.swift`).
    var memos = AssemblerMemos()
    /// The satellites-in-view table, kept across epochs (GSV is often sent less often than fixes).
    /// It is the fix's own table: the fix is reset at each change of time without it, and is handed
    /// out with the table as it stands then (its used flags marked first), so no copy is made.
    var sky: SatelliteList {
        @inline(__always) get { fix.satellites }
        @inline(__always) _modify { yield &fix.satellites }
    }
    /// Each satellite's series in the sky table, `system code << 9 | signal key`
    /// (`EpochAssemblerSeries.swift`), for finding a series' satellites with one comparison each.
    var skyKeys = InlineArray<64, UInt16>(repeating: 0)
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
    var lastWasGSA = false
    var gsaSeriesTime: TimeOfDay?

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
        } else if previousWasContributor, options.untimedAfterCycleEnd == .joinEpoch, Self.bringsFixData(parsed) {
            lastContributor = parsed.address
            previousWasContributor = false
        } else {
            previousWasContributor = false
        }
        // After the epoch was emitted, later data still updates the sky view and used satellites;
        // what it adds to `fix` is dropped at the next change of time, as gpsd clears its fix then.
        if time != nil, heldVTG != nil || heldPGRMZ != nil { releaseHeld() }
        let alreadyEmitted = epochEmitted
        merge(parsed, time: time)
        if alreadyEmitted {
            // A second repeated with a better fix (`$GPRMC,183453,V` and a GGA of quality 0, then
            // `$GPRMC,183453,A` and a GGA of quality 2): the epoch emitted without a position opens
            // again once it has one, and is emitted again with it (gpsd's last report of the second
            // is the fixed one). A second repeated whole with a fix again (GGA, RMC, GGA, RMC of one
            // time, other positions) opens it again when its ender comes again with another
            // position: gpsd reports at each cycle ender, so its last report of the second is the
            // later copy's.
            // QUIRKS.md section 4, M-3.
            let enderRepeated = time != nil && emittedEnder == parsed.address
                && (fix.latitude != emittedLatitude || fix.longitude != emittedLongitude)
            guard emittedWithoutFix || enderRepeated, fix.mode >= .twoD, fix.latitude != nil else { return }
            epochEmitted = false
            emittedWithoutFix = false
        }
        // An epoch with a position ends at the ender learned from epochs with a position; before one
        // is learned, at the ender learned from any epoch unless the epoch may still lack its date or
        // its mode (QUIRKS.md E-12).
        let byFixEnder = fix.latitude != nil && fixEnder != nil && fixEnderConfirmations >= 1
        let confirmations = byFixEnder ? fixEnderConfirmations : enderConfirmations
        if confirmations >= 1, let ender = byFixEnder ? fixEnder : ender, ender == parsed.address,
           lastContributor == parsed.address, !isDistrusted(ender), epochHasData, byFixEnder || !awaitsRestOfEpoch {
            // The learned cycle ender arrived: the epoch is complete now.
            emittedWithoutFix = fix.mode < .twoD || fix.latitude == nil
            emitEpoch(emit)
            epochEmitted = true
            emittedAt = ender
            emittedEnder = ender
            emittedLatitude = fix.latitude
            emittedLongitude = fix.longitude
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
        emittedEnder = nil
        emittedWithoutFix = false
        heldVTG = nil
        heldPGRMZ = nil
        rmcKnots = nil
        rmcCourse = nil
        dateFromThisEpoch = false
        // The satellites are left as they are: they are the sky, kept across epochs.
        withUnsafeMutablePointer(to: &emptyFix) { fix.reset(from: $0) }
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
    mutating func propose(_ mode: FixMode) {
        if mode == .twoD, stateMode == .threeD, previousHadAltitude || fix.altitudeMSL != nil {
            fix.mode = .threeD
        } else {
            fix.mode = mode
        }
    }

    /// Whether an altitude is known for a 2D-only sentence (RMC, GLL) to report 3D: this epoch's, or
    /// the previous epoch's when the sentence is the first of its epoch.
    @inline(__always)
    func altitudeKnown(epochHadData: Bool) -> Bool {
        epochHadData ? fix.altitudeMSL != nil : fix.altitudeMSL != nil || lastEpochHadAltitude
    }

    /// Takes GGA's or GNS's altitude (MSL, and ellipsoid height when the geoid separation is given);
    /// returns whether there was one.
    mutating func setAltitude(_ altitude: FixedDecimal?, separation: FixedDecimal?) -> Bool {
        guard let altitude else { return false }
        let metres = altitude.doubleValue
        fix.altitudeMSL = metres
        fix.altitudeHAE = separation.map { metres + $0.doubleValue }
        return true
    }

    /// Takes RMC's or VTG's speed over ground (knots, as m/s) and true course, each when given.
    @inline(__always)
    mutating func setMotion(knots: FixedDecimal?, course: FixedDecimal?) {
        if let knots { fix.speed = memos.speed.value(of: knots) { $0.doubleValue * 1852.0 / 3600.0 } }
        if let course { fix.course = memos.course.value(of: course) { $0.doubleValue } }
    }

    mutating func setPosition(_ latitude: Coordinate?, _ longitude: Coordinate?) {
        guard let latitude, let longitude else { return }
        // Two devices' positions in one second: a receiver's talker and another (GP and GN of one
        // receiver are one device).
        if let previous = fix.positionTalker, previous != currentTalker,
           !(previous.isSatelliteReceiver && currentTalker?.isSatelliteReceiver == true) {
            fix.positionTalkersDiffer = true
        }
        fix.positionTalker = currentTalker
        fix.rawLatitude = latitude
        fix.rawLongitude = longitude
        fix.latitude = memos.latitude.degrees(of: latitude)
        fix.longitude = memos.longitude.degrees(of: longitude)
    }

    @inline(__always)
    private mutating func merge(_ parsed: ParsedSentence, time: TimeOfDay?) {
        mergeFields(parsed, time: time)
        if fix.mode != .unknown { stateMode = fix.mode }
    }

    /// Merges one sentence into the epoch: a switch over its type, inlined where the parsed sentence
    /// lies, handing each merge its sentence's fields where they are (a switch in a function of its
    /// own copied the whole sentence, and then its fields, at every sentence).
    @inline(__always)
    private mutating func mergeFields(_ parsed: ParsedSentence, time: TimeOfDay?) {
        let hadData = epochHasData
        if parsed.sentenceType != .gsa { lastWasGSA = false }
        currentTalker = parsed.talker
        // Each payload read from the parsed sentence's bytes as its own type (no enum copied).
        let payload = parsed.payload
        switch parsed.kind {
        case .rmc: mergeRMC(payload.load(as: RMC.self), hadData: hadData)
        case .gga: mergeGGA(payload.load(as: GGA.self), talker: parsed.talker)
        case .gns: mergeGNS(payload.load(as: GNS.self))
        case .gll: mergeGLL(payload.load(as: GLL.self), hadData: hadData)
        case .pgrmz:
            if options.untimedAfterCycleEnd == .leftOut { heldPGRMZ = payload.load(as: PGRMZ.self) } else { mergePGRMZ(payload.load(as: PGRMZ.self)) }
        case .vtg:
            if options.untimedAfterCycleEnd == .leftOut { heldVTG = payload.load(as: VTG.self) } else { mergeVTG(payload.load(as: VTG.self)) }
        case .zda: mergeZDA(payload.load(as: ZDA.self))
        case .gsa: mergeGSA(payload.load(as: GSA.self), talker: parsed.talker)
        case .gsv: mergeGSV(payload.load(as: GSV.self), talker: parsed.talker)
        case .gst: mergeGST(payload.load(as: GST.self), time: time)
        case .gbs: mergeGBS(payload.load(as: GBS.self))
        case .hdt, .hdg, .ths, .txt, .dtm, .proprietary, .encapsulated, .other, .failed:
            break
        }
    }
}
