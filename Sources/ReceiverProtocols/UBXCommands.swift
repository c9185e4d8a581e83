/// A u-blox configuration key (CFG-VALSET/VALGET, M9 and M10) with its value size.
public struct UBXKey: Hashable, Sendable {
    /// The 32-bit key id; bits 28-30 give the value size.
    public let id: UInt32

    /// Creates a key.
    public init(_ id: UInt32) { self.id = id }

    /// Bytes of the value: 1 (L, U1, E1), 2 (U2), 4 (U4) or 8, from the key's size field.
    public var valueSize: Int {
        switch (id >> 28) & 0x7 {
        case 1, 2: return 1
        case 3: return 2
        case 4: return 4
        case 5: return 8
        default: return 1
        }
    }

    /// CFG-RATE-MEAS, U2 ms.
    public static let rateMeasurement = UBXKey(0x3021_0001)
    /// CFG-RATE-NAV, U2 cycles.
    public static let rateNavigation = UBXKey(0x3021_0002)
    /// CFG-UART1-BAUDRATE, U4.
    public static let uart1BaudRate = UBXKey(0x4052_0001)
    /// CFG-PM-OPERATEMODE, E1 (0 full, 1 PSMOO, 2 PSMCT).
    public static let pmOperateMode = UBXKey(0x20D0_0001)
    /// CFG-PM-POSUPDATEPERIOD, U4 s.
    public static let pmPositionUpdatePeriod = UBXKey(0x40D0_0002)
    /// CFG-PM-ACQPERIOD, U4 s.
    public static let pmAcquisitionPeriod = UBXKey(0x40D0_0003)
    /// CFG-PM-ONTIME, U2 s.
    public static let pmOnTime = UBXKey(0x30D0_0005)
    /// CFG-PM-MAXACQTIME, U1 s.
    public static let pmMaximumAcquisitionTime = UBXKey(0x20D0_0007)
    /// CFG-PM-UPDATEEPH, L.
    public static let pmUpdateEphemeris = UBXKey(0x10D0_000A)
    /// CFG-PM-LIMITPEAKCURR, L.
    public static let pmLimitPeakCurrent = UBXKey(0x10D0_0010)
    /// CFG-SIGNAL-SBAS_ENA, L.
    public static let sbasEnable = UBXKey(0x1031_0020)
    /// CFG-NAVSPG-DYNMODEL, E1.
    public static let dynamicModel = UBXKey(0x2011_0021)

    /// CFG-MSGOUT-NMEA_ID_*_UART1 keys by sentence type.
    public static func nmeaOutput(_ sentence: NMEASentenceType) -> UBXKey {
        switch sentence {
        case .gga: return UBXKey(0x2091_00BB)
        case .rmc: return UBXKey(0x2091_00AC)
        case .gsa: return UBXKey(0x2091_00C0)
        case .gsv: return UBXKey(0x2091_00C5)
        case .gll: return UBXKey(0x2091_00CA)
        case .vtg: return UBXKey(0x2091_00B1)
        case .zda: return UBXKey(0x2091_00D9)
        case .gst: return UBXKey(0x2091_00D4)
        }
    }
}

/// The NMEA sentences a receiver can be told to output.
public enum NMEASentenceType: String, Sendable, Hashable, CaseIterable {
    case gga, gll, gsa, gsv, rmc, vtg, gst, zda

    /// The u-blox class 0xF0 message id.
    public var ubloxMessageID: UInt8 {
        switch self {
        case .gga: return 0x00
        case .gll: return 0x01
        case .gsa: return 0x02
        case .gsv: return 0x03
        case .rmc: return 0x04
        case .vtg: return 0x05
        case .gst: return 0x07
        case .zda: return 0x08
        }
    }
}

/// Where a CFG-VALSET writes: RAM, battery-backed RAM, flash.
public struct UBXLayers: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The running configuration.
    public static let ram = UBXLayers(rawValue: 1)
    /// Battery-backed RAM (kept while V_BCKP is powered).
    public static let bbr = UBXLayers(rawValue: 2)
    /// Flash (not on the M10).
    public static let flash = UBXLayers(rawValue: 4)
}

/// How a u-blox receiver restarts (UBX-CFG-RST navBbrMask).
public enum RestartKind: String, Sendable, Hashable, CaseIterable {
    /// Keep everything.
    case hot
    /// Clear ephemerides.
    case warm
    /// Clear everything.
    case cold
}

extension UBXMessage {
    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// UBX-CFG-RATE (u-blox 6/7/M8, accepted by M9): measurement period in ms (25...65535),
    /// one navigation solution per measurement, UTC time reference.
    public static func rate(milliseconds: UInt16) -> UBXMessage {
        UBXMessage(class: 0x06, id: 0x08, payload: u16(milliseconds) + u16(1) + u16(1))
    }

    /// UBX-CFG-MSG short form: output `sentence` every `rate` epochs on the port the command arrives on.
    public static func nmeaOutput(_ sentence: NMEASentenceType, rate: UInt8) -> UBXMessage {
        UBXMessage(class: 0x06, id: 0x01, payload: [0xF0, sentence.ubloxMessageID, rate])
    }

    /// UBX-CFG-PRT for UART1: 8N1 at `baudRate`, UBX and NMEA in and out.
    public static func uartPort(baudRate: UInt32) -> UBXMessage {
        UBXMessage(class: 0x06, id: 0x00,
                   payload: [0x01, 0x00] + u16(0) + u32(0x0000_08C0) + u32(baudRate) + u16(0x0003) + u16(0x0003) + u16(0) + u16(0))
    }

    /// UBX-CFG-RXM: 0 continuous, 1 power save (per CFG-PM2), 4 eco (u-blox 6).
    public static func receiverMode(lowPowerMode: UInt8) -> UBXMessage {
        UBXMessage(class: 0x06, id: 0x11, payload: [0x08, lowPowerMode])
    }

    /// UBX-CFG-PM2 version 1 (u-blox 6 FW7+, 7, M8). `cyclic` selects cyclic tracking (PSMCT),
    /// otherwise ON/OFF (PSMOO); flags add limitPeakCurr and updateEPH, and doNotEnterOff for cyclic.
    public static func powerManagement(cyclic: Bool, updatePeriod: UInt32, searchPeriod: UInt32, onTime: UInt16) -> UBXMessage {
        let flags: UInt32 = cyclic ? 0x0003_1100 : 0x0000_1100
        var payload: [UInt8] = [0x01, 0x00, 0x00, 0x00] + u32(flags) + u32(updatePeriod) + u32(searchPeriod) + u32(0) + u16(onTime) + u16(0)
        payload += [UInt8](repeating: 0, count: 20)
        return UBXMessage(class: 0x06, id: 0x3B, payload: payload)
    }

    /// UBX-CFG-PMS (M8, protVer 18+): 0 full, 1 balanced, 2 interval, 3/4/5 aggressive 1/2/4 Hz.
    public static func powerSetup(_ value: UInt8, period: UInt16 = 0, onTime: UInt16 = 0) -> UBXMessage {
        UBXMessage(class: 0x06, id: 0x86, payload: [0x00, value] + u16(period) + u16(onTime) + u16(0))
    }

    /// UBX-CFG-VALSET (M9, M10): key/value pairs into `layers` (at most 64 pairs).
    public static func setValues(_ values: [(UBXKey, UInt64)], layers: UBXLayers = [.ram, .bbr]) -> UBXMessage {
        var payload: [UInt8] = [0x00, layers.rawValue, 0x00, 0x00]
        for (key, value) in values.prefix(64) {
            payload += u32(key.id)
            payload += (0..<key.valueSize).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
        }
        return UBXMessage(class: 0x06, id: 0x8A, payload: payload)
    }

    /// UBX-CFG-VALGET from RAM.
    public static func getValues(_ keys: [UBXKey]) -> UBXMessage {
        UBXMessage(class: 0x06, id: 0x8B, payload: [0x00, 0x00, 0x00, 0x00] + keys.prefix(64).flatMap { u32($0.id) })
    }

    /// UBX-RXM-PMREQ, 8-byte form (u-blox 6/7/M8): backup for `milliseconds` (0 = until woken).
    public static func sleepRequestShort(milliseconds: UInt32) -> UBXMessage {
        UBXMessage(class: 0x02, id: 0x41, payload: u32(milliseconds) + u32(0x02))
    }

    /// Wake sources of the 16-byte RXM-PMREQ.
    public struct WakeSources: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// An edge on the UART RX line.
        public static let uartRX = WakeSources(rawValue: 1 << 3)
        /// EXTINT0.
        public static let extint0 = WakeSources(rawValue: 1 << 5)
        /// EXTINT1.
        public static let extint1 = WakeSources(rawValue: 1 << 6)
        /// SPI chip select.
        public static let spiCS = WakeSources(rawValue: 1 << 7)
    }

    /// UBX-RXM-PMREQ, 16-byte form (the only form on the M10): backup + force for
    /// `milliseconds` (0 = until a wake source), woken by `wake`.
    public static func sleepRequest(milliseconds: UInt32, wake: WakeSources) -> UBXMessage {
        UBXMessage(class: 0x02, id: 0x41, payload: [0, 0, 0, 0] + u32(milliseconds) + u32(0x06) + u32(wake.rawValue))
    }

    /// UBX-CFG-RST: restart the GNSS part (resetMode 0x02) keeping what `kind` keeps.
    public static func restart(_ kind: RestartKind) -> UBXMessage {
        let mask: UInt16 = kind == .hot ? 0x0000 : (kind == .warm ? 0x0001 : 0xFFFF)
        return UBXMessage(class: 0x06, id: 0x04, payload: u16(mask) + [0x02, 0x00])
    }

    /// UBX-CFG-RST controlled GNSS stop (0x08) or start (0x09): the CPU and UART stay up.
    public static func gnss(running: Bool) -> UBXMessage {
        UBXMessage(class: 0x06, id: 0x04, payload: [0x00, 0x00, running ? 0x09 : 0x08, 0x00])
    }

    /// UBX-CFG-CFG: save the whole configuration to `devices` (bits: 0 BBR, 1 flash, 2 EEPROM, 4 SPI flash).
    public static func saveConfiguration(devices: UInt8) -> UBXMessage {
        UBXMessage(class: 0x06, id: 0x09, payload: u32(0) + u32(0xFFFF) + u32(0) + [devices])
    }

    /// Whether the receiver acknowledges this message with ACK-ACK/NAK (CFG messages do, except
    /// CFG-RST; RXM-PMREQ does not: the receiver goes to sleep).
    public var expectsAcknowledgement: Bool { messageClass == 0x06 && id != 0x04 }
}

/// MediaTek PMTK commands (MT3339, MT3333; Quectel L76/L80/L96, Adafruit Ultimate GPS).
public enum PMTK {
    /// `$PMTK220,<ms>`: NMEA output interval (100...10000 ms).
    public static func rate(milliseconds: Int) -> NMEACommand { NMEACommand("PMTK220", milliseconds) }

    /// `$PMTK314,...`: output every Nth fix per sentence, in MediaTek's field order
    /// (GLL, RMC, VTG, GGA, GSA, GSV, then reserved up to ZDA at 17 and MCHN at 18).
    public static func outputs(_ rates: [NMEASentenceType: Int]) -> NMEACommand {
        var fields = [Int](repeating: 0, count: 19)
        let position: [NMEASentenceType: Int] = [.gll: 0, .rmc: 1, .vtg: 2, .gga: 3, .gsa: 4, .gsv: 5, .gst: 7, .zda: 17]
        for (sentence, rate) in rates { if let p = position[sentence] { fields[p] = max(0, min(5, rate)) } }
        return NMEACommand("PMTK314," + fields.map(String.init).joined(separator: ","))
    }

    /// `$PMTK161,0`: standby (RF, baseband and TCXO off); any byte wakes it.
    public static let standby = NMEACommand("PMTK161,0")
    /// `$PMTK225,0`: back to normal mode (leave periodic or AlwaysLocate).
    public static let normalMode = NMEACommand("PMTK225,0")
    /// `$PMTK225,4`: perpetual backup; only FORCE_ON or a supply cycle wakes it.
    public static let perpetualBackup = NMEACommand("PMTK225,4")
    /// `$PMTK225,8`: AlwaysLocate standby.
    public static let alwaysLocate = NMEACommand("PMTK225,8")

    /// `$PMTK225,<type>,<run ms>,<sleep ms>,<2nd run>,<2nd sleep>`: periodic mode (1 backup, 2 standby).
    public static func periodic(standby: Bool, run: Int, sleep: Int, secondRun: Int = 0, secondSleep: Int = 0) -> NMEACommand {
        NMEACommand("PMTK225", standby ? 2 : 1, run, sleep, secondRun, secondSleep)
    }

    /// `$PMTK101` hot, `$PMTK102` warm, `$PMTK103` cold restart.
    public static func restart(_ kind: RestartKind) -> NMEACommand {
        NMEACommand(kind == .hot ? "PMTK101" : (kind == .warm ? "PMTK102" : "PMTK103"))
    }

    /// `$PMTK104`: full cold restart, which also clears the receiver's saved settings.
    public static let fullColdRestart = NMEACommand("PMTK104")

    /// `$PMTK251,<baud>`: line rate.
    public static func baudRate(_ baud: Int) -> NMEACommand { NMEACommand("PMTK251", baud) }

    /// `$PMTK605`: firmware query, answered by `$PMTK705`.
    public static let queryFirmware = NMEACommand("PMTK605")

    /// The command number a `$PMTK001,<cmd>,<flag>` acknowledges, and whether the flag means
    /// success (3). Flag 0 invalid, 1 unsupported, 2 valid but failed.
    public static func acknowledgement(_ sentence: String) -> (command: Int, flag: Int)? {
        let body = sentence.split(separator: "*", maxSplits: 1).first.map(String.init) ?? sentence
        let fields = body.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count >= 3, fields[0] == "$PMTK001", let command = Int(fields[1]), let flag = Int(fields[2]) else { return nil }
        return (command, flag)
    }
}

/// CASIC `$PCAS` commands (AT6558: Quectel L76K, ATGM336H). They are not acknowledged: the
/// effect must be observed in the output.
public enum PCAS {
    /// `$PCAS02,<ms>`: fix interval; only 200, 500 and 1000 ms are legal (`nil` otherwise).
    public static func rate(milliseconds: Int) -> NMEACommand? {
        [200, 500, 1000].contains(milliseconds) ? NMEACommand("PCAS02", milliseconds) : nil
    }

    /// `$PCAS03,...`: output every Nth fix, in CASIC's order GGA, GLL, GSA, GSV, RMC, VTG, ZDA,
    /// ANT, DHV, LPS, (two reserved), UTC, GST.
    public static func outputs(_ rates: [NMEASentenceType: Int]) -> NMEACommand {
        let r = { (s: NMEASentenceType) in String(max(0, min(9, rates[s] ?? 0))) }
        let fields = [r(.gga), r(.gll), r(.gsa), r(.gsv), r(.rmc), r(.vtg), r(.zda), "0", "0", "0", "", "", "0", r(.gst)]
        return NMEACommand("PCAS03," + fields.joined(separator: ","))
    }

    /// `$PCAS10,<n>`: 0 hot, 1 warm, 2 cold restart.
    public static func restart(_ kind: RestartKind) -> NMEACommand {
        NMEACommand("PCAS10", kind == .hot ? 0 : (kind == .warm ? 1 : 2))
    }

    /// `$PCAS12,<seconds>`: standby for up to 65535 s (module support varies).
    public static func standby(seconds: Int) -> NMEACommand { NMEACommand("PCAS12", max(0, min(65535, seconds))) }

    /// `$PCAS01,<n>`: line rate as CASIC's enumeration (4800 ... 115200); `nil` for other rates.
    public static func baudRate(_ baud: Int) -> NMEACommand? {
        guard let code = [4800, 9600, 19200, 38400, 57600, 115200].firstIndex(of: baud) else { return nil }
        return NMEACommand("PCAS01", code)
    }

    /// `$PCAS06,0`: software version query, answered by `$GPTXT,...,SW=`.
    public static let queryFirmware = NMEACommand("PCAS06,0")
}
