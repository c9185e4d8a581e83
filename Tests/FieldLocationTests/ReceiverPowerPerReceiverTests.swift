import BoardConfig
import EnginePlatforms
@testable import FieldLocation
import HardwareInterfaces
import LocationAPI
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Testing

/// Two emulated receivers on two simulated ports of one manual clock: a board with several
/// receivers, without the pseudo-terminals' real time.
struct TwoReceiverPlatform: EnginePlatform {
    let platform: SimulatedPlatform
    let emulators: [ReceiverEmulator]
    var hardware: any HardwarePlatform { platform }
    var pacing: EnginePacing { .manual }
    var provenance: Provenance { .simulator }
    var providesReceiver: Bool { true }
    func receiverPort(for board: BoardDescription) -> String { board.receiver?.uart ?? "" }
    func receiverLines(for board: BoardDescription) throws(HardwareError) -> ReceiverLines { ReceiverLines() }
    func measuredReceiverEnergy() -> EnergyLedger? { nil }
    func utcSeconds(at instant: MonotonicInstant) -> Double { 1_777_593_600 + instant.seconds }
    func nextScheduledEvent(after instant: MonotonicInstant) -> MonotonicInstant? {
        emulators.compactMap { $0.nextTransmission(after: instant) }.min()
    }

    /// `first` on `/dev/ttyA` and `second` on `/dev/ttyB`, both tracking, walking; the board names
    /// the first's family and leaves the second's to detection when `detectSecond`.
    static func engine(_ first: ReceiverEmulator.Family, _ second: ReceiverEmulator.Family, detectSecond: Bool = true) throws
        -> (LocationEngine, [ReceiverEmulator])
    {
        let clock = ManualClock()
        let platform = try SimulatedPlatform(SimulatedPlatformDescription(serialPorts: [.init(path: "/dev/ttyA", baudRate: 9600),
                                                                                          .init(path: "/dev/ttyB", baudRate: 9600)]),
                                             clock: clock)
        let emulators = [first, second].enumerated().map { index, family in
            ReceiverEmulator(family: family, profile: family.model.powerProfile, trajectory: Trajectory.scenario("walk", seconds: 7200)!,
                             start: clock.now(), tracking: true, seed: UInt64(index + 1))
        }
        platform.serialPort("/dev/ttyA")?.attach(emulators[0])
        platform.serialPort("/dev/ttyB")?.attach(emulators[1])
        func description(_ uart: String, _ family: ReceiverEmulator.Family, detect: Bool) -> ReceiverDescription {
            let model = family.model
            var receiver = ReceiverDescription(uart: uart, baudRate: .b9600, family: detect ? .genericNMEA : model.entry.family,
                                               model: detect ? nil : model.rawValue, wake: [.uartByte], output: .nmea)
            receiver.detectsFamily = detect
            receiver.requestedOutput = .nmea
            return receiver
        }
        var board = BoardDescription(name: "two", title: "Two receivers", simulated: false,
                                     receiver: description("/dev/ttyA", first, detect: false),
                                     i2cBus: nil, sensors: [], gpio: nil, setupNotes: [], simulation: nil)
        board.otherReceivers = [description("/dev/ttyB", second, detect: detectSecond)]
        let engine = LocationEngine(board: board, platform: TwoReceiverPlatform(platform: platform, emulators: emulators))
        return (engine, emulators)
    }
}

/// Power decided per receiver (docs/RECEIVER-CONFIG.md, "Power per receiver"): each receiver's own
/// profile and power modes give its own decision for the same demand, each is charged on its own,
/// and the sources listing shows each one's power state.
@Suite("Power decisions per receiver")
struct ReceiverPowerPerReceiverTests {
    @Test("a 4 s period: the u-blox M10 in cyclic tracking, the detected MediaTek continuous (it has none); both stay live")
    func cyclicAndContinuous() throws {
        let (engine, emulators) = try TwoReceiverPlatform.engine(.ublox10, .mediatek)
        let id = engine.register(name: "walker") { _ in }.id
        engine.update(id) { $0.updatingLocation = true; $0.desiredAccuracy = .nearestTenMeters }
        engine.advance(by: .seconds(120))
        let sources = engine.receiverSources
        try #require(sources.count == 2)
        #expect(sources[1].family == "mtk", "the second was identified: \(sources[1].identification ?? "")")
        #expect(sources[0].powerState == "cyclic tracking 1 Hz", "\(sources[0].powerState ?? "")")
        #expect(sources[1].powerState?.hasPrefix("continuous") == true, "\(sources[1].powerState ?? "")")
        #expect(emulators[0].isPowerSaving)
        #expect(!emulators[1].isPowerSaving)
        // Both compete: each has a live fix.
        #expect(sources.allSatisfy { $0.lastFixType != nil })
        // Each charged at its own decision and figures; together the board's total.
        let total = engine.energyUsed.charge(.receiver)
        #expect(abs(sources[0].charge + sources[1].charge - total) < 1e-9)
        #expect(sources[1].charge > sources[0].charge * 2, "MT3339 tracking at 20 mA against the M10's 7 mA cyclic: \(sources.map(\.charge))")
        let mediatek = ReceiverProfile.mt3339.tracking, m10Cyclic = try #require(ReceiverProfile.ubloxM10.cyclicTracking)
        // (The first seconds, before the M10 had five satellites and while the MediaTek was being
        // identified, were charged otherwise.)
        #expect(abs(sources[1].charge / sources[0].charge - mediatek / m10Cyclic) < 0.15 * mediatek / m10Cyclic)
    }

    @Test("a fix a minute: the u-blox M8 sleeps in software standby (crossover 97 s), the MediaTek in backup (crossover 12.5 s)")
    func standbyAndBackup() throws {
        let (engine, emulators) = try TwoReceiverPlatform.engine(.ublox8, .mediatek, detectSecond: false)
        let id = engine.register(name: "logger") { _ in }.id
        engine.update(id) {
            $0.updatingLocation = true
            $0.desiredAccuracy = .hundredMeters
            $0.updateInterval = 60
        }
        engine.advance(by: .seconds(600))
        let sources = engine.receiverSources
        #expect(sources[0].powerState?.contains("standby between") == true, "\(sources[0].powerState ?? "")")
        #expect(sources[1].powerState?.contains("backup between") == true, "\(sources[1].powerState ?? "")")
        // Both slept for most of those ten minutes.
        for emulator in emulators {
            let ledger = emulator.ledger
            let awake = ["tracking", "acquiring"].reduce(0.0) { $0 + (ledger.entries[.receiver]?[$1]?.seconds ?? 0) }
            #expect(awake < 400, "\(ledger.entries)")
        }
    }

    @Test("with no client every receiver idles; its power state says so")
    func idle() throws {
        let (engine, _) = try TwoReceiverPlatform.engine(.ublox10, .mediatek, detectSecond: false)
        engine.advance(by: .seconds(10))
        #expect(engine.receiverSources.allSatisfy { $0.powerState?.hasPrefix("idle") == true }, "\(engine.receiverSources.map(\.powerState))")
    }
}
