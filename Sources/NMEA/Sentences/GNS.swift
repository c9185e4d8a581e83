/// GNS: GNSS fix data (multi-constellation successor to GGA).
///
/// `$GNGNS,hhmmss.ss,llll.ll,a,yyyyy.yy,a,c--c,xx,x.x,x.x,x.x,x.x,x.x,s*hh`
public struct GNS: Sendable, Hashable {
    public var time: TimeOfDay?
    public var latitude: Coordinate?
    public var longitude: Coordinate?
    /// Field 6: one mode letter per constellation (GPS, GLONASS, Galileo, BeiDou, QZSS, NavIC), up to 6 kept.
    public var modes: InlineArray<6, ModeIndicator?>
    /// How many mode letters field 6 held.
    public var modeCount: Int
    public var satellitesUsed: Int?
    public var hdop: FixedDecimal?
    public var altitudeMSL: FixedDecimal?
    public var geoidSeparation: FixedDecimal?
    public var differentialAge: FixedDecimal?
    public var differentialStation: Int?
    public var navigationalStatus: NavigationalStatus?

    init() {
        modes = InlineArray(repeating: nil)
        modeCount = 0
    }

    /// Whether any constellation reports a valid position.
    public var isValid: Bool {
        for index in 0..<min(modeCount, 6) where modes[index]?.isValid == true { return true }
        return false
    }

    /// The best mode letter across constellations (differential or RTK over autonomous).
    public var bestMode: ModeIndicator? {
        var best: ModeIndicator?
        let rank: (ModeIndicator) -> Int = {
            switch $0 {
            case .rtk: return 8
            case .floatRTK: return 7
            case .precise: return 6
            case .differential: return 5
            case .autonomous: return 4
            case .estimated: return 3
            case .manual: return 2
            case .simulator: return 1
            case .notValid: return 0
            }
        }
        for index in 0..<min(modeCount, 6) {
            if let mode = modes[index], best.map({ rank(mode) > rank($0) }) ?? true { best = mode }
        }
        return best
    }

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> GNS {
        var s = GNS()
        // Required: the time (field 1). The mode letters (field 6) are kept one by one: an unknown
        // letter is absent for its constellation. Every other field is optional. See QUIRKS.md.
        s.time = try f.time()
        (s.latitude, s.longitude) = try f.optionalPosition()
        if let range = f.raw() {
            var index = 0
            for offset in range {
                let byte = f.base[offset]
                let mode = ModeIndicator(rawValue: byte)
                if mode == nil { try f.noteUnreadable(field: 6, .unexpectedValue(byte)) }
                if index < 6 { s.modes[index] = mode }
                index += 1
            }
            s.modeCount = min(index, 6)
        }
        s.satellitesUsed = try f.optionalInteger(in: 0...999)
        s.hdop = try f.optionalDecimal()
        s.altitudeMSL = try f.optionalDecimal()
        s.geoidSeparation = try f.optionalDecimal()
        s.differentialAge = try f.optionalDecimal()
        if let range = f.raw() { s.differentialStation = try? f.parseInteger(range) }
        s.navigationalStatus = try f.tolerant { (f) throws(NMEAError) in try f.navigationalStatus() }
        return s
    }

    public static func == (a: GNS, b: GNS) -> Bool {
        guard a.modeCount == b.modeCount else { return false }
        for index in 0..<a.modeCount where a.modes[index] != b.modes[index] { return false }
        return a.time == b.time && a.latitude == b.latitude && a.longitude == b.longitude
            && a.satellitesUsed == b.satellitesUsed && a.hdop == b.hdop && a.altitudeMSL == b.altitudeMSL
            && a.geoidSeparation == b.geoidSeparation && a.differentialAge == b.differentialAge
            && a.differentialStation == b.differentialStation && a.navigationalStatus == b.navigationalStatus
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(time)
        hasher.combine(latitude)
        hasher.combine(longitude)
        hasher.combine(modeCount)
    }
}
