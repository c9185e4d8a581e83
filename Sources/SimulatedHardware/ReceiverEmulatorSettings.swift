import HardwareInterfaces

/// The emulator's run-time settings: the navigation interval, the NMEA and binary
/// outputs, and the dynamic model, as the commands of each family set them (u-blox CFG-RATE /
/// CFG-RATE-MEAS, CFG-MSG / CFG-MSGOUT, CFG-NAV5 / CFG-NAVSPG-DYNMODEL; `$PMTK220`, `$PMTK314`,
/// `$PMTK886`; `$PCAS02`, `$PCAS03`, `$PCAS11`). The emulator keeps no battery-backed
/// configuration: switching its supply off puts them all back to the power-up defaults.
extension ReceiverEmulator {
    /// The NMEA sentences it outputs now (`GGA`, `RMC`, `GSA`, `GSV`, `GST`, ...).
    public var nmeaOutputs: Set<String> { state.withLock { $0.outputs } }
    /// The binary navigation messages it outputs now (`NAV-PVT`, `NAV-PV`, ...).
    public var binaryOutputs: Set<String> { state.withLock { $0.binaryOutputs } }
    /// The dynamic model in the family's own numbering: u-blox `dynModel` (0 portable, 3
    /// pedestrian, 4 automotive, 6 airborne < 1 g), MediaTek `$PMTK886` mode (0 vehicle, 1 fitness,
    /// 2 aviation, 3 balloon), CASIC CFG-NAVX `dynModel` (0 portable, 2 pedestrian, 3 automotive).
    public var dynamicModel: Int { state.withLock { $0.dynamicModel } }

    /// Every byte written to the receiver since it was made (also while unpowered or asleep), for
    /// tests of `passive` mode.
    public var bytesReceived: Int { state.withLock { $0.bytesReceived } }

    /// The answer to MediaTek's queries: `$PMTK514` (the sentence rates, in `$PMTK314`'s order)
    /// for `$PMTK414`, `$PMTK500,<ms>,0,0,0,0` (the fix interval) for `$PMTK400`.
    func mediaTekQueryReply(_ s: State, _ number: String) -> [UInt8] {
        if number == "400" {
            return sentence("PMTK500,\(Int((s.interval.secondsDouble * 1000).rounded())),0,0,0,0")
        }
        let order = ["GLL", "RMC", "VTG", "GGA", "GSA", "GSV", "GRS", "GST"]
        var fields = order.map { s.outputs.contains($0) ? "1" : "0" }
        fields += [String](repeating: "0", count: 11)
        return sentence("PMTK514," + fields.joined(separator: ","))
    }

    /// The power-up configuration: 1 Hz, GGA, RMC, GSA and GSV, no binary messages, model 0.
    func resetConfiguration(_ s: inout State) {
        s.interval = .seconds(1)
        s.outputs = s.family == .casic ? ["GGA", "RMC", "GSA", "GSV", "ANT"] : ["GGA", "RMC", "GSA", "GSV"]
        s.binaryOutputs = []
        s.dynamicModel = 0
        s.powerSave = false
    }

    /// UBX-CFG-NAV5 (u-blox 8 only; the M10 has no legacy CFG messages): with mask bit 0 set,
    /// `dynModel` (byte 2) must be 0 or 2...8, else ACK-NAK; ACK-ACK otherwise.
    func setNavigationEngine(_ s: inout State, _ p: [UInt8], m10: Bool, at: MonotonicInstant) {
        guard !m10, p.count == 36 else { ack(&s, 0x06, 0x24, ok: false, at: at); return }
        if p[0] & 0x01 != 0 {
            guard p[2] == 0 || (2...8).contains(p[2]) else { ack(&s, 0x06, 0x24, ok: false, at: at); return }
            s.dynamicModel = Int(p[2])
        }
        ack(&s, 0x06, 0x24, ok: true, at: at)
    }

    /// `$PMTK886,<mode>` (0 vehicle, 1 fitness, 2 aviation, 3 balloon): the `$PMTK001` flag.
    func setMediaTekMode(_ s: inout State, _ fields: [String]) -> Int {
        guard fields.count == 2, let mode = Int(fields[1]), (0...3).contains(mode) else { return 2 }
        s.dynamicModel = mode
        return 3
    }

    /// `$PCAS11,<model>` (CFG-NAVX numbering 0...7); anything else is ignored, as CASIC does.
    func setCASICModel(_ s: inout State, _ fields: [String]) {
        if fields.count == 2, let model = Int(fields[1]), (0...7).contains(model) { s.dynamicModel = model }
    }

    func u32(_ p: [UInt8], _ o: Int) -> UInt32 {
        guard p.count >= o + 4 else { return 0 }
        return UInt32(p[o]) | UInt32(p[o + 1]) << 8 | UInt32(p[o + 2]) << 16 | UInt32(p[o + 3]) << 24
    }

    func pad(_ text: String, _ n: Int) -> [UInt8] {
        Array(Array(text.utf8).prefix(n)) + [UInt8](repeating: 0, count: max(0, n - text.utf8.count))
    }
}
