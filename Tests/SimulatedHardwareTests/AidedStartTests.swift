import HardwareInterfaces
import PowerPolicy
import SimulatedHardware
import Testing

/// The receiver model's starts with and without the host's aiding, second by second.
@Suite("Aided starts in the receiver model")
struct AidedStartTests {
    /// A receiver that tracked for two minutes (ephemerides collected) and then slept `hours` in
    /// `sleep` (nil: power and backup lost).
    static func slept(_ profile: ReceiverProfileName, hours: Double, backup: Bool = true, predictions: Bool = true) -> GNSSReceiverModel {
        var model = GNSSReceiverModel(profile: profile.profile, state: .tracking, hasEphemeris: true, seed: 7)
        model.predictionsEnabled = predictions
        for _ in 0..<120 { _ = model.step() }
        model.sleep(backup ? .backup : nil)
        for _ in 0..<Int(hours * 3600) { _ = model.step() }
        return model
    }

    /// Seconds from now to the first second with a fix.
    static func secondsToFix(_ model: inout GNSSReceiverModel) -> Int {
        for second in 1...600 {
            _ = model.step()
            if model.hasFix { return second }
        }
        return -1
    }

    enum ReceiverProfileName { case m10, m8, mt3339
        var profile: ReceiverProfile { self == .m10 ? .ubloxM10 : (self == .m8 ? .ubloxM8 : .mt3339) }
    }

    @Test("after 6 h in backup: a warm start alone; time, position and valid orbit predictions make the data sheet's aided start",
          arguments: [ReceiverProfileName.m10, .m8, .mt3339])
    func longSleep(_ name: ReceiverProfileName) throws {
        let profile = name.profile
        let aided = try #require(profile.aidedStart)
        var plain = Self.slept(name, hours: 6)
        plain.wake()
        #expect(plain.lastStart == .warm)
        #expect(Self.secondsToFix(&plain) == Int(profile.warmStart))
        var helped = Self.slept(name, hours: 6)
        helped.wake()
        helped.aid(timeAccuracy: 0.11, positionAccuracy: 2_000)
        #expect(helped.lastStartAided && helped.aidedStarts == 1)
        #expect(Self.secondsToFix(&helped) == Int(aided))
        #expect(profile.warmStart / aided >= 2, "the data sheets' factor: \(profile.warmStart) s / \(aided) s")
    }

    @Test("predictions off (u-blox before AssistNow Autonomous is enabled): time and position make only a warm start")
    func predictionsOff() {
        var model = Self.slept(.m10, hours: 6, predictions: false)
        model.wake()
        model.aid(timeAccuracy: 0.1, positionAccuracy: 1_000)
        #expect(!model.lastStartAided, "a warm start already: aiding changes nothing")
        #expect(Self.secondsToFix(&model) == Int(ReceiverProfile.ubloxM10.warmStart))
    }

    @Test("power and backup lost: a cold start; time and position make at best a warm start, which these data sheets put no lower",
          arguments: [ReceiverProfileName.m10, .m8, .mt3339])
    func powerLost(_ name: ReceiverProfileName) {
        let profile = name.profile
        var plain = Self.slept(name, hours: 1, backup: false)
        plain.wake()
        #expect(plain.lastStart == .cold)
        #expect(Self.secondsToFix(&plain) == Int(profile.coldStart))
        var helped = Self.slept(name, hours: 1, backup: false)
        helped.wake()
        helped.aid(timeAccuracy: 0.1, positionAccuracy: 1_000)
        #expect(Self.secondsToFix(&helped) == Int(min(profile.coldStart, profile.warmStart)))
    }

    @Test("coarse aiding is ignored, a hot start stays hot, and predictions older than three days are gone")
    func limits() {
        // After a power loss (no RTC) with a slow cold start, so a useful aid would show: a time
        // coarser than 10 s or a position coarser than 300 km is not used.
        var slowCold = ReceiverProfile.ubloxM10
        slowCold.coldStart = 60
        for (time, position, expected) in [(30.0, 1_000.0, 60), (0.1, 400_000.0, 60), (0.1, 1_000.0, 30)] {
            var model = GNSSReceiverModel(profile: slowCold, state: .off, hasEphemeris: false, seed: 3)
            model.wake()
            #expect(model.lastStart == .cold)
            model.aid(timeAccuracy: time, positionAccuracy: position)
            #expect(model.lastStartAided == (expected == 30), "time ±\(time) s, position ±\(position) m")
            #expect(Self.secondsToFix(&model) == expected, "time ±\(time) s, position ±\(position) m")
        }
        var hot = Self.slept(.m10, hours: 1)
        hot.wake()
        #expect(hot.lastStart == .hot)
        hot.aid(timeAccuracy: 0.1, positionAccuracy: 1_000)
        #expect(!hot.lastStartAided)
        #expect(Self.secondsToFix(&hot) == Int(ReceiverProfile.ubloxM10.hotStartFromBackup))
        var stale = Self.slept(.m10, hours: 73)
        stale.wake()
        stale.aid(timeAccuracy: 0.1, positionAccuracy: 1_000)
        #expect(!stale.lastStartAided, "predictions last 72 h")
    }
}
