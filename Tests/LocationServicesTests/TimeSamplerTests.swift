import HardwareInterfaces
import LocationServices
import NMEA
import Testing

/// Which fixes and pulses become time samples: confirmation, loss, jumps, pairing, leap seconds.
@Suite("Time samples for chrony and ntpd")
struct TimeSamplerTests {
    /// 2026-06-30 12:00:00 UTC, nanoseconds.
    static let noon: Int64 = 1_782_820_800 * 1_000_000_000

    static func fix(second: Int64, mode: FixMode = .threeD) -> Fix {
        var fix = Fix()
        fix.mode = mode
        fix.latitude = 47.38
        fix.longitude = 8.54
        fix.time = UTCTime(nanosecondsSinceEpoch: noon + second * 1_000_000_000)
        return fix
    }

    /// Fix `second` arriving at monotonic `second + 10^7 + lag` and system time `noon + second + lag + error`.
    static func feed(_ sampler: inout TimeSampler, second: Int64, lag: Double = 0.3, systemError: Double = 0,
                     fix: Fix? = nil, leap: Int? = nil) -> Result<TimeReferenceSample, TimeSampler.Refusal> {
        let arrival = at(Double(second) + 10_000_000 + lag)
        let system = noon + second * 1_000_000_000 + Int64((lag + systemError) * 1e9)
        return sampler.serial(fix ?? Self.fix(second: second), arrivalSystemNanoseconds: system, arrival: arrival, pendingLeap: leap)
    }

    @Test("three consistent fixes confirm the time; the sample pairs arrival with the second plus time_offset")
    func confirmation() throws {
        var sampler = TimeSampler(configuration: .init(timeOffset: 0.3))
        #expect(Self.feed(&sampler, second: 0) == .failure(.unconfirmed(consistent: 1, needed: 3)))
        #expect(Self.feed(&sampler, second: 1) == .failure(.unconfirmed(consistent: 2, needed: 3)))
        #expect(!sampler.isConfirmed)
        // The system clock is 50 ms behind true time: the offset chrony sees is +50 ms.
        let sample = try Self.feed(&sampler, second: 2, systemError: -0.05).get()
        #expect(sampler.isConfirmed)
        #expect(abs(sample.offsetSeconds - 0.05) < 1e-9)
        #expect(sample.referenceNanoseconds == Self.noon + 2_300_000_000)
        #expect(!sample.isPulse && sample.leap == .none && sample.precision == -1)
    }

    @Test("losing the fix, a time jump or a receiver that says its time is invalid gives no sample until confirmed again")
    func lossAndJumps() throws {
        var sampler = TimeSampler()
        for second: Int64 in 0..<3 { _ = Self.feed(&sampler, second: second) }
        #expect(sampler.isConfirmed)
        #expect(Self.feed(&sampler, second: 3, fix: Self.fix(second: 3, mode: .noFix)) == .failure(.noFix))
        #expect(!sampler.isConfirmed)
        #expect(Self.feed(&sampler, second: 4) == .failure(.unconfirmed(consistent: 1, needed: 3)))
        #expect(Self.feed(&sampler, second: 5) == .failure(.unconfirmed(consistent: 2, needed: 3)))
        #expect((try? Self.feed(&sampler, second: 6).get()) != nil)
        // The receiver's time jumps by a second (a wrong leap-second count corrected): start again.
        var jumped = Self.fix(second: 8)
        jumped.time = UTCTime(nanosecondsSinceEpoch: Self.noon + 8_000_000_000)
        #expect(Self.feed(&sampler, second: 7, fix: jumped) == .failure(.unconfirmed(consistent: 1, needed: 3)))
        var invalid = Self.fix(second: 9)
        invalid.timeValidity = [.validTime]
        #expect(Self.feed(&sampler, second: 9, fix: invalid) == .failure(.receiverSaysInvalid))
        var noTime = Self.fix(second: 10)
        noTime.time = nil
        #expect(Self.feed(&sampler, second: 10, fix: noTime) == .failure(.noTime))
    }

    @Test("a receiver that confirmed its date and time itself (u-blox confirmedTime) is believed at once")
    func receiverConfirmed() {
        var sampler = TimeSampler()
        var fix = Self.fix(second: 0)
        fix.timeValidity = [.validDate, .validTime, .fullyResolved, .confirmedDate, .confirmedTime]
        #expect((try? Self.feed(&sampler, second: 0, fix: fix).get()) != nil)
    }

    @Test("a pulse pairs only with the confirmed second or the next; the sentence delay is measured from it")
    func pulses() throws {
        var sampler = TimeSampler()
        let early = PPSSample(utcSecond: Self.noon / 1_000_000_000, edge: at(100), nmeaArrival: at(100.3))
        #expect(sampler.pulse(early, edgeSystemNanoseconds: Self.noon) == .failure(.pulseWithoutConfirmedSecond))
        for second: Int64 in 0..<3 { _ = Self.feed(&sampler, second: second, lag: 0.42) }
        let base = Self.noon / 1_000_000_000
        for (second, delay) in [(3, 0.41), (4, 0.42), (5, 0.43)] as [(Int64, Double)] {
            let pulse = PPSSample(utcSecond: base + second, edge: at(10_000_000 + Double(second)), nmeaArrival: at(10_000_000 + Double(second) + delay))
            let sample = try sampler.pulse(pulse, edgeSystemNanoseconds: Self.noon + second * 1_000_000_000 - 20_000).get()
            #expect(sample.isPulse && sample.precision == -20)
            #expect(abs(sample.offsetSeconds - 20e-6) < 1e-9)
            _ = Self.feed(&sampler, second: second, lag: delay)
        }
        #expect(abs((sampler.measuredSentenceDelay ?? 0) - 0.42) < 1e-9)
        let wrong = PPSSample(utcSecond: base + 9, edge: at(109), nmeaArrival: at(109.4))
        #expect(sampler.pulse(wrong, edgeSystemNanoseconds: Self.noon + 9_000_000_000) == .failure(.pulseForOtherSecond(pulse: base + 9, epoch: base + 5)))
    }

    @Test("an announced leap second is passed on in June and December only")
    func leapSeconds() throws {
        var june = TimeSampler()
        for second: Int64 in 0..<2 { _ = Self.feed(&june, second: second, leap: 1) }
        #expect(try Self.feed(&june, second: 2, leap: 1).get().leap == .insert)
        #expect(try Self.feed(&june, second: 3, leap: -1).get().leap == .delete)
        #expect(try Self.feed(&june, second: 4).get().leap == .none)
        // 2026-03-31: announced, but not this month.
        var march = TimeSampler()
        let shift: Int64 = -91 * 86_400
        for second: Int64 in 0..<3 {
            let result = Self.feed(&march, second: second + shift, fix: Self.fix(second: second + shift), leap: 1)
            if second == 2 { #expect(try result.get().leap == .none) }
        }
    }
}
