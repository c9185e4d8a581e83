import HardwareInterfaces
import LocationServices
import NMEA
import Testing

/// PPS on the time path, from the tracker's pairing to the sampler's samples: each case gives the
/// right samples or none.
@Suite("Time samples from PPS: early, missing, stuck, leap, lost fix")
struct TimeSamplerPPSTests {
    static let noon = TimeSamplerTests.noon
    static let base = noon / 1_000_000_000
    /// Monotonic second 0 of the run (second n of the run is UTC second base + n).
    static let zero = 10_000_000.0

    /// One second of a receiver with a PPS line: the pulse at the start of second `n` (unless
    /// `pulse` is false), then its sentences `delay` later, through the tracker into the sampler.
    /// Returns the serial result and the PPS result (nil: no pulse was paired).
    static func second(_ n: Int64, tracker: inout PPSTracker, sampler: inout TimeSampler, pulse: Bool = true,
                       delay: Double = 0.45, fix: Fix? = nil, leap: Int? = nil)
        -> (serial: Result<TimeReferenceSample, TimeSampler.Refusal>, pps: Result<TimeReferenceSample, TimeSampler.Refusal>?)
    {
        let edge = at(zero + Double(n))
        let edgeSystem = noon + n * 1_000_000_000 - 30_000  // the system clock 30 µs ahead
        if pulse { tracker.pulse(at: edge, system: SystemTimeConversion(systemNanoseconds: edgeSystem, errorBoundNanoseconds: 40)) }
        let arrival = at(zero + Double(n) + delay)
        let theFix = fix ?? TimeSamplerTests.fix(second: n)
        var ppsResult: Result<TimeReferenceSample, TimeSampler.Refusal>?
        if let utc = theFix.time?.secondsSinceEpoch, let paired = tracker.fix(utc: utc, receivedAt: arrival) {
            ppsResult = sampler.pulse(paired, edgeSystemNanoseconds: paired.edgeSystemNanoseconds ?? 0, pendingLeap: leap)
        }
        let serial = sampler.serial(theFix, arrivalSystemNanoseconds: noon + n * 1_000_000_000 + Int64(delay * 1e9),
                                    arrival: arrival, pendingLeap: leap)
        return (serial, ppsResult)
    }

    @Test("a pulse before its second is confirmed gives nothing; once confirmed, the pulse before its sentences pairs with that second")
    func pulseBeforeConfirmation() throws {
        var tracker = PPSTracker()
        var sampler = TimeSampler()
        for n: Int64 in 0..<3 {
            let (serial, pps) = Self.second(n, tracker: &tracker, sampler: &sampler)
            #expect(pps == .failure(.pulseWithoutConfirmedSecond), "second \(n): the time is not confirmed when its pulse pairs")
            #expect((try? serial.get()) != nil || n < 2)
        }
        let (_, pps) = Self.second(3, tracker: &tracker, sampler: &sampler)
        let sample = try #require(try pps?.get())
        #expect(sample.isPulse && sample.referenceNanoseconds == Self.noon + 3_000_000_000)
        #expect(sample.systemNanoseconds == Self.noon + 3_000_000_000 - 30_000)
        #expect(abs(sample.offsetSeconds - 30e-6) < 1e-12)
        #expect(sample.systemErrorNanoseconds == 40, "the clock bracket's bound travels with the sample")
    }

    @Test("a missing pulse gives no PPS sample for its second, and the next pulse pairs with its own second, not the missed one")
    func missingPulse() throws {
        var tracker = PPSTracker()
        var sampler = TimeSampler()
        for n: Int64 in 0..<4 { _ = Self.second(n, tracker: &tracker, sampler: &sampler) }
        let (serial, pps) = Self.second(4, tracker: &tracker, sampler: &sampler, pulse: false)
        #expect(pps == nil, "no pulse, no PPS sample")
        #expect((try? serial.get()) != nil, "the serial time goes on")
        let (_, next) = Self.second(5, tracker: &tracker, sampler: &sampler)
        #expect(try #require(try next?.get()).referenceNanoseconds == Self.noon + 5_000_000_000)
        #expect(tracker.status(at: at(Self.zero + 5.5), level: nil) == .irregular(intervalMilliseconds: 2000))
        // Pulses stop; after 2.5 s of fixes without one the status says so.
        for n: Int64 in 6..<10 { #expect(Self.second(n, tracker: &tracker, sampler: &sampler, pulse: false).pps == nil) }
        #expect(tracker.status(at: at(Self.zero + 9.5), level: nil) == .missing(seconds: 4, level: nil))
    }

    @Test("a stuck line (no edges, the level held) gives no PPS sample and a status naming the level; the serial time goes on")
    func stuckLine() throws {
        var tracker = PPSTracker()
        var sampler = TimeSampler()
        var serialSamples = 0
        for n: Int64 in 0..<6 {
            let (serial, pps) = Self.second(n, tracker: &tracker, sampler: &sampler, pulse: false)
            #expect(pps == nil)
            if (try? serial.get()) != nil { serialSamples += 1 }
        }
        #expect(serialSamples == 4)
        #expect(tracker.status(at: at(Self.zero + 5.5), level: true) == .missing(seconds: 5, level: true))
        #expect(tracker.status(at: at(Self.zero + 5.5), level: false).description.contains("stuck low"))
        #expect(tracker.pulses == 0 && tracker.paired == 0)
    }

    @Test("a leap second pending: the PPS and serial samples carry it in June, not in other months")
    func leapPending() throws {
        var tracker = PPSTracker()
        var sampler = TimeSampler()
        for n: Int64 in 0..<3 { _ = Self.second(n, tracker: &tracker, sampler: &sampler, leap: 1) }
        let (serial, pps) = Self.second(3, tracker: &tracker, sampler: &sampler, leap: 1)
        #expect(try serial.get().leap == .insert)
        #expect(try #require(try pps?.get()).leap == .insert)
        // 2026-03-31, 91 days earlier: announced months ahead, passed on as none.
        var marchTracker = PPSTracker()
        var march = TimeSampler()
        let shift: Int64 = -91 * 86_400
        for n: Int64 in 0..<4 {
            let (serial, pps) = Self.second(n + shift, tracker: &marchTracker, sampler: &march, leap: 1)
            if n == 3 {
                #expect(try serial.get().leap == .none)
                #expect(try #require(try pps?.get()).leap == .none)
            }
        }
    }

    @Test("a receiver that falls back to no fix: no serial sample, its pulses are refused, and both return only after confirming again")
    func fallbackToNoFix() throws {
        var tracker = PPSTracker()
        var sampler = TimeSampler()
        for n: Int64 in 0..<4 { _ = Self.second(n, tracker: &tracker, sampler: &sampler) }
        #expect(sampler.isConfirmed)
        for n: Int64 in 4..<6 {
            // The receiver still sends the time (from its clock) but mode 1: no fix.
            let (serial, pps) = Self.second(n, tracker: &tracker, sampler: &sampler, fix: TimeSamplerTests.fix(second: n, mode: .noFix))
            #expect(serial == .failure(.noFix))
            if n == 5 { #expect(pps == .failure(.pulseWithoutConfirmedSecond)) }
        }
        let (serial6, _) = Self.second(6, tracker: &tracker, sampler: &sampler)
        #expect(serial6 == .failure(.unconfirmed(consistent: 1, needed: 3)))
        let (_, pps7) = Self.second(7, tracker: &tracker, sampler: &sampler)
        #expect(pps7 == .failure(.pulseWithoutConfirmedSecond))
        _ = Self.second(8, tracker: &tracker, sampler: &sampler)
        let (serial9, pps9) = Self.second(9, tracker: &tracker, sampler: &sampler)
        #expect((try? serial9.get()) != nil)
        #expect(try #require(try pps9?.get()).referenceNanoseconds == Self.noon + 9_000_000_000)
    }
}
