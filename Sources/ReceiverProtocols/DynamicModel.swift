import Devices

/// The receiver's dynamic platform model: the motion the navigation filter expects,
/// which bounds the accelerations and speeds it accepts. Each family has its own command and
/// numbering: u-blox CFG-NAV5 `dynModel` (6/7/M8) or CFG-NAVSPG-DYNMODEL (M9/M10), MediaTek
/// `$PMTK886` navigation mode, CASIC `$PCAS11` (the CFG-NAVX `dynModel` numbering).
public enum DynamicModel: String, Sendable, Hashable, CaseIterable {
    /// General purpose, moderate dynamics (the u-blox and CASIC default).
    case portable
    /// A unit that does not move (timing, reference stations).
    case stationary
    /// On foot.
    case pedestrian
    /// In a road vehicle.
    case automotive
    /// On a boat (sea level, low vertical speed).
    case sea
    /// Airborne, below 1 g of acceleration.
    case airborne

    /// The u-blox `dynModel` / CFG-NAVSPG-DYNMODEL value: 0 portable, 2 stationary, 3 pedestrian,
    /// 4 automotive, 5 sea, 6 airborne < 1 g.
    public var ubloxValue: UInt8 {
        switch self {
        case .portable: return 0
        case .stationary: return 2
        case .pedestrian: return 3
        case .automotive: return 4
        case .sea: return 5
        case .airborne: return 6
        }
    }

    /// The MediaTek `$PMTK886` navigation mode: 0 vehicle (the default, also for portable,
    /// stationary and sea, which MediaTek does not have), 1 fitness (pedestrian), 2 aviation.
    public var mediaTekMode: Int {
        switch self {
        case .pedestrian: return 1
        case .airborne: return 2
        case .portable, .stationary, .automotive, .sea: return 0
        }
    }

    /// The CASIC `$PCAS11` / CFG-NAVX `dynModel` value: 0 portable, 1 stationary, 2 pedestrian,
    /// 3 automotive, 4 sea, 5 airborne < 1 g.
    public var casicValue: Int {
        switch self {
        case .portable: return 0
        case .stationary: return 1
        case .pedestrian: return 2
        case .automotive: return 3
        case .sea: return 4
        case .airborne: return 5
        }
    }
}

extension UBXMessage {
    /// UBX-CFG-NAV5 (0x06 0x24, u-blox 6/7/M8), 36 bytes: the mask (X2) selects only `dynModel`
    /// (bit 0), so the receiver keeps every other navigation setting; `dynModel` is byte 2.
    public static func navigationEngine(dynamicModel: DynamicModel) -> UBXMessage {
        var payload = [UInt8](repeating: 0, count: 36)
        payload[0] = 0x01
        payload[2] = dynamicModel.ubloxValue
        return UBXMessage(class: 0x06, id: 0x24, payload: payload)
    }
}

extension PMTK {
    /// `$PMTK886,<mode>`: navigation mode (0 vehicle, 1 fitness, 2 aviation, 3 balloon),
    /// acknowledged by `$PMTK001,886,3`.
    public static func navigationMode(_ model: DynamicModel) -> NMEACommand { NMEACommand("PMTK886", model.mediaTekMode) }
}

extension PCAS {
    /// `$PCAS11,<model>`: dynamic model in CFG-NAVX's numbering (0 portable, 1 stationary,
    /// 2 pedestrian, 3 automotive, 4 sea, 5 airborne < 1 g); not acknowledged.
    public static func dynamicModel(_ model: DynamicModel) -> NMEACommand { NMEACommand("PCAS11", model.casicValue) }
}

extension ReceiverFamily {
    /// The navigation interval nearest `milliseconds` that the family takes: u-blox 25...65535 ms,
    /// MediaTek 100...10000 ms, CASIC only 200, 500 or 1000 ms.
    public func legalRate(milliseconds: Int) -> Int {
        switch self {
        case .ublox: return min(65535, max(25, milliseconds))
        case .casic: return [200, 500, 1000].min { abs($0 - milliseconds) < abs($1 - milliseconds) } ?? 1000
        case .mediatek, .airoha, .goke, .genericNMEA: return min(10000, max(100, milliseconds))
        }
    }
}

extension ReceiverDriver {
    /// Default for families without a dynamic model command.
    public func setDynamicModel(_ model: DynamicModel) throws(ReceiverError) {
        throw .unsupported(family: family, operation: "set a dynamic model")
    }
}

extension UBloxDriver {
    /// CFG-NAVSPG-DYNMODEL through CFG-VALSET (M9/M10) or CFG-NAV5 (u-blox 6/7/M8); ACKed.
    public func setDynamicModel(_ model: DynamicModel) throws(ReceiverError) {
        if generation.usesConfigurationKeys {
            try channel.send(UBXMessage.setValues([(.dynamicModel, UInt64(model.ubloxValue))], layers: layers))
        } else {
            try channel.send(UBXMessage.navigationEngine(dynamicModel: model))
        }
    }
}

extension MediaTekDriver {
    /// `$PMTK886`, acknowledged by `$PMTK001,886,3`.
    public func setDynamicModel(_ model: DynamicModel) throws(ReceiverError) {
        try channel.send(PMTK.navigationMode(model), acknowledgedAs: 886)
    }
}

extension CASICDriver {
    /// `$PCAS11` (not acknowledged).
    public func setDynamicModel(_ model: DynamicModel) throws(ReceiverError) {
        try channel.send(PCAS.dynamicModel(model))
    }
}
