import HardwareInterfaces

// Aiding received by the emulated receiver: u-blox MGA-INI time and position, AssistNow
// Autonomous switched on (CFG-NAVX5 on the M8, CFG-ANA-USE_ANA on the M10), MediaTek
// `$PMTK740`/`$PMTK741`, CASIC AID-INI. Each goes to the model, which shortens the start it is in.

extension ReceiverEmulator {
    /// What the receiver was given, in order: `time ±1.5 s`, `position ±2000 m`.
    public var aidingReceived: [String] { state.withLock { $0.aidingReceived } }
    /// Whether its orbit predictions are on (u-blox AssistNow Autonomous; always on for MediaTek).
    public var predictionsEnabled: Bool { state.withLock { $0.model.predictionsEnabled } }
    /// How the current or last start began, whether aiding shortened it, and how many it shortened.
    public var lastStart: (kind: StartKind?, aided: Bool) { state.withLock { ($0.model.lastStart, $0.model.lastStartAided) } }
    /// Starts that aiding shortened.
    public var aidedStarts: Int { state.withLock { $0.model.aidedStarts } }

    static func u32(_ p: [UInt8], _ o: Int) -> UInt32 {
        p.count >= o + 4 ? UInt32(p[o]) | UInt32(p[o + 1]) << 8 | UInt32(p[o + 2]) << 16 | UInt32(p[o + 3]) << 24 : 0
    }

    func noteAiding(_ s: inout State, time: Double?, position: Double?) {
        if let time { s.aidingReceived.append("time ±\(fmt(time)) s") }
        if let position { s.aidingReceived.append("position ±\(fmt(position)) m") }
        s.model.aid(timeAccuracy: time, positionAccuracy: position)
    }

    /// UBX-MGA-INI (0x13 0x40): TIME_UTC (type 0x10, 24 bytes) and POS_LLH (type 0x01, 20 bytes);
    /// other types and short payloads are ignored, as a receiver drops what it cannot use.
    func handleMGAInitial(_ s: inout State, _ p: [UInt8]) {
        guard let type = p.first else { return }
        switch (type, p.count) {
        case (0x10, 24):
            let year = Int(p[4]) | Int(p[5]) << 8
            guard (2000...2099).contains(year), (1...12).contains(p[6]), (1...31).contains(p[7]) else { return }
            let accuracy = Double(Int(p[16]) | Int(p[17]) << 8) + Double(Self.u32(p, 20)) / 1e9
            noteAiding(&s, time: accuracy, position: nil)
        case (0x01, 20):
            noteAiding(&s, time: nil, position: Double(Self.u32(p, 16)) / 100)
        default:
            break
        }
    }

    /// UBX-CFG-NAVX5 on the u-blox 8: the AssistNow Autonomous bit of mask1 applies aopCfg.useAOP.
    func handleNavigationExpert(_ s: inout State, _ p: [UInt8], at: MonotonicInstant) {
        guard s.family == .ublox8, p.count >= 40 else { ack(&s, 0x06, 0x23, ok: false, at: at); return }
        if p[3] & 0x40 != 0 { s.model.predictionsEnabled = p[27] & 0x01 != 0 }
        ack(&s, 0x06, 0x23, ok: true, at: at)
    }

    /// `$PMTK740,YYYY,MM,DD,hh,mm,ss` and `$PMTK741,lat,lon,alt,YYYY,...`: the flag to acknowledge
    /// with (3 taken, 0 malformed). MediaTek states no accuracy: the time counts as good to a
    /// second, the position as good to 10 km (the receiver's own assumption is not documented).
    func handleMediaTekAiding(_ s: inout State, _ fields: [String]) -> Int {
        let dateStart = fields.first == "PMTK741" ? 4 : 1
        guard fields.count == dateStart + 6, let year = Int(fields[dateStart]), (2000...2099).contains(year) else { return 0 }
        if dateStart == 4 {
            guard let lat = Double(fields[1]), let lon = Double(fields[2]), abs(lat) <= 90, abs(lon) <= 180 else { return 0 }
            noteAiding(&s, time: 1, position: 10_000)
        } else {
            noteAiding(&s, time: 1, position: nil)
        }
        return 3
    }

    /// CASIC AID-INI (0x0B 0x01, 56 bytes): flags bit 0 position valid, bit 1 time valid; the
    /// variances (m², and (c·σt)²) give the accuracies.
    func handleCASICAiding(_ s: inout State, _ p: [UInt8]) {
        guard p.count == 56 else { return }
        func r4(_ o: Int) -> Double { Double(Float(bitPattern: Self.u32(p, o))) }
        let flags = p[55]
        let position = flags & 0x01 != 0 ? r4(36).squareRoot() : nil
        let time = flags & 0x02 != 0 ? r4(40).squareRoot() / 299_792_458 : nil
        noteAiding(&s, time: time, position: position)
    }
}
