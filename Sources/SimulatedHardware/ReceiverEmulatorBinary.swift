import HardwareInterfaces
import NMEA
import RealModule

/// The emulator's binary navigation output: UBX NAV-PVT, NAV-SAT (every constellation), TIM-TP and
/// NAV-EOE for the u-blox families, CASIC NAV-PV, NAV-TIMEUTC, NAV-GPSINFO, NAV-BDSINFO and NAV-GLNINFO for CASIC, each epoch after the
/// NMEA, switched by the same commands a real receiver takes (UBX CFG-MSG / CFG-VALSET
/// CFG-MSGOUT keys, CASIC CFG-MSG). Layouts as in Sources/NMEA/Binary, which reads them back.
extension ReceiverEmulator {
    /// The values of one epoch the binary messages carry.
    struct BinaryEpoch {
        var hasFix: Bool
        var latitude: Double
        var longitude: Double
        var altitudeMSL: Double
        var geoidSeparation: Double
        var speed: Double
        var course: Double
        /// Seconds since midnight UTC of the emulated day (2026-05-01, the RMC date).
        var secondsOfDay: Double
        /// Horizontal accuracy the receiver states, metres (the GST sigma's 2D RMS).
        var accuracy: Double
        /// Milliseconds since the emulator started (CASIC's run time).
        var runTime: UInt32
        var epoch: Int
        /// The UTC day (days since 1970) when the receiver runs on a given clock; `nil`: 2026-05-01.
        var daysSinceEpoch: Int? = nil

        /// The UTC date of the epoch.
        var date: CalendarDate { CalendarDate(daysSinceEpoch: daysSinceEpoch ?? 20_574) }  // 20574: 2026-05-01
        /// The epoch's UTC, milliseconds since 1970.
        var unixMilliseconds: Int64 { Int64(date.daysSinceEpoch) * 86_400_000 + Int64((secondsOfDay * 1000).rounded()) }
        /// Differential corrections applied (NAV-PVT diffSoln), and the carrier solution: 0 none, 1 float, 2 fixed (carrSoln).
        var differential = false
        var carrier: UInt8 = 0
        /// The satellites in view, with their used flags as this epoch's solution has them.
        var sky: [EmulatedSatellite] = []
    }

    /// The emulated sky of an epoch (ReceiverEmulatorSky.swift): at the receiver's UTC day and time of
    /// day (its own calendar, 2026-05-01, when `days` is `nil`) from the true position.
    static func sky(days: Int?, secondsOfDay: Double, latitude: Double, longitude: Double) -> [EmulatedSatellite] {
        let unix = Double(days ?? 20_574) * 86_400 + secondsOfDay
        return EmulatedSky.satellites(unixSeconds: unix, latitude: latitude, longitude: longitude)
    }

    /// The UBX messages the emulator sends, by class << 8 | id.
    static let binaryNames: [UInt16: String] = [0x0107: "NAV-PVT", 0x0135: "NAV-SAT", 0x0D01: "TIM-TP", 0x0161: "NAV-EOE"]

    /// Records a binary message's rate from a UBX CFG-MSG (class, id, rate) or CFG-MSGOUT key; returns
    /// whether the message is one the emulator knows.
    @discardableResult
    func setBinary(_ s: inout State, ubxClass: UInt8, id: UInt8, rate: UInt64) -> Bool {
        guard let name = Self.binaryNames[UInt16(ubxClass) << 8 | UInt16(id)] else { return false }
        if rate > 0 { s.binaryOutputs.insert(name) } else { s.binaryOutputs.remove(name) }
        return true
    }

    /// The UBX message a CFG-MSGOUT-*_UART1 key switches, if the emulator sends it.
    static func messageOfKey(_ key: UInt32) -> (UInt8, UInt8)? {
        switch key {
        case 0x2091_0007: return (0x01, 0x07)
        case 0x2091_0016: return (0x01, 0x35)
        case 0x2091_017E: return (0x0D, 0x01)
        case 0x2091_0160: return (0x01, 0x61)
        default: return nil
        }
    }

    /// A CASIC frame from the driver: CFG-MSG for NAV-PV (0x03), NAV-TIMEUTC (0x10), NAV-GPSINFO (0x20),
    /// NAV-BDSINFO (0x21), NAV-GLNINFO (0x22).
    func handleCASIC(_ s: inout State, _ c: UInt8, _ i: UInt8, _ p: [UInt8]) {
        guard s.family == .casic else { return }
        s.commands.append("CASIC \(c) \(i)")
        if c == 0x0B, i == 0x01 { handleCASICAiding(&s, p); return }
        guard c == 0x06, i == 0x01, p.count >= 4, p[0] == 0x01 else { return }
        let names: [UInt8: String] = [0x03: "NAV-PV", 0x10: "NAV-TIMEUTC", 0x20: "NAV-GPSINFO", 0x21: "NAV-BDSINFO", 0x22: "NAV-GLNINFO"]
        guard let name = names[p[1]] else { return }
        if p[2] != 0 || p[3] != 0 { s.binaryOutputs.insert(name) } else { s.binaryOutputs.remove(name) }
    }

    /// The binary frames of one epoch, in the order real receivers send them.
    func binaryFrames(_ s: State, _ e: BinaryEpoch) -> [UInt8] {
        guard !s.binaryOutputs.isEmpty else { return [] }
        let unixMilliseconds = e.unixMilliseconds
        var out: [UInt8] = []
        if s.family == .casic {
            if s.binaryOutputs.contains("NAV-PV") { out += casicFrame(0x01, 0x03, navPV(e)) }
            if s.binaryOutputs.contains("NAV-TIMEUTC") { out += casicFrame(0x01, 0x10, timeUTC(e, unixMilliseconds)) }
            // One satellite message per constellation CASIC has one for (GPS, BeiDou, GLONASS).
            for (id, name, system) in [(UInt8(0x20), "NAV-GPSINFO", Constellation.gps), (0x21, "NAV-BDSINFO", .beidou), (0x22, "NAV-GLNINFO", .glonass)]
            where s.binaryOutputs.contains(name) {
                out += casicFrame(0x01, id, satelliteInfo(e, system))
            }
            return out
        }
        // GPS time of week: 18 leap seconds ahead of UTC, from 1980-01-06.
        let gpsMilliseconds = unixMilliseconds - 315_964_800_000 + 18_000
        let iTOW = UInt32(((gpsMilliseconds % 604_800_000) + 604_800_000) % 604_800_000)
        if s.binaryOutputs.contains("NAV-PVT") { out += ubxFrame(0x01, 0x07, navPVT(e, iTOW: iTOW, unixMilliseconds: unixMilliseconds)) }
        if s.binaryOutputs.contains("NAV-SAT") { out += ubxFrame(0x01, 0x35, navSAT(e, iTOW: iTOW)) }
        if s.binaryOutputs.contains("TIM-TP") {
            var p = LittleEndianWriter(16)
            p.u32(0, (iTOW / 1000 + 1) * 1000)
            p.i32(8, Int32((e.epoch * 7919) % 2001 - 1000))  // quantisation error, ps
            p.u16(12, UInt16(truncatingIfNeeded: gpsMilliseconds / 604_800_000))
            p.u8(14, 0x03)
            out += ubxFrame(0x0D, 0x01, p.bytes)
        }
        if s.binaryOutputs.contains("NAV-EOE") {
            var p = LittleEndianWriter(4)
            p.u32(0, iTOW)
            out += ubxFrame(0x01, 0x61, p.bytes)
        }
        return out
    }

    func navPVT(_ e: BinaryEpoch, iTOW: UInt32, unixMilliseconds: Int64) -> [UInt8] {
        var p = LittleEndianWriter(92)
        let seconds = Int(e.secondsOfDay)
        p.u32(0, iTOW); p.u16(4, UInt16(e.date.year)); p.u8(6, UInt8(e.date.month)); p.u8(7, UInt8(e.date.day))
        p.u8(8, UInt8(seconds / 3600)); p.u8(9, UInt8(seconds / 60 % 60)); p.u8(10, UInt8(seconds % 60))
        p.u8(11, 0x07); p.u32(12, 30)
        p.i32(16, Int32((unixMilliseconds % 1000) * 1_000_000))
        p.u8(20, e.hasFix ? 3 : 0); p.u8(21, e.hasFix ? 0x01 | (e.differential ? 0x02 : 0) | e.carrier << 6 : 0); p.u8(22, 0xE0); p.u8(23, UInt8(clamping: e.sky.filter(\.used).count))
        p.i32(24, LittleEndianWriter.i4(e.longitude * 1e7)); p.i32(28, LittleEndianWriter.i4(e.latitude * 1e7))
        p.i32(32, Int32(((e.altitudeMSL + e.geoidSeparation) * 1000).rounded())); p.i32(36, LittleEndianWriter.i4(e.altitudeMSL * 1000))
        let hAcc = e.hasFix && e.accuracy.isFinite ? max(e.accuracy, 0) : 100_000
        p.u32(40, UInt32(bitPattern: LittleEndianWriter.i4(min(hAcc * 1000, 2e9)))); p.u32(44, UInt32(bitPattern: LittleEndianWriter.i4(min(hAcc * 1500, 2e9))))
        let radians = e.course * Double.pi / 180
        p.i32(48, LittleEndianWriter.i4(e.speed * Double.cos(radians) * 1000)); p.i32(52, LittleEndianWriter.i4(e.speed * Double.sin(radians) * 1000))
        p.i32(60, LittleEndianWriter.i4(e.speed * 1000)); p.i32(64, LittleEndianWriter.i4(e.course * 1e5))
        p.u32(68, 300); p.u32(72, e.speed > 0.5 ? 500_000 : 18_000_000); p.u16(76, 160)
        return p.bytes
    }

    /// NAV-SAT version 1: every satellite in view with its `gnssId`/`svId`, quality indicator 7 (code and
    /// carrier locked) when tracked, the used flag and health "healthy".
    func navSAT(_ e: BinaryEpoch, iTOW: UInt32) -> [UInt8] {
        let sky = Array(e.sky.prefix(255))
        var p = LittleEndianWriter(8 + 12 * sky.count)
        p.u32(0, iTOW); p.u8(4, 1); p.u8(5, UInt8(sky.count))
        for (index, sat) in sky.enumerated() {
            let at = 8 + 12 * index
            p.u8(at, sat.gnssID); p.u8(at + 1, UInt8(truncatingIfNeeded: sat.svid)); p.u8(at + 2, UInt8(clamping: sat.cn0))
            p.i8(at + 3, Int8(clamping: sat.elevation)); p.i16(at + 4, Int16(clamping: sat.azimuth))
            p.u32(at + 8, (sat.used ? 0x08 : 0) | (sat.cn0 > 0 ? 0x07 : 0x01) | 0x10)
        }
        return p.bytes
    }

    func navPV(_ e: BinaryEpoch) -> [UInt8] {
        var p = LittleEndianWriter(80)
        p.u32(0, e.runTime); p.u8(4, e.hasFix ? 7 : 0); p.u8(5, e.hasFix ? 7 : 0); p.u8(7, UInt8(clamping: e.sky.filter(\.used).count))
        p.f32(12, 1.6); p.f64(16, e.longitude); p.f64(24, e.latitude)
        p.f32(32, Float(e.altitudeMSL + e.geoidSeparation)); p.f32(36, Float(e.geoidSeparation))
        p.f32(40, Float(e.accuracy * e.accuracy)); p.f32(44, Float(2.25 * e.accuracy * e.accuracy))
        let radians = e.course * Double.pi / 180
        p.f32(48, Float(e.speed * Double.cos(radians))); p.f32(52, Float(e.speed * Double.sin(radians)))
        p.f32(60, Float(e.speed)); p.f32(64, Float(e.speed)); p.f32(68, Float(e.course))
        p.f32(72, 0.09); p.f32(76, e.speed > 0.5 ? 25 : 1e6)
        return p.bytes
    }

    func timeUTC(_ e: BinaryEpoch, _ unixMilliseconds: Int64) -> [UInt8] {
        var p = LittleEndianWriter(24)
        let seconds = Int(e.secondsOfDay)
        p.u32(0, e.runTime); p.u16(12, UInt16(unixMilliseconds % 1000)); p.u16(14, UInt16(e.date.year)); p.u8(16, UInt8(e.date.month)); p.u8(17, UInt8(e.date.day))
        p.u8(18, UInt8(seconds / 3600)); p.u8(19, UInt8(seconds / 60 % 60)); p.u8(20, UInt8(seconds % 60))
        p.u8(21, 0x07); p.u8(23, 3)
        return p.bytes
    }

    /// NAV-GPSINFO, NAV-BDSINFO or NAV-GLNINFO: the satellites of one constellation (CASIC has no SBAS
    /// or Galileo message), svid in u-blox numbering.
    func satelliteInfo(_ e: BinaryEpoch, _ system: Constellation) -> [UInt8] {
        let sky = e.sky.filter { $0.constellation == system }.prefix(64)
        var p = LittleEndianWriter(8 + 12 * sky.count)
        p.u32(0, e.runTime); p.u8(4, UInt8(sky.count)); p.u8(5, UInt8(sky.filter(\.used).count))
        for (index, sat) in sky.enumerated() {
            let at = 8 + 12 * index
            p.u8(at, UInt8(index)); p.u8(at + 1, UInt8(truncatingIfNeeded: sat.svid)); p.u16(at + 2, sat.used ? 0x61C1 : 0x0100)
            p.u8(at + 4, UInt8(clamping: sat.cn0)); p.i8(at + 5, Int8(clamping: sat.elevation)); p.i16(at + 6, Int16(clamping: sat.azimuth))
        }
        return p.bytes
    }

    func casicFrame(_ c: UInt8, _ i: UInt8, _ payload: [UInt8]) -> [UInt8] {
        CASICFrame.encode(class: c, id: i, payload: payload)
    }
}

/// A little-endian payload under construction.
struct LittleEndianWriter {
    /// `value` rounded into an I4 field, clamped (a non-finite value writes 0).
    static func i4(_ value: Double) -> Int32 {
        guard value.isFinite else { return 0 }
        return Int32(max(Double(Int32.min), min(Double(Int32.max), value.rounded())))
    }

    var bytes: [UInt8]
    init(_ count: Int) { bytes = [UInt8](repeating: 0, count: count) }
    mutating func u8(_ at: Int, _ v: UInt8) { bytes[at] = v }
    mutating func i8(_ at: Int, _ v: Int8) { bytes[at] = UInt8(bitPattern: v) }
    mutating func u16(_ at: Int, _ v: UInt16) { bytes[at] = UInt8(v & 0xFF); bytes[at + 1] = UInt8(v >> 8) }
    mutating func i16(_ at: Int, _ v: Int16) { u16(at, UInt16(bitPattern: v)) }
    mutating func u32(_ at: Int, _ v: UInt32) { for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) } }
    mutating func i32(_ at: Int, _ v: Int32) { u32(at, UInt32(bitPattern: v)) }
    mutating func f32(_ at: Int, _ v: Float) { u32(at, v.bitPattern) }
    mutating func f64(_ at: Int, _ v: Double) {
        for k in 0..<8 { bytes[at + k] = UInt8(truncatingIfNeeded: v.bitPattern >> (8 * UInt64(k))) }
    }
}
