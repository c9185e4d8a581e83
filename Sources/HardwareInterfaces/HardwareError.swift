/// A portable error from any bus or line: the kind a driver reacts to, plus what a person needs to
/// fix it.
///
/// Each backend maps its own failures (errno on Linux, injected faults in the simulator) to one
/// ``Kind`` in one place, so a driver can retry on ``Kind/noAcknowledgeData`` or report "sensor
/// absent" on ``Kind/noAcknowledgeAddress`` without knowing which platform it runs on.
public struct HardwareError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in terms a driver can act on.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Nobody acknowledged the device address: the chip is absent, unpowered or at another address.
        case noAcknowledgeAddress = "no acknowledge on address"
        /// The device acknowledged its address but not a data byte (busy, or a bad register).
        case noAcknowledgeData = "no acknowledge on data"
        /// No acknowledge, and the backend cannot tell on which byte (Linux reports both as ENXIO/EREMOTEIO).
        case noAcknowledge = "no acknowledge"
        /// The bus itself failed: a stuck line, a lost arbitration, an I/O error.
        case bus = "bus error"
        /// A deadline passed before the operation completed.
        case timeout = "timed out"
        /// The adapter or device cannot do this (for example a plain I2C transfer on an SMBus-only adapter).
        case unsupported = "not supported"
        /// Someone else holds the device (another process has the serial port or the GPIO line).
        case busy = "busy"
        /// The process may not open the device node.
        case permissionDenied = "permission denied"
        /// The device node does not exist.
        case notFound = "not found"
        /// The device went away while in use (unplugged USB adapter, removed overlay).
        case deviceGone = "device gone"
        /// The caller passed a value the backend refuses (an unsupported baud rate, an address above 0x77).
        case invalidArgument = "invalid argument"
        /// The device was closed, or released, before this call.
        case closed = "closed"
        /// Anything else; ``HardwareError/detail`` says what.
        case other = "error"
    }

    /// What went wrong.
    public var kind: Kind
    /// The device: a path such as `/dev/i2c-1`, an address such as `/dev/i2c-1@0x1e`, or a line name.
    public var device: String
    /// The operation that failed, for example `read register 0x0f` or `open`.
    public var operation: String
    /// The platform's own words (for example `errno 6: No such device or address`), if any.
    public var detail: String
    /// The likely cause and the fix to apply, when the backend knows one.
    public var hint: String?

    /// Creates an error.
    public init(_ kind: Kind, device: String, operation: String, detail: String = "", hint: String? = nil) {
        self.kind = kind
        self.device = device
        self.operation = operation
        self.detail = detail
        self.hint = hint
    }

    /// One line: `/dev/i2c-1@0x1e: read register 0x0f: no acknowledge on address (errno 6 ...). Hint`.
    public var description: String {
        var text = "\(device): \(operation): \(kind.rawValue)"
        if !detail.isEmpty { text += " (\(detail))" }
        if let hint { text += ". \(hint)" }
        return text
    }

    /// True for the no-acknowledge kinds: the device did not answer.
    public var isNoAcknowledge: Bool {
        kind == .noAcknowledge || kind == .noAcknowledgeAddress || kind == .noAcknowledgeData
    }

    /// True when repeating the same call may succeed (no acknowledge on data, bus error, timeout, busy).
    public var isTransient: Bool {
        switch kind {
        case .noAcknowledgeData, .noAcknowledge, .bus, .timeout: return true
        default: return false
        }
    }
}
