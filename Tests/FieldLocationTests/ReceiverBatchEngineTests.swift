import BoardConfig
import EnginePlatforms
@testable import FieldLocation
import Foundation
import HardwareInterfaces
import LocationAPI
import LocationServices
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Testing

/// Receiver-side batching through the engine: an emulated M8 that kept its fixes while the host
/// was off is drained when the engine starts, and the fixes reach a batching client in time
/// order, with their own times, ahead of the live ones; at shutdown the buffer is emptied and
/// the receiver left tracking for the next absence.
@Suite("Receiver-side batching through the engine")
struct ReceiverBatchEngineTests {
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [[Location]] = []
        var batches: [[Location]] { lock.withLock { storage } }
        func add(_ batch: [Location]) { lock.withLock { storage.append(batch) } }
    }

    @Test("ten minutes kept by the receiver while the host was off reach a batching client first, oldest first, with their own times")
    func drainedAtStartReachesABatchingClient() throws {
        var board = try EngineSimulation.board(for: .ubloxM8)
        board.sensors = []
        board.bluetooth = nil
        board.receiver?.batch = 300
        let clock = ManualClock()
        let sim = try BoardHardware.simulatedBoard(for: board, clock: clock, receiverTracking: true)
        // Before the host: batching was switched on (the previous run), then ten minutes pass unread.
        let port = try #require(sim.platform.serialPort(BoardHardware.simulatedPortName))
        try port.reopen(baudRate: .b9600)
        try UBloxDriver(channel: CommandChannel(port: port), generation: .m8).enableBatching(bufferSize: 300)
        clock.advance(by: .seconds(600))
        try port.discard(.input)
        port.close()
        let hostStart = clock.now()

        let engine = LocationEngine(board: board, platform: SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver),
                                    stateDirectory: nil, receiverAwake: true)
        let seen = Seen(), live = Seen()
        let batching = engine.register(name: "batching") { if case .locations(let l) = $0 { seen.add(l) } }.id
        engine.update(batching) { s in
            s.updatingLocation = true
            s.batchingMaximumDelay = 30
        }
        let plain = engine.register(name: "plain") { if case .locations(let l) = $0 { live.add(l) } }.id
        engine.update(plain) { $0.updatingLocation = true }
        engine.advance(by: .seconds(70))

        let delivered = seen.batches.flatMap { $0 }
        let drained = delivered.filter { $0.receivedAt <= hostStart.advanced(by: .seconds(5)) && ($0.timestamp ?? .infinity) < live.batches.flatMap { $0 }.compactMap(\.timestamp).min() ?? 0 }
        #expect(drained.count == 300, "the receiver's whole buffer: \(drained.count) of \(delivered.count)")
        let times = delivered.compactMap(\.timestamp)
        #expect(times.count == delivered.count && zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "one time line, oldest first")
        if let first = times.first, let last = drained.last?.timestamp {
            #expect(last - first == 299, "a fix a second for the last 300 s before the host came: \(first) … \(last)")
        }
        #expect(delivered.count > drained.count, "the live fixes follow in the same batches")
        // The plain client wants live fixes only.
        #expect(live.batches.flatMap { $0 }.allSatisfy { ($0.timestamp ?? 0) > (drained.last?.timestamp ?? 0) })

        // A client that starts batching later (within the hour) gets the drained fixes too, once.
        let late = Seen()
        let later = engine.register(name: "later") { if case .locations(let l) = $0 { late.add(l) } }.id
        engine.update(later) { s in
            s.updatingLocation = true
            s.batchingMaximumDelay = 30
        }
        engine.advance(by: .seconds(40))
        #expect(late.batches.flatMap { $0 }.filter { drained.map(\.timestamp).contains($0.timestamp) }.count == 300)

        // Shutdown: the buffer is emptied and the receiver keeps tracking for the next absence.
        engine.shutdown()
        #expect(sim.receiver.powerState == .tracking || sim.receiver.powerState == .acquiring, "\(sim.receiver.powerState); \(sim.receiver.commands.suffix(8))")
        clock.advance(by: .seconds(120))
        try port.reopen(baudRate: .b9600)
        let next = try UBloxDriver(channel: CommandChannel(port: port), generation: .m8).drainBatch()
        #expect((119...121).contains(next.entries.count), "only the two minutes after the shutdown: \(next.entries.count)")
    }
}
