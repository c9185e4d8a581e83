/// Routes decoded UBX and CASIC frames to their epoch in the ``EpochMerger``.
extension EpochMerger {
    static func kind(ubx messageClass: UInt8, _ id: UInt8) -> UInt32 { 0x1_0000 | UInt32(messageClass) << 8 | UInt32(id) }
    static func kind(casic messageClass: UInt8, _ id: UInt8) -> UInt32 { 0x2_0000 | UInt32(messageClass) << 8 | UInt32(id) }

    /// Adds a UBX frame (checksum already checked). Frames that carry no navigation data are counted
    /// as ignored; a frame too short for its layout is counted as malformed and changes nothing.
    public mutating func add(ubxClass messageClass: UInt8, id: UInt8, payload: Span<UInt8>, emit: (Fix) -> Void) {
        let order = nextSequence()
        let kind = Self.kind(ubx: messageClass, id)
        switch (messageClass, id) {
        case (0x01, 0x07):
            guard let m = UBXNavPVT(payload: payload) else { counters.malformed += 1; return }
            let time = m.validity.isSuperset(of: [.validDate, .validTime]) ? Self.milliseconds(hour: m.hour, minute: m.minute, second: m.second, nano: Int64(m.nano)) : nil
            guard let index = epoch(key: m.iTOW, time: time, emit: emit) else { return }
            let change = leapSecondChange
            apply(index, kind: kind, order: order, emit: emit) { slot in
                slot.fix.apply(m)
                slot.fix.leapSecondChange = change
                slot.navPVTSeen = true
            }
        case (0x28, 0x00):
            guard let m = UBXHNRPVT(payload: payload) else { counters.malformed += 1; return }
            // HNR is off the navigation cycle: it joins the epoch of its own instant, keyed by time only.
            let time = m.validity.isSuperset(of: [.validDate, .validTime]) ? Self.milliseconds(hour: m.hour, minute: m.minute, second: m.second, nano: Int64(m.nano)) : nil
            guard let index = epoch(key: nil, time: time, emit: emit) else { return }
            apply(index, kind: kind, order: order, emit: emit) { $0.fix.apply(m) }
        case (0x01, 0x06):
            guard let m = UBXNavSOL(payload: payload) else { counters.malformed += 1; return }
            guard let index = epoch(key: m.iTOW, time: nil, emit: emit) else { return }
            // GPS time to UTC: the receiver's leap seconds when it stated them (NAV-TIMEGPS,
            // NAV-TIMELS), else the table's count for that week (a unit logging only NAV-SOL).
            var leap = leapSeconds
            var source = LeapSecondSource.receiver
            if leap == nil, let known = leapSecondTable.gpsMinusUTC(week: Int(m.week), timeOfWeekMilliseconds: m.iTOW) {
                (leap, source) = (known.seconds, known.source)
            }
            apply(index, kind: kind, order: order, emit: emit) { slot in
                slot.fix.apply(m, leapSeconds: leap, source: source)
                slot.ecef.position = ECEFVector(x: Double(m.ecefX) / 100, y: Double(m.ecefY) / 100, z: Double(m.ecefZ) / 100)
                slot.ecef.velocity = ECEFVector(x: Double(m.ecefVX) / 100, y: Double(m.ecefVY) / 100, z: Double(m.ecefVZ) / 100)
            }
        case (0x01, 0x02):
            guard let m = UBXNavPOSLLH(payload: payload) else { counters.malformed += 1; return }
            guard let index = epoch(key: m.iTOW, time: nil, emit: emit) else { return }
            apply(index, kind: kind, order: order, emit: emit) { $0.fix.apply(m) }
        case (0x01, 0x01):
            guard let m = UBXNavPOSECEF(payload: payload) else { counters.malformed += 1; return }
            guard let index = epoch(key: m.iTOW, time: nil, emit: emit) else { return }
            apply(index, kind: kind, order: order, carries: .nothing, emit: emit) { slot in
                slot.fix.binaryProtocol = .ubx
                slot.fix.withReceiverAccuracy(.ubxAccuracyEstimate) { $0.position3D = Double(m.pAcc) / 100 }
                slot.ecef.position = ECEFVector(x: Double(m.ecefX) / 100, y: Double(m.ecefY) / 100, z: Double(m.ecefZ) / 100)
            }
        case (0x01, 0x11):
            guard let m = UBXNavVELECEF(payload: payload) else { counters.malformed += 1; return }
            guard let index = epoch(key: m.iTOW, time: nil, emit: emit) else { return }
            apply(index, kind: kind, order: order, carries: .nothing, emit: emit) { slot in
                slot.fix.binaryProtocol = .ubx
                slot.ecef.velocity = ECEFVector(x: Double(m.ecefVX) / 100, y: Double(m.ecefVY) / 100, z: Double(m.ecefVZ) / 100)
            }
        case (0x01, 0x12):
            guard let m = UBXNavVELNED(payload: payload) else { counters.malformed += 1; return }
            guard let index = epoch(key: m.iTOW, time: nil, emit: emit) else { return }
            apply(index, kind: kind, order: order, emit: emit) { slot in
                // NAV-PVT states the same velocity in mm/s; NAV-VELNED's cm/s do not replace it (F9V sends both).
                if !slot.navPVTSeen { slot.fix.apply(m) }
            }
        case (0x01, 0x04):
            guard let m = UBXNavDOP(payload: payload) else { counters.malformed += 1; return }
            guard let index = epoch(key: m.iTOW, time: nil, emit: emit) else { return }
            apply(index, kind: kind, order: order, carries: .dop, emit: emit) { $0.fix.apply(m) }
        case (0x01, 0x20):
            guard let m = UBXNavTimeGPS(payload: payload) else { counters.malformed += 1; return }
            if m.valid & 0x04 != 0 { leapSeconds = Int(m.leapSeconds) }
            var time: Int64?
            var utc: UTCTime?
            if m.isFullyValid, let instant = UTCTime.gps(week: Int(m.week), timeOfWeekMilliseconds: m.iTOW,
                                                         fractionNanoseconds: m.fTOW, leapSeconds: Int(m.leapSeconds)) {
                utc = instant
                time = instant.timeOfDay.map { Self.milliseconds($0) }
            }
            guard let index = epoch(key: m.iTOW, time: time, emit: emit) else { return }
            let leap = leapSeconds
            apply(index, kind: kind, order: order, carries: .nothing, emit: emit) { slot in
                slot.fix.binaryProtocol = .ubx
                if let leap { slot.fix.leapSeconds = leap }
                if let utc {
                    slot.fix.setBinaryTime(utc)
                    slot.fix.timeValidity = (slot.fix.timeValidity ?? []).union([.validDate, .validTime, .leapSecondsKnown])
                }
            }
        case (0x01, 0x21):
            guard let m = UBXNavTimeUTC(payload: payload) else { counters.malformed += 1; return }
            let valid = m.valid & 0x07 == 0x07
            let utc = valid ? UTCTime.binary(year: m.year, month: m.month, day: m.day, hour: m.hour, minute: m.minute,
                                             second: m.second, nanosecond: Int64(m.nano)) : nil
            guard let index = epoch(key: m.iTOW, time: utc?.timeOfDay.map { Self.milliseconds($0) }, emit: emit) else { return }
            apply(index, kind: kind, order: order, carries: .nothing, emit: emit) { slot in
                slot.fix.binaryProtocol = .ubx
                if let utc {
                    slot.fix.setBinaryTime(utc)
                    slot.fix.timeValidity = (slot.fix.timeValidity ?? []).union([.validDate, .validTime, .leapSecondsKnown])
                    // The time's accuracy (tAcc, ns), unless the epoch's NAV-PVT stated it already.
                    if slot.fix.receiverAccuracy?.time == nil {
                        slot.fix.withReceiverAccuracy(.ubxAccuracyEstimate) { $0.time = Double(m.tAcc) * 1e-9 }
                    }
                }
            }
        case (0x01, 0x26):
            guard let m = UBXNavTimeLS(payload: payload) else { counters.malformed += 1; return }
            if m.currentValid { leapSeconds = Int(m.currentLeapSeconds) }
            leapSecondChange = m.eventValid && m.change != 0 && m.secondsToEvent > 0 ? Int(m.change) : nil
            counters.decoded += 1
        case (0x01, 0x03):
            guard let m = UBXNavStatus(payload: payload) else { counters.malformed += 1; return }
            var current = status ?? ReceiverStatus()
            if m.ttff > 0 { current.timeToFirstFix = Double(m.ttff) / 1000 }
            current.spoofing = m.spoofing
            status = current
            guard let index = epoch(key: m.iTOW, time: nil, emit: emit) else { return }
            apply(index, kind: kind, order: order, carries: .nothing, emit: emit) { slot in
                slot.fix.binaryProtocol = .ubx
                // The fix type, where no NAV-PVT or NAV-SOL (or NMEA) of the epoch gave one yet: timing
                // units (M8T) send NAV-POSLLH with NAV-STATUS and nothing else that states the mode.
                if slot.fix.mode == .unknown { slot.fix.apply(m) }
            }
        case (0x01, 0x35):
            addSky(payload, kind: kind, order: order, emit: emit) { UBXNavSAT.decode(payload: payload, into: &$0.fix.satellites) }
        case (0x01, 0x43):
            addSky(payload, kind: kind, order: order, emit: emit) { UBXNavSIG.decode(payload: payload, into: &$0.fix.satellites) }
        case (0x01, 0x61):
            guard payload.count >= 4 else { counters.malformed += 1; return }
            guard let index = epoch(key: LittleEndian.u32(payload, 0), time: nil, emit: emit) else { return }
            apply(index, kind: kind, order: order, carries: .nothing, emit: emit) { _ in }
        case (0x0A, 0x38):
            guard let m = UBXMonRF(payload: payload) else { counters.malformed += 1; return }
            var current = status ?? ReceiverStatus()
            current.jamming = m.jamming
            current.noisePerMS = Int(m.noisePerMS)
            current.agcCount = Int(m.agcCount)
            current.jammingIndicator = Int(m.jamIndicator)
            status = current
            counters.decoded += 1
        case (0x0D, 0x01):
            guard let m = UBXTimTP(payload: payload) else { counters.malformed += 1; return }
            var current = status ?? ReceiverStatus()
            current.timePulseQuantizationError = m.qErrValid ? Double(m.qErr) * 1e-12 : nil
            status = current
            counters.decoded += 1
        default:
            counters.ignored += 1
        }
    }

    /// Adds a CASIC frame (checksum already checked), as ``add(ubxClass:id:payload:emit:)`` does.
    public mutating func add(casicClass messageClass: UInt8, id: UInt8, payload: Span<UInt8>, emit: (Fix) -> Void) {
        let order = nextSequence()
        let kind = Self.kind(casic: messageClass, id)
        guard messageClass == 0x01 else { counters.ignored += 1; return }
        switch id {
        case 0x03:
            guard let m = CASICNavPV(payload: payload) else { counters.malformed += 1; return }
            guard let index = epoch(key: m.runTime, time: nil, emit: emit) else { return }
            apply(index, kind: kind, order: order, emit: emit) { $0.fix.apply(m) }
        case 0x10:
            guard let m = CASICNavTimeUTC(payload: payload) else { counters.malformed += 1; return }
            let time = m.isUsable ? Self.milliseconds(hour: m.hour, minute: m.minute, second: m.second,
                                                       nano: Int64(m.millisecond) * 1_000_000) : nil
            guard let index = epoch(key: m.runTime, time: time, emit: emit) else { return }
            apply(index, kind: kind, order: order, emit: emit) { $0.fix.apply(m) }
        case 0x01:
            guard let m = CASICNavDOP(payload: payload) else { counters.malformed += 1; return }
            guard let index = epoch(key: m.runTime, time: nil, emit: emit) else { return }
            apply(index, kind: kind, order: order, carries: .dop, emit: emit) { $0.fix.apply(m) }
        case 0x20, 0x21, 0x22:
            addSky(payload, kind: kind, order: order, emit: emit) { slot in
                // The first satellite message of an epoch starts its sky; the others append to it.
                if !slot.casicSkyStarted {
                    slot.fix.satellites.removeAll()
                    slot.casicSkyStarted = true
                }
                return CASICNavSatelliteInfo.decode(messageID: id, payload: payload, appendingTo: &slot.fix.satellites)
            }
        default:
            counters.ignored += 1
        }
    }

    /// A sky message (UBX NAV-SAT / NAV-SIG, CASIC NAV-*INFO): its epoch from the leading time key,
    /// `decode` fills the epoch's sky and returns the key, or `nil` for an inconsistent payload.
    mutating func addSky(_ payload: Span<UInt8>, kind: UInt32, order: Int, emit: (Fix) -> Void,
                         decode: (inout Slot) -> UInt32?) {
        guard payload.count >= 8 else { counters.malformed += 1; return }
        guard let index = epoch(key: LittleEndian.u32(payload, 0), time: nil, emit: emit) else { return }
        var failed = false
        apply(index, kind: kind, order: order, carries: .sky, emit: emit) { slot in
            failed = decode(&slot) == nil
            slot.fix.binaryProtocol = kind & 0x2_0000 != 0 ? .casic : .ubx
        }
        if failed { counters.malformed += 1 }
    }

    static func milliseconds(hour: UInt8, minute: UInt8, second: UInt8, nano: Int64) -> Int64? {
        guard hour < 24, minute < 60, second <= 60, abs(nano) < 1_000_000_000 else { return nil }
        let whole = (Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)) * 1000
        return ((whole + (nano + 500_000) / 1_000_000) % day + day) % day
    }
}
