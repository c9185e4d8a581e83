/// Merges the binary navigation messages (UBX, CASIC) and the NMEA fixes of one receiver epoch into
/// one fix, and delivers one fix per epoch.
///
/// ## Which source wins each field
/// 1. **Fields only binary carries** (``Fix/receiverAccuracy``, ``Fix/timeValidity``, ``Fix/leapSeconds``,
///    NED velocity, ``Fix/receiverStatus``, the UBX `gnssId`/`svId`/`sigId` of the sky) always come from
///    the binary messages; no NMEA sentence can replace them. The receiver's own accuracy estimate
///    also wins over an NMEA-derived one (GST, GBS or DOP × UERE) for ``Fix/horizontalAccuracy``.
/// 2. **Fields both carry** (time, position, altitudes, speed, course, mode, DOPs, satellites used,
///    the sky) take the value of the source the receiver sent **last** in the epoch: the receiver's
///    latest statement about the epoch, and what gpsd reports. A source that does not carry a field
///    (an NMEA epoch without GGA has no altitude) leaves the other source's value.
///    Within the binary messages the same holds: NAV-PVT after NAV-SOL replaces its values, an
///    HNR-PVT of the same instant after NAV-PVT replaces those.
///
/// On the receivers FieldLocation configures (`output = both`), NMEA and binary describe the same
/// solution, so rule 2 changes at most the last digit: NMEA rounds what the binary message gives.
/// docs/BINARY-NAVIGATION.md measures the rule against gpsd's output.
///
/// ## Epochs
/// A binary message belongs to the epoch of its time key (UBX `iTOW`, CASIC run time); the key's UTC
/// time is learned from NAV-PVT / NAV-TIMEUTC, so messages without UTC find their NMEA epoch. At most
/// two epochs are open; an epoch is delivered when UBX NAV-EOE ends it (once the NMEA of that epoch,
/// if any, has come out of the assembler), when the message that ended the two previous epochs
/// arrives (the learned ender), when a third epoch starts, or at the end of the stream. A message for
/// the epoch delivered last, and an NMEA fix for any epoch up to a minute older, is dropped (counted),
/// as the assembler drops sentences after its ender. On ADR/UDR units the NAV-PVT of a whole second
/// comes after later HNR-PVT epochs were delivered; it is delivered as its own fix, as gpsd does.
/// A stream that never carries binary messages passes the assembler's fixes through unchanged.
public struct EpochMerger: Sendable {
    /// Counters of the binary path.
    public struct Counters: Sendable, Hashable {
        /// Binary frames decoded into an epoch, and frames of known ids whose payload was too short or
        /// inconsistent for their layout.
        public var decoded = 0
        public var malformed = 0
        /// Frames of ids the merger does not read (configuration replies, raw data, ...).
        public var ignored = 0
        /// Messages or NMEA fixes that arrived for an epoch already delivered, and dropped.
        public var late = 0
        /// Fixes delivered that combine binary and NMEA data.
        public var merged = 0
    }

    struct Slot {
        var fix: Fix
        var timeMilliseconds: Int64?
        var key: UInt32?
        var lastKind: UInt32 = 0
        /// Arrival order of the last binary message that carried a solution (time, position, velocity),
        /// the last that carried the sky, and the last that carried DOPs; and of the NMEA fix.
        var binarySequence = 0
        var skySequence = 0
        var dopSequence = 0
        var nmeaSequence = -1
        var casicSkyStarted = false
        /// NAV-EOE arrived: the binary part is complete (delivery may wait for the NMEA fix).
        var endSeen = false
        /// The epoch's ECEF position and velocity (NAV-SOL, NAV-POSECEF, NAV-VELECEF), used at delivery
        /// when no message gave them geodetically.
        var ecef = ECEFState()
        /// A NAV-PVT of this epoch was applied (its mm/s velocity outranks NAV-VELNED's cm/s).
        var navPVTSeen = false
    }

    public internal(set) var counters = Counters()
    let provenance: Provenance
    /// Converts an ECEF-only solution to latitude, longitude, height and local velocity (see ``ECEFConversion``).
    let ecefConversion: ECEFConversion?
    /// Derives the speed of a binary epoch that states none (``AssemblerOptions/distance``).
    let distance: DistanceFunction?
    /// GPS − UTC for GPS times the receiver gives without its leap seconds (``AssemblerOptions/leapSecondTable``).
    let leapSecondTable: LeapSecondTable
    /// The last delivered 2D/3D fix's position and time, for ``deriveSpeed(_:)``.
    var previousPosition: TimedPosition?
    var slots: (Slot?, Slot?) = (nil, nil)
    /// Whether any binary message was seen: until then NMEA fixes pass straight through.
    var active = false
    var sequence = 0
    /// UTC time of day (ms) minus the binary time key, learned from messages that carry both.
    var keyOffset: Int64?
    var leapSeconds: Int?
    /// The leap second the receiver announces (+1, -1; UBX NAV-TIMELS), while one is announced.
    var leapSecondChange: Int?
    var status: ReceiverStatus?
    var ender: UInt32?
    var enderConfirmations = 0
    var lastEmittedTime: Int64?
    var lastEmittedKey: UInt32?
    /// The time of day (ms) of the last timed NMEA sentence, whose fix the assembler may still hold.
    var lastSentenceTime: Int64?

    static let day: Int64 = 86_400_000
    static let nmeaKind: UInt32 = 0
    static let endOfEpoch: UInt32 = 0x1_0161

    /// Whether the epoch of time of day `time` (ms) is the one delivered last or, with `orOlder`, up to a
    /// minute before it. Binary messages use only the first test: on ADR/UDR units the NAV-PVT of a
    /// whole second arrives after the HNR-PVT of later instants, and is delivered as its own fix.
    func isLate(_ time: Int64, orOlder: Bool = false) -> Bool {
        guard let last = lastEmittedTime else { return false }
        let behind = ((last - time) % Self.day + Self.day) % Self.day
        return Self.close(time, last) || (orOlder && behind <= 60_000)
    }

    /// Creates a merger whose fixes carry `provenance`; `ecefConversion` (``AssemblerOptions/ecefConversion``)
    /// gives a position to epochs that state it only in ECEF.
    public init(provenance: Provenance = .receiver, ecefConversion: ECEFConversion? = nil) {
        self.provenance = provenance
        self.ecefConversion = ecefConversion
        distance = nil
        leapSecondTable = .iers
    }

    /// Creates the merger a stream with `options` uses: their provenance, ECEF conversion, and distance
    /// (a binary epoch without any velocity message gets a speed derived from the previous fix, as the
    /// assembler gives an NMEA epoch without a speed sentence one).
    public init(options: AssemblerOptions) {
        provenance = options.provenance
        ecefConversion = options.ecefConversion
        distance = options.distance
        leapSecondTable = options.leapSecondTable
    }

    // MARK: NMEA fixes

    /// Adds the assembler's fix of an epoch. `sequence` is the arrival order of the last sentence that
    /// contributed to it (``nextSequence()`` when that sentence arrived).
    public mutating func add(nmea fix: Fix, sequence order: Int, emit: (Fix) -> Void) {
        guard active else { emit(fix); return }
        let time = fix.timeOfDay.map { Self.milliseconds($0) }
        if let time, isLate(time, orOlder: true) {
            // An NMEA fix for an epoch delivered already, or older than the last one delivered.
            counters.late += 1
            return
        }
        var index = time.flatMap { find(time: $0) }
        if index == nil { index = open(Slot(fix: Fix(), timeMilliseconds: time), emit: emit) }
        guard let index else { return }
        modify(index) { slot in
            let before = slot.fix
            if slot.binarySequence > order {
                // The binary solution came after these sentences: it wins the fields it carries.
                var merged = fix
                merged.overlay(slot.fix)
                slot.fix = merged
            } else {
                slot.fix.overlay(fix)
            }
            // A binary sky or DOP message that came after the sentences keeps its values.
            if slot.skySequence > order, before.satellites.count > 0 { slot.fix.satellites = before.satellites }
            if slot.dopSequence > order, before.pdop != nil {
                slot.fix.pdop = before.pdop
                slot.fix.hdop = before.hdop ?? slot.fix.hdop
                slot.fix.vdop = before.vdop ?? slot.fix.vdop
            }
            if max(slot.binarySequence, slot.skySequence, slot.dopSequence) < order { slot.lastKind = Self.nmeaKind }
            slot.nmeaSequence = order
            if slot.timeMilliseconds == nil { slot.timeMilliseconds = time }
        }
        if slot(index)?.endSeen == true {
            deliver(index, emit: emit)
        } else if slot(index)?.lastKind == Self.nmeaKind {
            endIfEnder(index, kind: Self.nmeaKind, emit: emit)
        }
    }

    /// Notes a timed NMEA sentence: until the assembler delivers its fix, NAV-EOE of that epoch waits.
    @inline(__always)
    public mutating func noteSentence(time: TimeOfDay) {
        lastSentenceTime = Self.milliseconds(time)
    }

    /// The next arrival number, for a sentence or frame that just arrived.
    public mutating func nextSequence() -> Int {
        sequence += 1
        return sequence
    }

    /// Delivers the open epochs, oldest first.
    public mutating func finish(emit: (Fix) -> Void) {
        while let index = oldest() { deliver(index, emit: emit) }
    }

    // MARK: Slots

    func slot(_ index: Int) -> Slot? { index == 0 ? slots.0 : slots.1 }

    mutating func modify(_ index: Int, _ body: (inout Slot) -> Void) {
        if index == 0 {
            if var slot = slots.0 { body(&slot); slots.0 = slot }
        } else if var slot = slots.1 {
            body(&slot)
            slots.1 = slot
        }
    }

    func find(time: Int64) -> Int? {
        if let t = slots.0?.timeMilliseconds, Self.close(t, time) { return 0 }
        if let t = slots.1?.timeMilliseconds, Self.close(t, time) { return 1 }
        return nil
    }

    func find(key: UInt32) -> Int? {
        if slots.0?.key == key { return 0 }
        if slots.1?.key == key { return 1 }
        return nil
    }

    /// The open epoch with the earliest time (an epoch without a time counts as the newest).
    func oldest() -> Int? {
        switch (slots.0, slots.1) {
        case (nil, nil): return nil
        case (.some, nil): return 0
        case (nil, .some): return 1
        case let (a?, b?):
            guard let ta = a.timeMilliseconds else { return 1 }
            guard let tb = b.timeMilliseconds else { return 0 }
            let difference = (tb - ta + Self.day + Self.day / 2) % Self.day - Self.day / 2
            return difference >= 0 ? 0 : 1
        }
    }

    /// Opens an epoch, delivering the oldest open one when two are open already.
    mutating func open(_ slot: Slot, emit: (Fix) -> Void) -> Int? {
        var fresh = slot
        fresh.fix.provenance = provenance
        if slots.0 != nil, slots.1 != nil, let index = oldest() {
            learnEnder(from: index)
            deliver(index, emit: emit)
        }
        if slots.0 == nil { slots.0 = fresh; return 0 }
        if slots.1 == nil { slots.1 = fresh; return 1 }
        return nil
    }

    mutating func learnEnder(from index: Int) {
        guard let kind = slot(index)?.lastKind else { return }
        if kind == ender {
            enderConfirmations = min(enderConfirmations + 1, 2)
        } else {
            ender = kind
            enderConfirmations = 0
        }
    }

    /// Delivers the epoch at `index` when `kind` is the learned ender, or UBX NAV-EOE, which ends the
    /// epoch by definition (any older epoch first).
    mutating func endIfEnder(_ index: Int, kind: UInt32, emit: (Fix) -> Void) {
        if kind == Self.endOfEpoch {
            modify(index) { $0.endSeen = true }
            // The epoch's NMEA is still inside the assembler (it has not learned its cycle ender yet).
            if let mine = slot(index), mine.nmeaSequence < 0, let time = mine.timeMilliseconds, let sentence = lastSentenceTime,
               Self.close(time, sentence) { return }
        } else if kind != ender || enderConfirmations < 1 {
            return
        }
        let other = 1 - index
        if let mine = slot(index)?.timeMilliseconds, let theirs = slot(other)?.timeMilliseconds, oldest() == other,
           !Self.close(mine, theirs) {
            deliver(other, emit: emit)
        }
        deliver(index, emit: emit)
    }

    mutating func deliver(_ index: Int, emit: (Fix) -> Void) {
        guard var slot = slot(index) else { return }
        if index == 0 { slots.0 = nil } else { slots.1 = nil }
        lastEmittedTime = slot.timeMilliseconds ?? lastEmittedTime
        lastEmittedKey = slot.key ?? lastEmittedKey
        if slot.fix.binaryProtocol != nil {
            if let leapSeconds, slot.fix.leapSeconds == nil { slot.fix.leapSeconds = leapSeconds }
            if let status { slot.fix.receiverStatus = status }
            if slot.nmeaSequence >= 0 { counters.merged += 1 }
        }
        slot.ecef.fill(&slot.fix, using: ecefConversion)
        deriveSpeed(&slot.fix)
        if slot.fix.mode < .twoD {
            slot.fix.latitude = nil
            slot.fix.longitude = nil
        }
        emit(slot.fix)
    }

    // MARK: Binary messages

    /// Finds or opens the epoch of a binary message with time key `key` and, when it carries one, UTC
    /// time of day `time` (ms). Returns `nil` for a message of an epoch already delivered.
    mutating func epoch(key: UInt32?, time: Int64?, emit: (Fix) -> Void) -> Int? {
        active = true
        if let key, let time {
            keyOffset = ((time - Int64(key)) % Self.day + Self.day) % Self.day
        }
        let predicted = time ?? key.flatMap { key in keyOffset.map { (Int64(key) + $0) % Self.day } }
        if let key, key == lastEmittedKey { counters.late += 1; return nil }
        if let key, let index = find(key: key) {
            if let predicted { attach(time: predicted, to: index) }
            return index
        }
        if let predicted, isLate(predicted) { counters.late += 1; return nil }
        if let predicted, let index = find(time: predicted) {
            if slot(index)?.key == nil { modify(index) { $0.key = key } }
            return index
        }
        return open(Slot(fix: Fix(), timeMilliseconds: predicted, key: key), emit: emit)
    }

    /// Gives an epoch its UTC time once a message states it; an open NMEA epoch of that time joins it.
    mutating func attach(time: Int64, to index: Int) {
        guard slot(index)?.timeMilliseconds == nil else { return }
        modify(index) { $0.timeMilliseconds = time }
        let other = 1 - index
        guard let twin = slot(other), let twinTime = twin.timeMilliseconds, Self.close(twinTime, time),
              let mine = slot(index) else { return }
        // The same epoch was opened twice (NMEA before the binary key had a time): combine, in arrival order.
        var combined = twin
        if twin.nmeaSequence > mine.binarySequence {
            var fix = mine.fix
            fix.overlay(twin.fix)
            combined.fix = fix
        } else {
            combined.fix.overlay(mine.fix)
            combined.lastKind = mine.lastKind
            combined.binarySequence = mine.binarySequence
        }
        combined.key = mine.key
        combined.ecef.position = mine.ecef.position ?? twin.ecef.position
        combined.ecef.velocity = mine.ecef.velocity ?? twin.ecef.velocity
        combined.navPVTSeen = mine.navPVTSeen || twin.navPVTSeen
        combined.casicSkyStarted = mine.casicSkyStarted
        if other == 0 { slots.0 = combined; slots.1 = nil } else { slots.1 = combined; slots.0 = nil }
    }

    /// Applies a decoded binary message to the epoch at `index`, then delivers it if `kind` is the ender.
    mutating func apply(_ index: Int, kind: UInt32, order: Int, carries: Carried = .solution, emit: (Fix) -> Void,
                        _ body: (inout Slot) -> Void) {
        counters.decoded += 1
        var current = index
        modify(index) { slot in
            body(&slot)
            slot.lastKind = kind
            switch carries {
            case .solution: slot.binarySequence = order
            case .sky: slot.skySequence = order
            case .dop: slot.dopSequence = order
            case .nothing: break
            }
        }
        if let time = slot(index)?.fix.timeOfDay.map({ Self.milliseconds($0) }) {
            attach(time: time, to: index)
            if slot(index) == nil { current = 1 - index }
        }
        endIfEnder(current, kind: kind, emit: emit)
    }

    /// What a binary message carries that NMEA carries too, for ordering the two within an epoch.
    enum Carried { case solution, sky, dop, nothing }

    static func milliseconds(_ time: TimeOfDay) -> Int64 { (time.nanosecondsSinceMidnight + 500_000) / 1_000_000 }

    /// Whether two times of day (ms) are the same epoch: within 5 ms, across midnight too.
    static func close(_ a: Int64, _ b: Int64) -> Bool {
        let difference = abs(a - b) % day
        return min(difference, day - difference) <= 5
    }
}

extension Fix {
    /// Overlays `later` on this fix: each field `later` carries replaces this one's; the receiver's own
    /// accuracy estimate is never replaced by an NMEA-derived one (see ``EpochMerger``).
    mutating func overlay(_ later: Fix) {
        if let value = later.time { time = value; weekRolloverCorrected = later.weekRolloverCorrected }
        if let value = later.timeOfDay { timeOfDay = value }
        if let value = later.latitude, let other = later.longitude {
            latitude = value
            longitude = other
            rawLatitude = later.rawLatitude
            rawLongitude = later.rawLongitude
        }
        if let value = later.altitudeMSL { altitudeMSL = value }
        if let value = later.altitudeHAE { altitudeHAE = value }
        if let value = later.geoidSeparation { geoidSeparation = value }
        if let value = later.speed { speed = value; speedIsDerived = later.speedIsDerived }
        if let value = later.course { course = value }
        if let value = later.magneticVariation { magneticVariation = value }
        if later.mode != .unknown { mode = later.mode }
        if later.quality != .invalid || later.mode == .noFix { quality = later.quality }
        if let value = later.satellitesUsed { satellitesUsed = value }
        if later.satellites.count > 0 { satellites = later.satellites }
        if let value = later.pdop { pdop = value }
        if let value = later.hdop { hdop = value }
        if let value = later.vdop { vdop = value }
        if later.accuracySource != .none, later.accuracySource == .receiver || accuracySource != .receiver {
            horizontalAccuracy = later.horizontalAccuracy
            verticalAccuracy = later.verticalAccuracy
            accuracySource = later.accuracySource
        }
        if let value = later.receiverAccuracy { receiverAccuracy = value }
        if let value = later.timeValidity { timeValidity = value }
        if let value = later.leapSeconds { leapSeconds = value }
        if let value = later.velocityNorth { velocityNorth = value }
        if let value = later.velocityEast { velocityEast = value }
        if let value = later.velocityDown { velocityDown = value }
        if let value = later.binaryProtocol { binaryProtocol = value }
        if let value = later.receiverStatus { receiverStatus = value }
    }
}

extension Sentence {
    /// The time of day a sentence states for its epoch (the sentences that open or date an epoch).
    @inline(__always)
    var epochTime: TimeOfDay? {
        switch self {
        case .rmc(let s): return s.time
        case .gga(let s): return s.time
        case .gll(let s): return s.time
        case .gns(let s): return s.time
        case .zda(let s): return s.time
        case .gst(let s): return s.time
        case .gbs(let s): return s.time
        default: return nil
        }
    }
}
