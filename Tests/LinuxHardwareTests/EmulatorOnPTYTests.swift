import Foundation
import HardwareInterfaces
import LinuxHardware
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware
import Synchronization
import Testing

/// Moves bytes between a pseudo-terminal's controller and a receiver emulator, in real time.
final class Pump: @unchecked Sendable {
    final class Flag: Sendable {
        let value = Mutex(true)
    }
    let running = Flag()
    let thread: Thread

    init(pair: PseudoTerminalPair, receiver: ReceiverEmulator, clock: SystemMonotonicClock) {
        let running = self.running
        thread = Thread {
            while running.value.withLock({ $0 }) {
                let now = clock.now()
                if let bytes = try? pair.controller.readAvailable(deadline: now.advanced(by: .milliseconds(5))), !bytes.isEmpty {
                    receiver.receive(bytes, at: clock.now())
                }
                let out = receiver.transmit(upTo: clock.now())
                if !out.isEmpty { try? pair.controller.writeAll(out, deadline: clock.deadline(after: .seconds(1))) }
            }
        }
        thread.start()
    }

    func stop() {
        running.value.withLock { $0 = false }
        Thread.sleep(forTimeInterval: 0.05)
    }
}

@Suite("Receiver emulator behind a pseudo-terminal, through the real termios code")
struct EmulatorOnPTYTests {
    @Test("the MediaTek driver configures the emulated receiver over a pty and NMEA comes back at the new rate")
    func mediatekOverPTY() throws {
        let clock = SystemMonotonicClock()
        let pair = try PseudoTerminalPair()
        let port = try LinuxSerialPort.open(pair.devicePath, baudRate: .b9600)
        defer { port.close() }
        let receiver = ReceiverEmulator(family: .mediatek, profile: .mt3339,
                                        trajectory: Trajectory.scenario("walk", seconds: 600)!, start: clock.now())
        let pump = Pump(pair: pair, receiver: receiver, clock: clock)
        defer { pump.stop() }
        let driver = MediaTekDriver(channel: CommandChannel(port: port, timeout: .seconds(2)))
        try driver.configure(rateMilliseconds: 200, outputs: [.gga: 1, .rmc: 1])
        #expect(receiver.interval == .milliseconds(200))
        let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, provenance: .receiver))
        var fixes = 0
        let end = clock.deadline(after: .milliseconds(2500))
        while clock.now() < end {
            let chunk = try port.readAvailable(deadline: end)
            chunk.withUnsafeBufferPointer { stream.feed($0.span) { _ in fixes += 1 } }
        }
        #expect(fixes >= 6, "about 5 fixes a second after the hot start")
        #expect(receiver.commands.contains("PMTK220,200"))
    }
}
