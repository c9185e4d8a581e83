import HardwareInterfaces
import Synchronization

/// A device that answers on a ``SimulatedI2CBus``.
public protocol SimulatedI2CDevice: AnyObject, Sendable {
    /// The chip's name, for logs and messages (`LIS3MDL`).
    var chipName: String { get }

    /// Whether the device acknowledges its address now. A magnetometer behind a closed I2C
    /// bypass (the AK09916 inside an ICM-20948) does not.
    var acknowledgesAddress: Bool { get }

    /// Performs a well-formed `operation` at instant `now` and returns the bytes read
    /// (``I2COperation/responseLength`` of them; empty for writes).
    func handle(_ operation: I2COperation, now: MonotonicInstant) -> [UInt8]
}

/// A failure a test injects into a ``SimulatedI2CBus``.
public enum SimulatedI2CFault: Sendable, Hashable, CustomStringConvertible {
    /// Nobody acknowledges the address (an absent or unpowered chip).
    case noAcknowledgeAddress
    /// The address is acknowledged, a data byte is not.
    case noAcknowledgeData
    /// The adapter reports an I/O error (EIO): lost arbitration, a glitch on SDA.
    case busError
    /// SDA or SCL held low: every call times out.
    case stuckBus
    /// Block and word reads return only `bytes` bytes (fewer than asked).
    case shortRead(bytes: Int)

    /// `no acknowledge on address` and so on.
    public var description: String {
        switch self {
        case .noAcknowledgeAddress: return "no acknowledge on address"
        case .noAcknowledgeData: return "no acknowledge on data"
        case .busError: return "bus error"
        case .stuckBus: return "stuck bus"
        case .shortRead(let n): return "short read of \(n) bytes"
        }
    }
}

/// How long an injected fault lasts.
public enum SimulatedFaultDuration: Sendable, Hashable {
    /// For the next `n` calls that reach the fault's scope, then it clears itself.
    case calls(Int)
    /// Until ``SimulatedI2CBus/clearFaults(at:)`` or ``SimulatedI2CBus/clearAllFaults()``.
    case untilCleared
}

/// How a ``SimulatedI2CBus`` reports a missing acknowledge.
public enum NoAcknowledgeReporting: Sendable, Hashable {
    /// As Linux i2c-dev does: ENXIO for any missing acknowledge, so ``HardwareError/Kind/noAcknowledge``.
    case linux
    /// The precise kinds ``HardwareError/Kind/noAcknowledgeAddress`` and ``HardwareError/Kind/noAcknowledgeData``.
    case precise
}

/// One call seen by a ``SimulatedI2CBus``: what was asked and what came back.
public struct SimulatedI2CTransaction: Sendable, Equatable, CustomStringConvertible {
    /// When the call happened on the bus's clock.
    public var timestamp: MonotonicInstant
    /// The device address.
    public var address: I2CAddress
    /// The operation.
    public var operation: I2COperation
    /// The bytes returned, or the error thrown.
    public var result: Result<[UInt8], HardwareError>

    /// Whether the call succeeded.
    public var succeeded: Bool {
        if case .success = result { return true }
        return false
    }

    /// `0x1e read register 0x4f -> [0x40]`.
    public var description: String {
        switch result {
        case .success(let bytes): return "\(address) \(operation) -> [\(bytes.map(hex).joined(separator: " "))]"
        case .failure(let error): return "\(address) \(operation) -> \(error.kind.rawValue)"
        }
    }
}

/// An in-memory I2C bus with attached simulated devices, a transaction log and fault injection.
///
/// Faults map to ``HardwareError`` kinds as the Linux backend reports them: a missing
/// acknowledge is ENXIO (``HardwareError/Kind/noAcknowledge``, or the precise kinds with
/// ``NoAcknowledgeReporting/precise``), an adapter error is EIO (``HardwareError/Kind/bus``), a
/// stuck bus times out (``HardwareError/Kind/timeout``), and a malformed block length is EINVAL
/// (``HardwareError/Kind/invalidArgument``).
public final class SimulatedI2CBus: I2CBus {
    private struct Fault {
        var fault: SimulatedI2CFault
        var remaining: Int?
    }

    private struct State {
        var devices: [I2CAddress: any SimulatedI2CDevice] = [:]
        var unplugged: Set<I2CAddress> = []
        var addressFaults: [I2CAddress: Fault] = [:]
        var busFault: Fault?
        var log: [SimulatedI2CTransaction] = []
    }

    /// The bus name, for example `sim-i2c-1`.
    public let name: String
    /// The clock that stamps the log and drives the devices.
    public let clock: any MonotonicClock
    /// The most transactions the log keeps by default: the oldest are dropped beyond it, so a
    /// day-long simulation stays in bounded memory.
    public static let defaultLogCapacity = 20_000
    /// The most transactions this bus's log keeps (0: none are kept).
    public let logCapacity: Int
    /// How a missing acknowledge is reported.
    public let noAcknowledgeReporting: NoAcknowledgeReporting
    private let state = Mutex(State())

    /// Creates an empty bus whose log keeps the last `logCapacity` transactions (a test's script
    /// needs them; a simulated board serving clients keeps few).
    public init(name: String = "sim-i2c-1", clock: any MonotonicClock, noAcknowledgeReporting: NoAcknowledgeReporting = .linux,
                logCapacity: Int = SimulatedI2CBus.defaultLogCapacity) {
        self.name = name
        self.logCapacity = max(0, logCapacity)
        self.clock = clock
        self.noAcknowledgeReporting = noAcknowledgeReporting
    }

    /// Attaches `device` at `address`, replacing any device there.
    public func attach(_ device: any SimulatedI2CDevice, at address: I2CAddress) {
        state.withLock {
            $0.devices[address] = device
            $0.unplugged.remove(address)
        }
    }

    /// Removes the device at `address` for good.
    public func detach(at address: I2CAddress) {
        state.withLock { _ = $0.devices.removeValue(forKey: address) }
    }

    /// The device attached at `address`, plugged in or not.
    public func device(at address: I2CAddress) -> (any SimulatedI2CDevice)? {
        state.withLock { $0.devices[address] }
    }

    /// The addresses of the devices attached and plugged in, in ascending order.
    public var addresses: [I2CAddress] {
        state.withLock { s in s.devices.keys.filter { !s.unplugged.contains($0) }.sorted() }
    }

    /// Unplugs the device at `address`: it no longer acknowledges its address until ``replug(at:)``.
    public func unplug(at address: I2CAddress) {
        state.withLock { _ = $0.unplugged.insert(address) }
    }

    /// Plugs a device unplugged with ``unplug(at:)`` back in.
    public func replug(at address: I2CAddress) {
        state.withLock { _ = $0.unplugged.remove(address) }
    }

    /// Injects `fault` for calls to `address`, or for every call when `address` is `nil`
    /// (a bus-wide fault wins over a per-address one).
    public func inject(_ fault: SimulatedI2CFault, at address: I2CAddress? = nil, for duration: SimulatedFaultDuration = .untilCleared) {
        var remaining: Int?
        if case .calls(let n) = duration { remaining = max(0, n) }
        let entry = Fault(fault: fault, remaining: remaining)
        state.withLock {
            if let address { $0.addressFaults[address] = entry } else { $0.busFault = entry }
        }
    }

    /// Clears the fault at `address`, or the bus-wide fault when `address` is `nil`.
    public func clearFaults(at address: I2CAddress? = nil) {
        state.withLock {
            if let address { $0.addressFaults[address] = nil } else { $0.busFault = nil }
        }
    }

    /// Clears every injected fault.
    public func clearAllFaults() {
        state.withLock {
            $0.addressFaults = [:]
            $0.busFault = nil
        }
    }

    /// Every call so far, oldest first.
    public var log: [SimulatedI2CTransaction] { state.withLock { $0.log } }  // the last ``logCapacity`` at most

    /// Forgets the log.
    public func clearLog() { state.withLock { $0.log = [] } }

    /// Performs `operation` on the device at `address`, applying any injected fault.
    public func transfer(_ operation: I2COperation, at address: I2CAddress) throws(HardwareError) -> [UInt8] {
        let now = clock.now()
        let result = perform(operation, at: address, now: now)
        state.withLock {
            guard logCapacity > 0 else { return }
            $0.log.append(SimulatedI2CTransaction(timestamp: now, address: address, operation: operation, result: result))
            if $0.log.count > logCapacity { $0.log.removeFirst($0.log.count - logCapacity * 3 / 4) }
        }
        return try result.get()
    }

    private func perform(_ operation: I2COperation, at address: I2CAddress, now: MonotonicInstant) -> Result<[UInt8], HardwareError> {
        let device = deviceName(address)
        guard operation.isValid else {
            return .failure(HardwareError(.invalidArgument, device: device, operation: operation.description,
                                          detail: "errno 22: Invalid argument (block length outside 1...32)"))
        }
        let (target, fault) = state.withLock { s -> ((any SimulatedI2CDevice)?, SimulatedI2CFault?) in
            let target = s.unplugged.contains(address) ? nil : s.devices[address]
            if var f = s.busFault {
                if let r = f.remaining { f.remaining = r - 1; s.busFault = r - 1 > 0 ? f : nil }
                if f.remaining.map({ $0 >= 0 }) ?? true { return (target, f.fault) }
            }
            if var f = s.addressFaults[address] {
                if let r = f.remaining { f.remaining = r - 1; s.addressFaults[address] = r - 1 > 0 ? f : nil }
                if f.remaining.map({ $0 >= 0 }) ?? true { return (target, f.fault) }
            }
            return (target, nil)
        }
        switch fault {
        case .noAcknowledgeAddress?: return .failure(noAcknowledge(onAddress: true, device, operation))
        case .noAcknowledgeData?: return .failure(noAcknowledge(onAddress: false, device, operation))
        case .busError?:
            return .failure(HardwareError(.bus, device: device, operation: operation.description,
                                          detail: "errno 5: Input/output error (injected)"))
        case .stuckBus?:
            return .failure(HardwareError(.timeout, device: device, operation: operation.description,
                                          detail: "errno 110: Connection timed out (injected stuck bus)",
                                          hint: "SDA or SCL is held low; power-cycle the devices on the bus"))
        case .shortRead?, nil:
            break
        }
        guard let target, target.acknowledgesAddress else {
            return .failure(noAcknowledge(onAddress: true, device, operation))
        }
        var bytes = target.handle(operation, now: now)
        if case .shortRead(let n)? = fault, operation.responseLength > 1 {
            bytes = Array(bytes.prefix(max(0, n)))
        }
        return .success(bytes)
    }

    private func noAcknowledge(onAddress: Bool, _ device: String, _ operation: I2COperation) -> HardwareError {
        let kind: HardwareError.Kind
        switch noAcknowledgeReporting {
        case .linux: kind = .noAcknowledge
        case .precise: kind = onAddress ? .noAcknowledgeAddress : .noAcknowledgeData
        }
        return HardwareError(kind, device: device, operation: operation.description,
                             detail: "errno 6: No such device or address",
                             hint: onAddress ? "no device answers at this address; check wiring, power and the address" : nil)
    }
}
