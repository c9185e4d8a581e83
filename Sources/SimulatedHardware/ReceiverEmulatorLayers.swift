import HardwareInterfaces

/// The receiver's non-volatile configuration (u-blox BBR or flash): what a power-up starts with.
struct SavedConfiguration: Sendable, Equatable {
    var interval: Duration
    var outputs: Set<String>
    var binaryOutputs: Set<String>
    var dynamicModel: Int
}

/// Configuration layers: u-blox CFG-VALSET into the BBR/flash layers and CFG-VALGET
/// from RAM or BBR (M10), the legacy polls of CFG-RATE, CFG-MSG and CFG-NAV5 and CFG-CFG save
/// and load (M8). What is saved survives switching the supply off (V_BCKP is kept); RAM does not.
extension ReceiverEmulator {
    /// The saved (BBR/flash) configuration's navigation interval and NMEA outputs, `nil` when nothing was saved.
    public var savedConfiguration: (interval: Duration, outputs: Set<String>, dynamicModel: Int)? {
        state.withLock { s in s.saved.map { ($0.interval, $0.outputs, $0.dynamicModel) } }
    }

    /// The RAM configuration (interval, NMEA outputs, dynamic model) the receiver had when its
    /// supply was last switched off (a board's power-enable line), `nil` before that: what an
    /// engine left in the receiver when it idled it at exit.
    public var configurationAtPowerOff: (interval: Duration, outputs: Set<String>, binaryOutputs: Set<String>, dynamicModel: Int)? {
        state.withLock { s in s.configurationAtPowerOff.map { ($0.interval, $0.outputs, $0.binaryOutputs, $0.dynamicModel) } }
    }

    /// The NMEA sentence of each u-blox configuration key the emulator keeps.
    static let nmeaKeys: [UInt32: String] = [
        0x2091_00BB: "GGA", 0x2091_00AC: "RMC", 0x2091_00C0: "GSA", 0x2091_00C5: "GSV",
        0x2091_00D4: "GST", 0x2091_00CA: "GLL", 0x2091_00B1: "VTG", 0x2091_00D9: "ZDA",
    ]

    func configuration(of s: State) -> SavedConfiguration {
        SavedConfiguration(interval: s.interval, outputs: s.outputs, binaryOutputs: s.binaryOutputs, dynamicModel: s.dynamicModel)
    }

    /// At power-up (or CFG-CFG load): the saved configuration replaces RAM's.
    func loadSaved(_ s: inout State) {
        guard let saved = s.saved else { return }
        s.interval = saved.interval
        s.outputs = saved.outputs
        s.binaryOutputs = saved.binaryOutputs
        s.dynamicModel = saved.dynamicModel
    }

    /// CFG-VALSET with the BBR or flash layer: the keys applied to the saved configuration (the
    /// power-up defaults when nothing was saved), through the RAM path on a copy.
    func saveValues(_ s: inout State, _ p: [UInt8], at: MonotonicInstant) {
        var copy = s
        resetConfiguration(&copy)
        loadSaved(&copy)
        var ramOnly = p
        ramOnly[1] = 0x01
        handleUBX(&copy, 0x06, 0x8A, ramOnly, at: at)
        s.saved = configuration(of: copy)
    }

    /// CFG-VALGET: the asked keys' values from RAM (layer 0) or the saved configuration (1 BBR,
    /// 2 flash); ACK-NAK when the layer holds nothing.
    func getValues(_ s: inout State, _ p: [UInt8], m10: Bool, at: MonotonicInstant) {
        guard m10, p.count >= 8 else { ack(&s, 0x06, 0x8B, ok: false, at: at); return }
        let layer = p[1]
        let source: SavedConfiguration?
        switch layer {
        case 0: source = configuration(of: s)
        case 1, 2: source = s.saved
        default: source = nil
        }
        guard let config = source else { ack(&s, 0x06, 0x8B, ok: false, at: at); return }
        var reply: [UInt8] = [0x01, layer, 0x00, 0x00]
        var o = 4
        while o + 4 <= p.count {
            let key = u32(p, o)
            o += 4
            var value: [UInt8]?
            switch key {
            case 0x3021_0001:
                let ms = Int((config.interval.secondsDouble * 1000).rounded())
                value = [UInt8(ms & 0xFF), UInt8(ms >> 8 & 0xFF)]
            case 0x2011_0021: value = [UInt8(clamping: config.dynamicModel)]
            default:
                if let name = Self.nmeaKeys[key] { value = [config.outputs.contains(name) ? 1 : 0] }
                if let (c, i) = Self.messageOfKey(key), let name = Self.binaryNames[UInt16(c) << 8 | UInt16(i)] {
                    value = [config.binaryOutputs.contains(name) ? 1 : 0]
                }
            }
            guard let value else { continue }
            reply += [UInt8(key & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key >> 16 & 0xFF), UInt8(key >> 24)] + value
        }
        s.pending.append((at, ubxFrame(0x06, 0x8B, reply)))
        ack(&s, 0x06, 0x8B, ok: true, at: at)
    }

    /// u-blox 8 polls: CFG-RATE (empty), CFG-MSG (class and id; the rates per port, UART1 second),
    /// CFG-NAV5 (empty); each answered, then acknowledged.
    func legacyPoll(_ s: inout State, _ id: UInt8, _ p: [UInt8], at: MonotonicInstant) {
        var reply: [UInt8]
        switch id {
        case 0x08:
            let ms = Int((s.interval.secondsDouble * 1000).rounded())
            reply = [UInt8(ms & 0xFF), UInt8(ms >> 8 & 0xFF), 1, 0, 1, 0]
        case 0x01:
            let names: [UInt8: String] = [0: "GGA", 1: "GLL", 2: "GSA", 3: "GSV", 4: "RMC", 5: "VTG", 7: "GST", 8: "ZDA"]
            let nmea = p[0] == 0xF0 && names[p[1]].map { s.outputs.contains($0) } == true
            let binary = Self.binaryNames[UInt16(p[0]) << 8 | UInt16(p[1])].map { s.binaryOutputs.contains($0) } == true
            let on: UInt8 = nmea || binary ? 1 : 0
            reply = [p[0], p[1], 0, on, 0, 0, 0, 0]
        default:
            reply = [UInt8](repeating: 0, count: 36)
            reply[0] = 0xFF
            reply[1] = 0xFF
            reply[2] = UInt8(clamping: s.dynamicModel)
        }
        s.pending.append((at, ubxFrame(0x06, id, reply)))
        ack(&s, 0x06, id, ok: true, at: at)
    }

    /// CFG-CFG: a save mask stores RAM's configuration, a load mask puts the saved one in RAM.
    func legacyConfiguration(_ s: inout State, _ p: [UInt8], at: MonotonicInstant) {
        guard p.count == 12 || p.count == 13 else { ack(&s, 0x06, 0x09, ok: false, at: at); return }
        if u32(p, 4) != 0 { s.saved = configuration(of: s) }
        if u32(p, 8) != 0 { loadSaved(&s) }
        ack(&s, 0x06, 0x09, ok: true, at: at)
    }
}
