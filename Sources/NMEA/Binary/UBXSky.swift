/// Decoders of the UBX sky messages: NAV-SAT (one row per satellite) and NAV-SIG (one row per signal,
/// u-blox 9 and later). Layouts from the u-blox 8 and F9 interface descriptions, checked against
/// gpsd's `drivers/driver_ubx.c`; the satellite numbers follow gpsd's `ubx2_to_prn()` (NMEA numbering).

/// The UBX constellation identifiers (`gnssId`), shared by CASIC's satellite messages.
public enum UBXGNSS {
    /// The constellation of a UBX `gnssId`.
    public static func constellation(_ gnssID: UInt8) -> Constellation? {
        switch gnssID {
        case 0: return .gps
        case 1: return .sbas
        case 2: return .galileo
        case 3: return .beidou
        case 5: return .qzss
        case 6: return .glonass
        case 7: return .navic
        default: return nil
        }
    }

    /// The UBX `gnssId` of a constellation (gpsd's `gnssid`): 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou,
    /// 5 QZSS, 6 GLONASS, 7 NavIC; the inverse of ``constellation(_:)``.
    public static func gnssID(_ constellation: Constellation) -> UInt8 {
        switch constellation {
        case .gps: return 0
        case .sbas: return 1
        case .galileo: return 2
        case .beidou: return 3
        case .qzss: return 5
        case .glonass: return 6
        case .navic: return 7
        }
    }

    /// The NMEA-style satellite number gpsd gives a UBX `gnssId:svId` (its `ubx2_to_prn()`), or 0 when
    /// the pair names no satellite.
    public static func prn(gnssID: UInt8, svID: UInt8) -> UInt16 {
        let sv = UInt16(svID)
        guard sv >= 1 else { return 0 }
        switch gnssID {
        case 0: return sv <= 32 ? sv : 0
        case 1: return (120...151).contains(sv) ? sv - 87 : (sv <= 158 ? sv : 0)
        case 2: return sv <= 36 ? sv + 300 : ((211...246).contains(sv) ? sv + 90 : 0)
        case 3: return sv <= 63 ? sv + 400 : ((159...163).contains(sv) ? sv + 242 : 0)
        case 4: return sv <= 10 ? sv + 172 : ((173...182).contains(sv) ? sv : 0)
        case 5: return sv <= 10 ? sv + 192 : ((193...202).contains(sv) ? sv : 0)
        case 6: return sv <= 32 ? sv + 64 : ((65...96).contains(sv) ? sv : 0)
        case 7: return sv <= 14 ? sv + 800 : 0
        default: return 0
        }
    }

    /// A sky row from the fields every satellite message has.
    static func satellite(gnssID: UInt8, svID: UInt8, cno: UInt8, elevation: Int8?, azimuth: Int16?,
                          used: Bool, signalID: UInt8? = nil) -> SatelliteInfo {
        var info = SatelliteInfo(constellation: constellation(gnssID), prn: prn(gnssID: gnssID, svID: svID),
                                 snr: cno > 0 ? cno : nil, used: used, signalID: signalID)
        if let elevation, abs(Int(elevation)) <= 90 { info.elevation = Int16(elevation) }
        if let azimuth, azimuth >= 0, azimuth < 360 { info.azimuth = UInt16(azimuth) }
        info.gnssID = gnssID
        info.svID = svID
        return info
    }
}

/// UBX-NAV-SAT (0x01 0x35, version 1): the satellites in view, 8 + 12 × n bytes.
public enum UBXNavSAT {
    /// Decodes the satellites into `sky` (replacing what it held); returns the epoch's `iTOW`, or
    /// `nil` when the payload is short, of another version, or shorter than its count says.
    public static func decode(payload: borrowing Span<UInt8>, into sky: inout SatelliteList) -> UInt32? {
        typealias L = LittleEndian
        guard payload.count >= 8, L.u8(payload, 4) == 1 else { return nil }
        let count = Int(L.u8(payload, 5))
        guard payload.count >= 8 + 12 * count else { return nil }
        sky.removeAll()
        for index in 0..<count {
            let at = 8 + 12 * index
            let flags = L.u32(payload, at + 8)
            sky.append(UBXGNSS.satellite(gnssID: L.u8(payload, at), svID: L.u8(payload, at + 1), cno: L.u8(payload, at + 2),
                                         elevation: L.i8(payload, at + 3), azimuth: L.i16(payload, at + 4),
                                         used: flags & 0x08 != 0))
        }
        return L.u32(payload, 0)
    }
}

/// UBX-NAV-SIG (0x01 0x43, version 0): the signals tracked, 8 + 16 × n bytes (u-blox 9 and later).
public enum UBXNavSIG {
    /// Decodes the signals into `sky`, one row per signal with its `sigId`, taking elevation and
    /// azimuth from the rows `sky` already holds for the same satellite (a NAV-SAT of the epoch);
    /// returns the epoch's `iTOW`, or `nil` when the payload is short or inconsistent.
    public static func decode(payload: borrowing Span<UInt8>, into sky: inout SatelliteList) -> UInt32? {
        typealias L = LittleEndian
        guard payload.count >= 8, L.u8(payload, 4) == 0 else { return nil }
        let count = Int(L.u8(payload, 5))
        guard payload.count >= 8 + 16 * count else { return nil }
        let satellites = sky
        sky.removeAll()
        for index in 0..<count {
            let at = 8 + 16 * index
            let gnss = L.u8(payload, at), sv = L.u8(payload, at + 1)
            let flags = L.u16(payload, at + 10)
            var row = UBXGNSS.satellite(gnssID: gnss, svID: sv, cno: L.u8(payload, at + 6), elevation: nil, azimuth: nil,
                                        used: flags & 0x08 != 0, signalID: L.u8(payload, at + 2))
            for known in 0..<satellites.count where satellites[known].gnssID == gnss && satellites[known].svID == sv {
                row.elevation = satellites[known].elevation
                row.azimuth = satellites[known].azimuth
                break
            }
            sky.append(row)
        }
        return L.u32(payload, 0)
    }
}
