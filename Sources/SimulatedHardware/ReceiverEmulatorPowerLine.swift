import HardwareInterfaces
import Synchronization

/// A power-enable line wired to a ``ReceiverEmulator``'s supply.
final class EmulatedPowerLine: GPIOLine, @unchecked Sendable {
    let receiver: ReceiverEmulator
    let clock: any MonotonicClock
    let level: Mutex<Bool>
    init(receiver: ReceiverEmulator, clock: any MonotonicClock) {
        self.receiver = receiver
        self.clock = clock
        // The line starts as the receiver is: supplied unless it sleeps in backup or is off.
        let state = receiver.powerState
        level = Mutex(state != .backup && state != .off)
    }
    var name: String { "emulated/gnss-enable" }
    var isOutput: Bool { true }
    func set(_ high: Bool) throws(HardwareError) {
        level.withLock { $0 = high }
        receiver.setPower(high, at: clock.now())
    }
    func get() throws(HardwareError) -> Bool { level.withLock { $0 } }
    func waitForEdge(deadline: MonotonicInstant) throws(HardwareError) -> GPIOEvent? {
        throw HardwareError(.unsupported, device: name, operation: "wait for edge", detail: "the line is an output")
    }
    func release() {}
}
