import HardwareInterfaces
import SensorDrivers
import Synchronization
import Testing

/// An I2C bus that plays an exact script: each transfer must be the next expected
/// `(address, operation)`, which answers with bytes or an error. Anything unexpected or out of
/// order records a test issue (at the line that scripted the step) and throws; ``finish()``
/// records an issue for every step not consumed.
final class ScriptedI2CBus: I2CBus {
    struct Step: CustomStringConvertible {
        let address: UInt8
        let operation: I2COperation
        let result: Result<[UInt8], HardwareError>
        let location: SourceLocation

        var description: String { "\(operation) at \(hex(address))" }
    }

    let name = "scripted"
    private let state = Mutex<(steps: [Step], next: Int)>(([], 0))

    /// Expects `operation` at `address`, answering `response` (empty for writes).
    func expect(_ address: UInt8, _ operation: I2COperation, returns response: [UInt8] = [],
                sourceLocation: SourceLocation = #_sourceLocation) {
        state.withLock { $0.steps.append(Step(address: address, operation: operation, result: .success(response),
                                             location: sourceLocation)) }
    }

    /// Expects `operation` at `address`, failing with `error`.
    func expect(_ address: UInt8, _ operation: I2COperation, fails error: HardwareError,
                sourceLocation: SourceLocation = #_sourceLocation) {
        state.withLock { $0.steps.append(Step(address: address, operation: operation, result: .failure(error),
                                             location: sourceLocation)) }
    }

    /// Expects a one-byte register read answering `value`.
    func read(_ address: UInt8, _ register: UInt8, _ value: UInt8, sourceLocation: SourceLocation = #_sourceLocation) {
        expect(address, .readByte(register: register), returns: [value], sourceLocation: sourceLocation)
    }

    /// Expects a one-byte register write.
    func write(_ address: UInt8, _ register: UInt8, _ value: UInt8, sourceLocation: SourceLocation = #_sourceLocation) {
        expect(address, .writeByte(register: register, value: value), sourceLocation: sourceLocation)
    }

    /// Expects a block read of `bytes.count` bytes from exactly `register`.
    func block(_ address: UInt8, _ register: UInt8, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        expect(address, .readBlock(register: register, count: bytes.count), returns: bytes, sourceLocation: sourceLocation)
    }

    func transfer(_ operation: I2COperation, at address: I2CAddress) throws(HardwareError) -> [UInt8] {
        let outcome: Result<[UInt8], HardwareError> = state.withLock { state in
            guard state.next < state.steps.count else {
                Issue.record("unexpected transaction after the script ended: \(operation) at \(address)")
                return .failure(HardwareError(.other, device: name, operation: operation.description, detail: "not scripted"))
            }
            let step = state.steps[state.next]
            guard step.address == address.rawValue, step.operation == operation else {
                Issue.record("step \(state.next): expected \(step), got \(operation) at \(address)", sourceLocation: step.location)
                return .failure(HardwareError(.other, device: name, operation: operation.description, detail: "out of script"))
            }
            state.next += 1
            return step.result
        }
        return try outcome.get()
    }

    /// Records an issue for every scripted step the driver did not perform.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        let left = state.withLock { Array($0.steps[$0.next...]) }
        for step in left {
            Issue.record("scripted step not performed: \(step)", sourceLocation: step.location)
        }
        #expect(left.isEmpty, "\(left.count) scripted steps left", sourceLocation: sourceLocation)
    }
}

/// A monotonic clock that only moves when someone sleeps on it.
final class FakeClock: MonotonicClock {
    private let state = Mutex<(now: UInt64, sleeps: Int)>((0, 0))

    func now() -> MonotonicInstant { MonotonicInstant(nanoseconds: state.withLock { $0.now }) }

    func sleep(until deadline: MonotonicInstant) {
        state.withLock {
            $0.now = max($0.now, deadline.nanoseconds)
            $0.sleeps += 1
        }
    }

    var elapsed: Duration { .nanoseconds(Int64(state.withLock { $0.now })) }
    var sleeps: Int { state.withLock { $0.sleeps } }
}

func address(_ value: UInt8, sourceLocation: SourceLocation = #_sourceLocation) throws -> I2CAddress {
    try #require(I2CAddress(value), sourceLocation: sourceLocation)
}

/// Little-endian bytes of signed 16-bit values.
func le(_ values: Int16...) -> [UInt8] {
    values.flatMap { v -> [UInt8] in
        let u = UInt16(bitPattern: v)
        return [UInt8(u & 0xFF), UInt8(u >> 8)]
    }
}

/// Big-endian bytes of signed 16-bit values.
func be(_ values: Int16...) -> [UInt8] {
    values.flatMap { v -> [UInt8] in
        let u = UInt16(bitPattern: v)
        return [UInt8(u >> 8), UInt8(u & 0xFF)]
    }
}

func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

func close(_ v: SensorVector, _ x: Double, _ y: Double, _ z: Double, _ tolerance: Double = 1e-9) -> Bool {
    close(v.x, x, tolerance) && close(v.y, y, tolerance) && close(v.z, z, tolerance)
}

/// Runs `body` and returns the ``SensorError`` it throws, recording an issue if it does not throw.
func sensorError<T>(sourceLocation: SourceLocation = #_sourceLocation,
                    _ body: () throws(SensorError) -> T) -> SensorError? {
    do {
        _ = try body()
        Issue.record("expected a SensorError, got success", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// A no-acknowledge error as a bus backend would throw it, naming only the bus.
let nack = HardwareError(.noAcknowledgeAddress, device: "scripted", operation: "read", detail: "errno 6")

/// Checks that `error` is ``SensorError/bus(_:)`` of `kind` naming `device`.
func expectBusError(_ error: SensorError?, kind: HardwareError.Kind, device: String,
                    sourceLocation: SourceLocation = #_sourceLocation) {
    guard case .bus(let hardware)? = error else {
        Issue.record("expected SensorError.bus, got \(String(describing: error))", sourceLocation: sourceLocation)
        return
    }
    #expect(hardware.kind == kind, sourceLocation: sourceLocation)
    #expect(hardware.device == device, sourceLocation: sourceLocation)
}
