import HardwareInterfaces
import NMEA

/// RTCM 3 corrections written to the emulated receiver: each frame is checked with CRC-24Q (a bad
/// one is counted and ignored); valid frames make the solution differential at once (GGA quality
/// 2), RTK float (5, NAV-PVT carrSoln 1) once a reference station message (1005/1006) and
/// observations (1001-1004, 1009-1012, MSM 1071-1137) have come for ``floatAfter`` seconds, and
/// RTK fixed (4, carrSoln 2) after ``fixedAfter`` seconds. Without a frame for ``staleAfter``
/// seconds the receiver falls back to an autonomous fix, as a ZED-F9P does when its
/// corrections age out.
struct EmulatedCorrections {
    static let floatAfter = 5.0, fixedAfter = 15.0, staleAfter = 30.0

    var lastAt: MonotonicInstant?
    var observationsSince: MonotonicInstant?
    var hasReference = false
    var station: Int?
    var frames = 0, badFrames = 0

    /// A valid frame of `type` arrived at `instant`.
    mutating func received(type: UInt16, station: Int?, at instant: MonotonicInstant) {
        if let last = lastAt, (instant - last).secondsDouble > Self.staleAfter { reset() }
        frames += 1
        lastAt = instant
        if type == 1005 || type == 1006 { hasReference = true }
        let observation = (1001...1004).contains(type) || (1009...1012).contains(type) || (1071...1137).contains(type)
        if observation && observationsSince == nil { observationsSince = instant }
        if let station { self.station = station }
    }

    mutating func reset() {
        lastAt = nil
        observationsSince = nil
        hasReference = false
    }

    /// The GGA quality at `instant` for a receiver with a fix: 1, 2, 5 or 4.
    mutating func quality(at instant: MonotonicInstant) -> Int {
        guard let last = lastAt else { return 1 }
        guard (instant - last).secondsDouble <= Self.staleAfter else { reset(); return 1 }
        guard hasReference, let since = observationsSince else { return 2 }
        let run = (instant - since).secondsDouble
        return run >= Self.fixedAfter ? 4 : run >= Self.floatAfter ? 5 : 2
    }

    /// How much of the autonomous error is left with `quality`.
    static func errorScale(_ quality: Int) -> Double {
        switch quality {
        case 2: return 0.3
        case 5: return 0.05
        case 4: return 0.005
        default: return 1
        }
    }
}

extension ReceiverEmulator {
    /// Valid RTCM 3 frames received so far, and candidates whose CRC-24Q failed.
    public var rtcmFrames: (valid: Int, bad: Int) { state.withLock { ($0.corrections.frames, $0.corrections.badFrames) } }

    /// The GGA quality the next epoch with a fix reports (1 autonomous, 2 DGPS, 5 RTK float, 4 RTK fixed).
    public func correctionQuality(at instant: MonotonicInstant) -> Int { state.withLock { $0.corrections.quality(at: instant) } }

    /// Takes the RTCM 3 frames out of the input (the rest is commands). A frame that is not whole
    /// yet, at the start of the input or right after another frame, is returned (and removed) to
    /// be put back after the commands are read; a `D3` byte elsewhere is only a frame when whole
    /// with a good CRC (UBX payloads contain that byte too).
    func takeRTCM(_ s: inout State, at instant: MonotonicInstant) -> [UInt8] {
        var i = 0
        var chained = true
        while i < s.input.count {
            guard s.input[i] == 0xD3 else { i += 1; chained = false; continue }
            guard i + 3 <= s.input.count else { return chained ? cut(&s, from: i) : [] }
            let length = Int(s.input[i + 1] & 0x03) << 8 | Int(s.input[i + 2])
            guard s.input[i + 1] & 0xFC == 0, length >= 2 else { i += 1; chained = false; continue }
            let end = i + 3 + length + 3
            guard end <= s.input.count else { return chained ? cut(&s, from: i) : [] }
            let crc = CRC24Q.compute(s.input[i..<(end - 3)])
            let found = UInt32(s.input[end - 3]) << 16 | UInt32(s.input[end - 2]) << 8 | UInt32(s.input[end - 1])
            guard crc == found else {
                if chained { s.corrections.badFrames += 1 }
                i += 1
                chained = false
                continue
            }
            let type = UInt16(s.input[i + 3]) << 4 | UInt16(s.input[i + 4] >> 4)
            let station = length >= 3 ? Int(s.input[i + 4] & 0x0F) << 8 | Int(s.input[i + 5]) : nil
            s.corrections.received(type: type, station: station, at: instant)
            s.input.removeSubrange(i..<end)
            chained = true
        }
        return []
    }

    private func cut(_ s: inout State, from index: Int) -> [UInt8] {
        let tail = Array(s.input[index...])
        s.input.removeSubrange(index...)
        return tail
    }
}
