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

    @Test("predictions switched on only at the wake after the sleep grew from nothing: a warm start")
    func predictionsTooLate() {
        var model = Self.slept(.m10, hours: 6, predictions: false)
        model.wake()
        model.predictionsEnabled = true
        model.aid(timeAccuracy: 0.1, positionAccuracy: 1_000)
        #expect(model.predictionsCollectedAt == nil && !model.lastStartAided)
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

    /// An emulated receiver that tracked for two minutes, then slept 6 h in backup and was powered again.
    static func emulator(_ family: ReceiverEmulator.Family, _ profile: ReceiverProfile) -> (ReceiverEmulator, ManualClock) {
        let clock = ManualClock()
        let receiver = ReceiverEmulator(family: family, profile: profile,
                                        trajectory: .legs([.init(duration: 30_000, speed: 0, course: 0)], latitude: 47.4, longitude: 8.5),
                                        start: clock.now(), tracking: true)
        clock.advance(by: .seconds(120))
        _ = receiver.transmit(upTo: clock.now())
        receiver.setPower(false, at: clock.now())
        clock.advance(by: .seconds(6 * 3600))
        receiver.setPower(true, at: clock.now())
        return (receiver, clock)
    }

    /// Seconds until the emulator reports a tracking state, stepping its output second by second.
    static func secondsToTrack(_ receiver: ReceiverEmulator, _ clock: ManualClock) -> Int {
        for second in 1...120 {
            clock.advance(by: .seconds(1))
            _ = receiver.transmit(upTo: clock.now())
            if receiver.powerState == .tracking { return second }
        }
        return -1
    }

    @Test("the emulator parses MediaTek $PMTK741 (acknowledged) and shortens a warm start to EASY's figure; $PMTK740 alone does not")
    func mediatekFrames() {
        let (receiver, clock) = Self.emulator(.mediatek, .mt3339)
        receiver.receive(Array("$PMTK741,47.400000,8.500000,400,2026,05,01,18,02,00*0F\r\n".utf8), at: clock.now())
        #expect(receiver.aidingReceived == [], "a wrong checksum is dropped")
        receiver.receive(Array("$PMTK741,47.400000,8.500000,400,2026,05,01,18,02,00*1B\r\n".utf8), at: clock.now())
        #expect(receiver.aidingReceived == ["time ±1.00 s", "position ±10000.00 m"])
        clock.advance(by: .milliseconds(100))
        #expect(String(decoding: receiver.transmit(upTo: clock.now()), as: UTF8.self).contains("$PMTK001,741,3*"))
        #expect(receiver.lastStart.aided && receiver.aidedStarts == 1)
        #expect(abs(Self.secondsToTrack(receiver, clock) - 15) <= 1)

        let (timeOnly, clock2) = Self.emulator(.mediatek, .mt3339)
        timeOnly.receive(Array("$PMTK740,2026,05,01,18,02,00*38\r\n".utf8), at: clock2.now())
        #expect(timeOnly.aidingReceived == ["time ±1.00 s"])
        #expect(!timeOnly.lastStart.aided)
        #expect(abs(Self.secondsToTrack(timeOnly, clock2) - 35) <= 1)
    }

    @Test("the emulator parses CASIC AID-INI (position and time variances); the AT6558 has no predictions: a warm start stays warm")
    func casicFrame() {
        let (receiver, clock) = Self.emulator(.casic, .ubloxM10)
        let frame: [UInt8] = """
            BA CE 38 00 0B 01 00 00 00 00 00 00 3E 40 00 00 00 00 00 00 5E 40 00 00 00 00 00 00 24 40 00 00 00 00 48 BB 17 41 \
            00 00 00 00 00 40 1C 46 A7 A6 9F 5B 00 00 00 00 00 00 00 00 61 09 00 23 88 AB 9E C7
            """.split(separator: " ").compactMap { UInt8($0, radix: 16) }
        receiver.receive(frame, at: clock.now())
        #expect(receiver.aidingReceived == ["time ±1.00 s", "position ±100.00 m"])
        #expect(!receiver.predictionsEnabled && !receiver.lastStart.aided)
    }
}

