import HardwareInterfaces
import NMEA

extension UBXMessage {
    /// UBX-CFG-VALGET of `keys` from `layer` (0 RAM, 1 BBR, 2 flash, 7 default).
    public static func getValues(_ keys: [UBXKey], layer: UInt8) -> UBXMessage {
        UBXMessage(class: 0x06, id: 0x8B, payload: [0x00, layer, 0x00, 0x00] + keys.prefix(64).flatMap { u32($0.id) })
    }

    /// UBX-CFG-CFG (u-blox 6/7/M8): clear, save and load masks (every section: 0x1F1F) and the
    /// devices (bit 0 BBR, bit 1 flash).
    public static func configuration(save: Bool = false, load: Bool = false, devices: UInt8 = 0x03) -> UBXMessage {
        let all: UInt32 = 0x0000_1F1F
        return UBXMessage(class: 0x06, id: 0x09, payload: u32(0) + u32(save ? all : 0) + u32(load ? all : 0) + [devices])
    }

    /// UBX-CFG-NAV5 with only the dynamic model applied (mask bit 0).
    static func navigationEngine(ubloxModel: UInt8) -> UBXMessage {
        var payload = [UInt8](repeating: 0, count: 36)
        payload[0] = 0x01
        payload[2] = ubloxModel
        return UBXMessage(class: 0x06, id: 0x24, payload: payload)
    }

    /// The key/value pairs of a CFG-VALGET reply payload (`version 1 | layer | position | pairs`).
    public static func values(ofReply payload: [UInt8]) -> [UInt32: UInt64]? {
        guard payload.count >= 4 else { return nil }
        var values: [UInt32: UInt64] = [:]
        var o = 4
        while o + 4 <= payload.count {
            let key = UInt32(payload[o]) | UInt32(payload[o + 1]) << 8 | UInt32(payload[o + 2]) << 16 | UInt32(payload[o + 3]) << 24
            let size = UBXKey(key).valueSize
            guard o + 4 + size <= payload.count else { return nil }
            var value: UInt64 = 0
            for k in 0..<size { value |= UInt64(payload[o + 4 + k]) << (8 * UInt64(k)) }
            values[key] = value
            o += 4 + size
        }
        return values
    }
}

extension UBloxDriver: ReceiverConfigurable {
    /// The keys the engine changes on M9/M10: the measurement rate, the NMEA outputs on UART1, the dynamic model.
    static var configurationKeys: [UBXKey] { [.rateMeasurement, .dynamicModel] + NMEASentenceType.allCases.map(UBXKey.nmeaOutput) }

    /// The binary output's keys on M9/M10: its messages' CFG-MSGOUT keys and the UART1 output protocols.
    var binaryKeys: [UBXKey] {
        UBXNavigationOutput.messages(for: generation).compactMap(\.key) + [.uart1OutputUBX, .uart1OutputNMEA]
    }

    func snapshot(layer: UInt8) throws(ReceiverError) -> ReceiverSettingsSnapshot {
        let reply = try channel.poll(UBXMessage.getValues(Self.configurationKeys, layer: layer))
        guard let values = UBXMessage.values(ofReply: reply) else { throw .rejected(command: "CFG-VALGET", reason: "malformed reply") }
        let binaryReply = try channel.poll(UBXMessage.getValues(binaryKeys, layer: layer))
        guard let binary = UBXMessage.values(ofReply: binaryReply) else { throw .rejected(command: "CFG-VALGET", reason: "malformed reply") }
        var outputs: [NMEASentenceType: Int] = [:]
        for sentence in NMEASentenceType.allCases { if let v = values[UBXKey.nmeaOutput(sentence).id] { outputs[sentence] = Int(v) } }
        var snapshot = ReceiverSettingsSnapshot(rateMilliseconds: values[UBXKey.rateMeasurement.id].map { Int($0) },
                                                outputs: outputs.isEmpty ? nil : outputs,
                                                dynamicModel: values[UBXKey.dynamicModel.id].map { Int($0) })
        snapshot.ubloxValues = binary
        return snapshot
    }

    /// Every value of `snapshot` as key/value pairs (M9/M10).
    func keyValues(_ snapshot: ReceiverSettingsSnapshot) -> [(UBXKey, UInt64)] {
        var values: [(UBXKey, UInt64)] = []
        if let rate = snapshot.rateMilliseconds { values.append((.rateMeasurement, UInt64(rate))) }
        if let model = snapshot.dynamicModel { values.append((.dynamicModel, UInt64(model))) }
        for (sentence, rate) in (snapshot.outputs ?? [:]).sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            values.append((UBXKey.nmeaOutput(sentence), UInt64(rate)))
        }
        for (key, value) in snapshot.ubloxValues.sorted(by: { $0.key < $1.key }) { values.append((UBXKey(key), value)) }
        return values
    }

    /// M9/M10: CFG-VALGET from the RAM layer. u-blox 6/7/M8: polls of CFG-RATE, CFG-MSG (each
    /// NMEA sentence, the rate on UART1) and CFG-NAV5.
    public func readSettings() throws(ReceiverError) -> ReceiverSettingsSnapshot {
        if generation.usesConfigurationKeys { return try snapshot(layer: 0) }
        let rate = try channel.poll(UBXMessage(class: 0x06, id: 0x08))
        var outputs: [NMEASentenceType: Int] = [:]
        for sentence in NMEASentenceType.allCases {
            let reply = try channel.poll(UBXMessage(class: 0x06, id: 0x01, payload: [0xF0, sentence.ubloxMessageID]))
            if reply.count >= 8 { outputs[sentence] = Int(reply[3]) }
        }
        let nav = try channel.poll(UBXMessage(class: 0x06, id: 0x24))
        var snapshot = ReceiverSettingsSnapshot(rateMilliseconds: rate.count >= 2 ? Int(rate[0]) | Int(rate[1]) << 8 : nil,
                                                outputs: outputs, dynamicModel: nav.count >= 3 ? Int(nav[2]) : nil)
        for message in UBXNavigationOutput.messages(for: generation) {
            let reply = try channel.poll(UBXMessage(class: 0x06, id: 0x01, payload: [message.messageClass, message.id]))
            if reply.count >= 8 { snapshot.ubloxMessageRates[UInt16(message.messageClass) << 8 | UInt16(message.id)] = reply[3] }
        }
        return snapshot
    }

    /// M9/M10: one CFG-VALSET into the RAM layer. u-blox 6/7/M8: CFG-RATE, CFG-MSG per sentence, CFG-NAV5.
    public func restore(_ snapshot: ReceiverSettingsSnapshot, modelChanged: Bool) throws(ReceiverError) {
        if generation.usesConfigurationKeys {
            let values = keyValues(snapshot)
            // At most 64 pairs per CFG-VALSET.
            for start in stride(from: 0, to: values.count, by: 64) {
                try channel.send(UBXMessage.setValues(Array(values[start..<min(values.count, start + 64)]), layers: .ram))
            }
            return
        }
        for (message, rate) in snapshot.ubloxMessageRates.sorted(by: { $0.key < $1.key }) {
            try channel.send(UBXMessage.messageRate(class: UInt8(message >> 8), id: UInt8(message & 0xFF), rate: rate))
        }
        if let rate = snapshot.rateMilliseconds { try channel.send(UBXMessage.rate(milliseconds: UInt16(clamping: rate))) }
        for (sentence, rate) in (snapshot.outputs ?? [:]).sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try channel.send(UBXMessage.nmeaOutput(sentence, rate: UInt8(clamping: rate)))
        }
        if let model = snapshot.dynamicModel { try channel.send(UBXMessage.navigationEngine(ubloxModel: UInt8(clamping: model))) }
    }

    /// M9/M10: the RAM values written to BBR (and flash on M9; the M10 has none), then read back
    /// from the BBR layer and compared. u-blox 6/7/M8: CFG-CFG save to BBR and flash, then CFG-CFG
    /// load from them and the settings polled again and compared.
    public func saveSettings(expected: ReceiverSettingsSnapshot) throws(ReceiverError) {
        let current = try readSettings()
        if generation.usesConfigurationKeys {
            let values = keyValues(current)
            for start in stride(from: 0, to: values.count, by: 64) {
                try channel.send(UBXMessage.setValues(Array(values[start..<min(values.count, start + 64)]),
                                                      layers: generation == .m9 ? [.bbr, .flash] : .bbr))
            }
            let saved = try snapshot(layer: 1)
            guard saved == current else {
                throw .rejected(command: "CFG-VALGET (BBR)", reason: "read back \(saved), expected \(current)")
            }
        } else {
            try channel.send(UBXMessage.configuration(save: true))
            try channel.send(UBXMessage.configuration(load: true))
            let loaded = try readSettings()
            guard loaded == current else {
                throw .rejected(command: "CFG-CFG", reason: "loaded back \(loaded), expected \(current)")
            }
        }
        if let rate = expected.rateMilliseconds, current.rateMilliseconds != rate {
            throw .rejected(command: "save", reason: "the receiver runs at \(current.rateMilliseconds ?? 0) ms, not the \(rate) ms sent")
        }
    }
}
