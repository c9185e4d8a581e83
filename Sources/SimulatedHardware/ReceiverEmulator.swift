import HardwareInterfaces
import NMEA
import PowerPolicy
import RealModule
import Synchronization

/// A GNSS receiver that obeys its family's command set on a serial port: u-blox UBX (legacy CFG
/// messages on the u-blox 8, CFG-VALSET keys on the M10, each ACKed or NAKed as the real
/// generation does, RXM-PMREQ sleep, CFG-RST, MON-VER), MediaTek PMTK (every command answered
/// by `$PMTK001`, `$PMTK161` standby, `$PMTK225` modes, `$PMTK605`) or CASIC PCAS (no
/// acknowledgements; 200/500/1000 ms rates only). It follows a ``Trajectory`` and draws its
/// fixes, power states, currents and start times from a ``GNSSReceiverModel``; in power-save
/// (cyclic tracking) it sometimes loses its fix for a while, as real receivers do. Any byte wakes
/// it from software standby (the byte is eaten). It implements ``SimulatedSerialPeer``, so it runs
/// behind a ``SimulatedSerialPort`` on a manual clock, or behind a pseudo-terminal with a pump.
public final class ReceiverEmulator: SimulatedSerialPeer, @unchecked Sendable {
    /// The command set.
    public enum Family: String, Sendable, Hashable {
        /// u-blox 8 (legacy CFG messages; VALSET refused).
        case ublox8
        /// u-blox M9 (NEO-M9N: configured with CFG-VALSET keys, as the M10 here).
        case ublox9
        /// u-blox M10 (CFG-VALSET only; legacy CFG refused).
        case ublox10
        /// MediaTek MT3339 (PMTK).
        case mediatek
        /// CASIC AT6558 (PCAS).
        case casic
    }

    struct State {
        var family: Family
        var model: GNSSReceiverModel
        var trajectory: Trajectory
        var start: MonotonicInstant
        var interval: Duration = .seconds(1)
        var nextEpoch: MonotonicInstant
        var modelSecond = 0
        var outputs: Set<String> = ["GGA", "RMC", "GSA", "GSV"]
        /// Binary navigation messages switched on (ReceiverEmulatorBinary.swift): none at power-up.
        var binaryOutputs: Set<String> = []
        /// The dynamic model, in the family's numbering (ReceiverEmulatorSettings.swift).
        var dynamicModel = 0
        var powerSave = false
        var asleep = false
        var powered = true
        var wakeAt: MonotonicInstant? = nil
        var fixLostUntil: Double = -1
        /// Windows without sky, seconds since `start`: `from` up to (not including) `until`.
        var skyOutages: [(from: Double, until: Double)] = []
        var pending: [(at: MonotonicInstant, bytes: [UInt8])] = []
        var input: [UInt8] = []
        var commands: [String] = []
        var bytesReceived = 0
        /// The non-volatile configuration (u-blox BBR/flash), applied at each power-up.
        var saved: SavedConfiguration? = nil
        /// The RAM configuration when the supply was last switched off.
        var configurationAtPowerOff: SavedConfiguration? = nil
        var ledger = EnergyLedger()
        var lastAccounted: MonotonicInstant
        var epochs = 0
        var random: SplitMix64
        var lastError = (north: 0.0, east: 0.0, accuracy: 0.0)
        var altitude = 12.0
        var geoidSeparation = 47.0
        /// The receiver's UTC (nanoseconds since 1970) at a manual-clock instant, when it follows a
        /// given clock (``setUTC(_:at:)``); `nil`: its own calendar, 2026-05-01 from 12:00 at `start`.
        var utcAnchor: (instant: MonotonicInstant, utc: Int64)?
        /// RTCM 3 corrections received (ReceiverEmulatorCorrections.swift).
        var corrections = EmulatedCorrections()
        /// Aiding received, as text (ReceiverEmulatorAiding.swift).
        var aidingReceived: [String] = []
        /// The data-batching buffer (ReceiverEmulatorBatch.swift), `nil` while batching is off.
        var batch: EmulatedBatch? = nil
    }

    let state: Mutex<State>

    /// Creates a receiver of `family` with `profile`'s currents, following `trajectory` from
    /// `start`, with fresh ephemerides: awake and starting hot, or asleep in backup when `awake`
    /// is false (the first wake is a hot start).
    /// With `tracking`, it starts with a fix already (a receiver that has been running).
    public init(family: Family, profile: ReceiverProfile, trajectory: Trajectory, start: MonotonicInstant,
                awake: Bool = true, tracking: Bool = false, seed: UInt64 = 1) {
        var model = GNSSReceiverModel(profile: profile, state: tracking ? .tracking : .backup, hasEphemeris: true, seed: seed)
        // MediaTek EASY runs by default; u-blox AssistNow Autonomous waits to be switched on.
        model.predictionsEnabled = family == .mediatek
        if awake && !tracking { model.wake() }
        var initial = State(family: family, model: model, trajectory: trajectory, start: start,
                            nextEpoch: start.advanced(by: .seconds(1)), lastAccounted: start, random: SplitMix64(seed: seed ^ 0x5A5A))
        // CASIC modules report their antenna every second (`$PCAS03`'s ANT field, on at power-up).
        if family == .casic { initial.outputs.insert("ANT") }
        state = Mutex(initial)
    }

    /// Sets the antenna's height above mean sea level and the geoid separation the receiver
    /// reports (GGA fields 9 and 11), metres.
    public func setAltitude(_ metres: Double, geoidSeparation: Double = 47) {
        state.withLock { $0.altitude = metres; $0.geoidSeparation = geoidSeparation }
    }

    /// Takes the sky away for `seconds` from `start` seconds after the emulator's start (a tunnel,
    /// dense canopy): the receiver keeps sending its epochs, without a fix (GGA quality 0, RMC
    /// status V, GSA mode 1), and has its fix again from the window's end.
    public func addSkyOutage(from start: Double, seconds: Double) {
        guard start.isFinite, seconds.isFinite, seconds > 0 else { return }
        state.withLock { $0.skyOutages.append((start, start + seconds)) }
    }

    /// The receiver's charge per state so far (mAh), for energy accounting.
    public var ledger: EnergyLedger { state.withLock { $0.ledger } }
    /// Its power state now.
    public var powerState: SimulatedReceiverState { state.withLock { $0.model.state } }
    /// The commands it understood, in order (NMEA bodies, or `UBX cc ii`).
    public var commands: [String] { state.withLock { $0.commands } }
    /// The current navigation interval.
    public var interval: Duration { state.withLock { $0.interval } }
    /// Whether it is in power-save (cyclic tracking).
    public var isPowerSaving: Bool { state.withLock { $0.powerSave } }
    /// Epochs sent.
    public var epochCount: Int { state.withLock { $0.epochs } }
    /// Age of the ephemerides the receiver holds, seconds (`nil` when it has none).
    public var ephemerisAge: Double? { state.withLock { $0.model.ephemerisAge } }
    /// Starts by kind so far.
    public var starts: [StartKind: Int] { state.withLock { $0.model.starts } }

    /// The supply-enable line of this receiver, as a board's power-enable GPIO: high powers it.
    public func powerLine(clock: any MonotonicClock) -> any GPIOLine { EmulatedPowerLine(receiver: self, clock: clock) }

    /// Switches the supply (the board's power-enable line): off keeps only the backup rail.
    public func setPower(_ on: Bool, at instant: MonotonicInstant) {
        state.withLock { s in
            advance(&s, to: instant)
            if !on && s.powered {
                s.configurationAtPowerOff = configuration(of: s)
                resetConfiguration(&s)
                loadSaved(&s)
            }
            let wasPowered = s.powered
            s.powered = on
            if on {
                // A supply switched on boots the receiver: it prints its start-up banner.
                if !wasPowered { s.pending.append((instant.advanced(by: .milliseconds(300)), bootBanner(s.family))) }
                s.model.wake()
                s.asleep = false
                s.nextEpoch = instant.advanced(by: s.interval)
            } else {
                s.model.sleep(.backup)
            }
        }
    }

    // MARK: SimulatedSerialPeer

    public func nextTransmission(after instant: MonotonicInstant) -> MonotonicInstant? {
        state.withLock { s in
            let pending = s.pending.map(\.at).filter { $0 > instant }.min()
            let epoch: MonotonicInstant? = (s.powered && !s.asleep) ? max(s.nextEpoch, instant.advanced(by: .nanoseconds(1))) : s.wakeAt
            return [pending, epoch].compactMap { $0 }.min()
        }
    }

    public func transmit(upTo instant: MonotonicInstant) -> [UInt8] {
        state.withLock { s in
            var out: [(MonotonicInstant, [UInt8])] = s.pending.filter { $0.at <= instant }.map { ($0.at, $0.bytes) }
            s.pending.removeAll { $0.at <= instant }
            if let wake = s.wakeAt, wake <= instant, s.asleep {
                s.asleep = false
                s.wakeAt = nil
                s.model.wake()
                s.nextEpoch = wake.advanced(by: s.interval)
            }
            var guardCount = 0
            while s.powered && !s.asleep && s.nextEpoch <= instant && guardCount < 100_000 {
                let at = s.nextEpoch
                advance(&s, to: at)
                out.append((at, epoch(&s, at: at)))
                s.epochs += 1
                s.nextEpoch = at.advanced(by: s.interval)
                guardCount += 1
            }
            advance(&s, to: instant)
            return out.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }

    public func receive(_ bytes: [UInt8], at instant: MonotonicInstant) {
        state.withLock { s in
            advance(&s, to: instant)
            s.bytesReceived += bytes.count
            guard s.powered else { return }
            var bytes = bytes
            if s.asleep {
                // The first edge on RX wakes the receiver and is lost.
                s.asleep = false
                s.wakeAt = nil
                s.model.wake()
                s.nextEpoch = instant.advanced(by: s.interval)
                if s.family == .mediatek { s.pending.append((instant.advanced(by: .milliseconds(100)), sentence("PMTK010,002"))) }
                bytes.removeFirst()
            }
            s.input += bytes
            handleInput(&s, at: instant)
        }
    }

    // MARK: internals

    /// Moves the model and the energy account forward to `instant`, one model second at a time.
    func advance(_ s: inout State, to instant: MonotonicInstant) {
        guard instant > s.lastAccounted else { return }
        let seconds = (instant - s.lastAccounted).secondsDouble
        s.ledger.add(.receiver, state: s.model.state.rawValue, current: s.model.current, seconds: seconds)
        s.lastAccounted = instant
        let target = Int((instant - s.start).secondsDouble.rounded(.down))
        while s.modelSecond < target {
            s.modelSecond += 1
            if let e = s.model.step(cyclicWanted: s.powerSave) { s.lastError = e }
            if s.powerSave && s.model.hasFix && s.fixLostUntil < Double(s.modelSecond) && s.random.uniform() < 1.0 / 900 {
                // Power-save modes acquire no new satellites: now and then the fix is lost for a while.
                s.fixLostUntil = Double(s.modelSecond) + 20 + 40 * s.random.uniform()
            }
        }
    }

    func epoch(_ s: inout State, at instant: MonotonicInstant) -> [UInt8] {
        let seconds = (instant - s.start).secondsDouble
        let truth = s.trajectory.at(seconds)
        let lost = seconds < s.fixLostUntil || s.skyOutages.contains { seconds >= $0.from && seconds < $0.until }
        let hasFix = s.model.hasFix && !lost
        let quality = hasFix ? s.corrections.quality(at: instant) : 0
        let scale = EmulatedCorrections.errorScale(quality)
        let earth = 6_371_008.8
        let lat = truth.latitude + s.lastError.north * scale / earth * 180 / Double.pi
        let lon = truth.longitude + s.lastError.east * scale / (earth * Double.cos(truth.latitude * Double.pi / 180)) * 180 / Double.pi
        var secondsOfDay = (43_200 + seconds).truncatingRemainder(dividingBy: 86_400)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var whole = Int(secondsOfDay)
        var hundredths = Int(((secondsOfDay - Double(whole)) * 100).rounded()) % 100
        var dateText = "010526"
        var days: Int?
        if let clock = utcClock(s, at: instant) {
            (secondsOfDay, whole, hundredths) = (clock.secondsOfDay, clock.whole, clock.hundredths)
            days = clock.days
            dateText = two(clock.date.day) + two(clock.date.month) + two(clock.date.year % 100)
        }
        let time = two(whole / 3600) + two(whole / 60 % 60) + two(whole % 60) + "." + two(hundredths)
        func angle(_ value: Double, _ digits: Int) -> String {
            let a = abs(value)
            let d = Int(a)
            let m = (a - Double(d)) * 60
            var degrees = "\(d)"
            while degrees.count < digits { degrees = "0" + degrees }
            let minutes = Int((m * 100_000).rounded())
            var text = "\(minutes / 100_000)"
            if text.count < 2 { text = "0" + text }
            var fraction = "\(minutes % 100_000)"
            while fraction.count < 5 { fraction = "0" + fraction }
            return degrees + text + "." + fraction
        }
        let latText = hasFix ? angle(lat, 2) + (lat >= 0 ? ",N" : ",S") : ","
        let lonText = hasFix ? angle(lon, 3) + (lon >= 0 ? ",E" : ",W") : ","
        // A multi-GNSS receiver (NMEA 4.10/4.11): GN for the combined solution, GSA per system,
        // GSV per talker with signal IDs (ReceiverEmulatorSky.swift).
        let talker = "GN"
        let sky = Self.sky(days: days, secondsOfDay: secondsOfDay, latitude: truth.latitude, longitude: truth.longitude)
        let usedCount = hasFix ? sky.filter(\.used).count : 0
        var out: [UInt8] = []
        if s.outputs.contains("GGA") {
            // Fields 13 and 14: the corrections' age and the reference station, while differential.
            var differential = ","
            if quality >= 2, let last = s.corrections.lastAt {
                differential = "\(fmt((instant - last).secondsDouble)),\(s.corrections.station.map { String(String(10_000 + $0).dropFirst()) } ?? "")"
            }
            let used = usedCount < 10 ? "0\(usedCount)" : "\(usedCount)"
            out += sentence("\(talker)GGA,\(time),\(latText),\(lonText),\(quality),\(used),\(hasFix ? "0.9" : ""),\(hasFix ? "\(fmt(s.altitude)),M,\(fmt(s.geoidSeparation)),M" : ",,,"),\(differential)")
        }
        for body in EmulatedSky.sentences(sky, fix: hasFix ? 3 : 1, dops: "1.6,0.9,1.3", gsa: s.outputs.contains("GSA"), gsv: s.outputs.contains("GSV")) {
            out += sentence(body)
        }
        if s.outputs.contains("GST"), hasFix {
            let sigma = s.lastError.accuracy * scale / 2.45
            out += sentence("\(talker)GST,\(time),\(fmt(sigma)),\(fmt(sigma)),\(fmt(sigma)),0.0,\(fmt(sigma)),\(fmt(sigma)),\(fmt(sigma * 1.5))")
        }
        if s.outputs.contains("RMC") {
            out += sentence("\(talker)RMC,\(time),\(hasFix ? "A" : "V"),\(latText),\(lonText),\(fmt(truth.speed / 0.514444)),\(fmt(truth.course)),\(dateText),,,\(hasFix ? "A" : "N")")
        }
        if s.family == .casic && s.outputs.contains("ANT") { out += sentence("GPTXT,01,01,01,ANTENNA OK") }
        let binary = BinaryEpoch(hasFix: hasFix, latitude: lat, longitude: lon, altitudeMSL: s.altitude,
                                 geoidSeparation: s.geoidSeparation, speed: truth.speed, course: truth.course,
                                 secondsOfDay: secondsOfDay, accuracy: s.lastError.accuracy * scale / 2.45 * 2.0.squareRoot(),
                                 runTime: UInt32(truncatingIfNeeded: Int64(seconds * 1000)), epoch: s.epochs,
                                 daysSinceEpoch: days, differential: quality >= 2, carrier: quality == 5 ? 1 : quality == 4 ? 2 : 0,
                                 sky: hasFix ? sky : sky.map { var sat = $0; sat.used = false; return sat })
        out += binaryFrames(s, binary)
        keepInBatch(&s, binary)
        return out
    }

    func fmt(_ v: Double) -> String {
        let scaled = Int((abs(v) * 100).rounded())
        let fraction = scaled % 100
        return (v < 0 ? "-" : "") + "\(scaled / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }

    struct Sink: NMEAFramerSink {
        var sentences: [String] = []
        var ubx: [(UInt8, UInt8, [UInt8])] = []
        mutating func framer(sentence: Span<UInt8>) {
            var b: [UInt8] = []
            for i in sentence.indices { b.append(sentence[i]) }
            sentences.append(String(decoding: b, as: UTF8.self))
        }
        mutating func framer(ubxClass: UInt8, id: UInt8, payload: Span<UInt8>) {
            var b: [UInt8] = []
            for i in payload.indices { b.append(payload[i]) }
            ubx.append((ubxClass, id, b))
        }
        var casic: [(UInt8, UInt8, [UInt8])] = []
        mutating func framer(casicClass: UInt8, id: UInt8, payload: Span<UInt8>) {
            var b: [UInt8] = []
            for i in payload.indices { b.append(payload[i]) }
            casic.append((casicClass, id, b))
        }
    }

    func handleInput(_ s: inout State, at instant: MonotonicInstant) {
        let unfinishedFrame = takeRTCM(&s, at: instant)
        defer { s.input += unfinishedFrame }
        let framer = NMEAFramer()
        var sink = Sink()
        // Complete frames only: keep an unterminated tail for the next call.
        var cut = s.input.count
        if let lastNewline = s.input.lastIndex(of: 0x0A) { cut = lastNewline + 1 } else if s.input.first == 0x24 { cut = 0 }
        if s.input.first == 0xB5 || s.input.first == 0xBA { cut = s.input.count }
        framer.feed(bytes: s.input[..<cut], into: &sink)
        framer.finish(into: &sink)
        s.input.removeSubrange(..<cut)
        let reply = instant.advanced(by: .milliseconds(50))
        for (c, i, p) in sink.ubx { handleUBX(&s, c, i, p, at: reply) }
        for (c, i, p) in sink.casic { handleCASIC(&s, c, i, p) }
        for text in sink.sentences {
            guard (try? NMEAParser.validate(Array(text.utf8).span)) != nil else { continue }
            let body = String(text.dropFirst().prefix { $0 != "*" })
            s.commands.append(body)
            handleNMEA(&s, body, at: reply)
        }
    }

    func ack(_ s: inout State, _ c: UInt8, _ i: UInt8, ok: Bool, at: MonotonicInstant) {
        s.pending.append((at, ubxFrame(0x05, ok ? 0x01 : 0x00, [c, i])))
    }

    func handleUBX(_ s: inout State, _ c: UInt8, _ i: UInt8, _ p: [UInt8], at: MonotonicInstant) {
        guard s.family == .ublox8 || s.family == .ublox9 || s.family == .ublox10 else { return }
        s.commands.append("UBX \(c) \(i)")
        // The M9 and M10 take configuration keys (the emulated M9 refuses legacy CFG messages, as the M10 does).
        let m10 = s.family != .ublox8
        func u16(_ o: Int) -> Int { p.count >= o + 2 ? Int(p[o]) | Int(p[o + 1]) << 8 : 0 }
        switch (c, i) {
        case (0x06, 0x08) where !m10 && p.isEmpty, (0x06, 0x01) where !m10 && p.count == 2, (0x06, 0x24) where !m10 && p.isEmpty:
            legacyPoll(&s, i, p, at: at)
        case (0x06, 0x8B):  // CFG-VALGET
            getValues(&s, p, m10: m10, at: at)
        case (0x06, 0x09) where !m10:  // CFG-CFG
            legacyConfiguration(&s, p, at: at)
        case (0x06, 0x08):  // CFG-RATE
            if m10 || p.count < 6 || !(25...65535).contains(u16(0)) { ack(&s, c, i, ok: false, at: at); return }
            setInterval(&s, .milliseconds(u16(0)), at: at)
            ack(&s, c, i, ok: true, at: at)
        case (0x06, 0x01):  // CFG-MSG
            if !m10, p.count >= 3, p[0] != 0xF0 {
                // A real M8 takes CFG-MSG for any UBX message; the emulator sends the ones it models.
                setBinary(&s, ubxClass: p[0], id: p[1], rate: UInt64(p[2]))
                ack(&s, c, i, ok: true, at: at)
                return
            }
            if m10 || p.count < 3 || p[0] != 0xF0 { ack(&s, c, i, ok: false, at: at); return }
            let names: [UInt8: String] = [0: "GGA", 1: "GLL", 2: "GSA", 3: "GSV", 4: "RMC", 5: "VTG", 7: "GST", 8: "ZDA"]
            if let name = names[p[1]] { if p[2] > 0 { s.outputs.insert(name) } else { s.outputs.remove(name) } }
            ack(&s, c, i, ok: true, at: at)
        case (0x06, 0x11):  // CFG-RXM
            if m10 || p.count < 2 { ack(&s, c, i, ok: false, at: at); return }
            s.powerSave = p[1] == 1
            applyPowerSave(&s)
            ack(&s, c, i, ok: true, at: at)
        case (0x13, 0x40):  // MGA-INI: not acknowledged unless MGA-ACK is asked for
            handleMGAInitial(&s, p)
        case (0x06, 0x23):  // CFG-NAVX5
            handleNavigationExpert(&s, p, at: at)
        case (0x06, 0x24):  // CFG-NAV5
            setNavigationEngine(&s, p, m10: m10, at: at)
        case (0x06, 0x3B), (0x06, 0x86), (0x06, 0x09):  // CFG-PM2, CFG-PMS, CFG-CFG
            ack(&s, c, i, ok: !m10 || i == 0x09, at: at)
        case (0x06, 0x8A):  // CFG-VALSET
            guard m10, p.count >= 4 else { ack(&s, c, i, ok: false, at: at); return }
            if p[1] & 0x06 != 0 { saveValues(&s, p, at: at) }
            guard p[1] & 0x01 != 0 else { ack(&s, c, i, ok: true, at: at); return }
            var o = 4
            while o + 4 <= p.count {
                let key = UInt32(p[o]) | UInt32(p[o + 1]) << 8 | UInt32(p[o + 2]) << 16 | UInt32(p[o + 3]) << 24
                let size = [0, 1, 1, 2, 4, 8][Int(min(5, (key >> 28) & 7))]
                guard o + 4 + size <= p.count else { ack(&s, c, i, ok: false, at: at); return }
                var value: UInt64 = 0
                for k in 0..<size { value |= UInt64(p[o + 4 + k]) << (8 * UInt64(k)) }
                switch key {
                case 0x3021_0001: setInterval(&s, .milliseconds(Int(value)), at: at)
                case 0x2011_0021: s.dynamicModel = Int(value)
                case 0x1023_0001: s.model.predictionsEnabled = value != 0  // CFG-ANA-USE_ANA
                case 0x20D0_0001:
                    s.powerSave = value == 2
                    applyPowerSave(&s)
                case 0x2091_00BB: set(&s, "GGA", value)
                case 0x2091_00AC: set(&s, "RMC", value)
                case 0x2091_00C0: set(&s, "GSA", value)
                case 0x2091_00C5: set(&s, "GSV", value)
                case 0x2091_00D4: set(&s, "GST", value)
                case let key where Self.messageOfKey(key) != nil:
                    if let (mc, mi) = Self.messageOfKey(key) { setBinary(&s, ubxClass: mc, id: mi, rate: value) }
                default: break
                }
                o += 4 + size
            }
            ack(&s, c, i, ok: true, at: at)
        case (0x06, 0x04):  // CFG-RST: no acknowledgement
            restart(&s, p.count >= 2 && p[0] == 0xFF ? .cold : (p.first == 1 ? .warm : .hot), at: at)
        case (0x02, 0x41):  // RXM-PMREQ: sleep, no acknowledgement
            let duration = p.count == 16 ? u32(p, 4) : u32(p, 0)
            s.asleep = true
            s.model.sleep(.standby)
            s.wakeAt = duration > 0 ? at.advanced(by: .milliseconds(Int64(duration))) : nil
        case (0x06, 0x93) where !m10:  // CFG-BATCH (M8 data batching)
            ack(&s, c, i, ok: configureBatch(&s, p), at: at)
        case (0x21, 0x10) where !m10:  // LOG-RETRIEVEBATCH: no acknowledgement
            retrieveBatch(&s, p, at: at)
        case (0x0A, 0x04):  // MON-VER poll
            let version = Self.version(s.family)
            var payload = pad(version.software, 30) + pad(version.hardware, 10)
            payload += pad("PROTVER=\(version.protocolVersion)", 30) + pad("MOD=\(version.module)", 30)
            s.pending.append((at, ubxFrame(0x0A, 0x04, payload)))
        default:
            if c == 0x06 { ack(&s, c, i, ok: false, at: at) }
        }
    }

    /// Switches a tracking receiver in or out of cyclic tracking at once.
    func applyPowerSave(_ s: inout State) {
        if s.model.hasFix { s.model.wake(cyclic: s.powerSave) }
    }

    /// A new navigation interval takes effect from the next epoch, which moves up if it is due sooner.
    func setInterval(_ s: inout State, _ interval: Duration, at: MonotonicInstant) {
        s.interval = interval
        s.nextEpoch = min(s.nextEpoch, at.advanced(by: interval))
    }

    func set(_ s: inout State, _ name: String, _ value: UInt64) {
        if value > 0 { s.outputs.insert(name) } else { s.outputs.remove(name) }
    }

    func restart(_ s: inout State, _ kind: StartKind, at: MonotonicInstant) {
        if kind == .cold { s.model.sleep(nil) } else { s.model.sleep(.standby) }
        s.model.wake()
        s.nextEpoch = at.advanced(by: s.interval)
    }

    func sentence(_ body: String) -> [UInt8] { NMEAChecksum.sentence(body: Array(body.utf8)) + [0x0D, 0x0A] }

    func ubxFrame(_ c: UInt8, _ i: UInt8, _ payload: [UInt8]) -> [UInt8] { UBXFraming.encode(class: c, id: i, payload: payload) }
}
