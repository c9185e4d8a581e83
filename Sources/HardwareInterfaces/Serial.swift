/// A serial line rate that the Linux backend can set and receivers use: 4800 to 921600 baud.
public struct BaudRate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Bits per second.
    public let rawValue: Int

    /// The rates a UART backend must support, in ascending order.
    public static let standard: [Int] = [4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600]

    /// Creates a rate, or `nil` when `rawValue` is not one of ``standard``.
    public init?(_ rawValue: Int) {
        guard Self.standard.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// 4800 baud: the NMEA 0183 default.
    public static let b4800 = BaudRate(4800)!
    /// 9600 baud: the default of most u-blox, MediaTek and CASIC modules.
    public static let b9600 = BaudRate(9600)!
    /// 38400 baud: a common default for u-blox timing and older modules.
    public static let b38400 = BaudRate(38400)!
    /// 115200 baud.
    public static let b115200 = BaudRate(115200)!

    public static func < (a: BaudRate, b: BaudRate) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "\(rawValue) baud" }

    /// Seconds one byte takes on the wire in 8N1 framing (10 bits).
    public var secondsPerByte: Double { 10.0 / Double(rawValue) }
}

/// Which queued data ``SerialPort/discard(_:)`` drops.
public enum SerialQueue: Sendable, Hashable {
    /// Bytes received but not yet read.
    case input
    /// Bytes written but not yet sent.
    case output
    /// Both.
    case both
}

/// A serial port open in raw 8N1 mode, as a GNSS receiver's UART.
///
/// The one primitive for input is ``read(into:deadline:)``; ``readAvailable(maximum:deadline:)``,
/// ``readLine(maximumLength:deadline:)`` and ``writeAll(_:deadline:)`` are derived. Every call
/// that can block takes a deadline on the port's monotonic ``clock``.
public protocol SerialPort: AnyObject, Sendable {
    /// The port's path or name, for messages.
    var name: String { get }
    /// The clock the port's deadlines are on.
    var clock: any MonotonicClock { get }
    /// The current line rate.
    var baudRate: BaudRate { get }

    /// Reads at most `buffer.count` bytes, waiting until at least one byte arrives or `deadline`
    /// passes. Returns the number of bytes read: 0 means the deadline passed with nothing received.
    /// End of file or a vanished device throws ``HardwareError/Kind/deviceGone``.
    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int

    /// Writes some of `bytes`, waiting until the port accepts at least one byte or `deadline`
    /// passes. Returns how many were accepted (0 at the deadline).
    func write(_ bytes: UnsafeRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int

    /// Changes the line rate of both directions.
    func setBaudRate(_ rate: BaudRate) throws(HardwareError)

    /// Waits until every written byte has left the port, or `deadline` passes (then throws
    /// ``HardwareError/Kind/timeout``).
    func drain(deadline: MonotonicInstant) throws(HardwareError)

    /// Drops queued bytes without sending or reading them.
    func discard(_ queue: SerialQueue) throws(HardwareError)

    /// Closes the port; later calls throw ``HardwareError/Kind/closed``. Closing twice is harmless.
    func close()
}

extension SerialPort {
    /// Reads what arrives up to `maximum` bytes, waiting until `deadline` for the first byte.
    /// Returns an empty array when the deadline passed with nothing received.
    public func readAvailable(maximum: Int = 512, deadline: MonotonicInstant) throws(HardwareError) -> [UInt8] {
        guard maximum > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: maximum)
        // withUnsafeMutableBytes rethrows untyped errors, so the typed error travels in a Result.
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(HardwareError) -> Int in try read(into: buffer, deadline: deadline) }
        }
        let count = try result.get()
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Writes every byte of `bytes`, or throws ``HardwareError/Kind/timeout`` naming how many were
    /// sent when `deadline` passes first.
    public func writeAll(_ bytes: [UInt8], deadline: MonotonicInstant) throws(HardwareError) {
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { all in
                Result { () throws(HardwareError) -> Int in
                    try write(UnsafeRawBufferPointer(rebasing: all[offset...]), deadline: deadline)
                }
            }
            let written = try result.get()
            if written == 0 {
                throw HardwareError(.timeout, device: name, operation: "write \(bytes.count) bytes",
                                    detail: "\(offset) of \(bytes.count) bytes sent before the deadline")
            }
            offset += written
        }
    }

    /// Writes the UTF-8 bytes of `text`.
    public func writeAll(_ text: String, deadline: MonotonicInstant) throws(HardwareError) {
        try writeAll(Array(text.utf8), deadline: deadline)
    }

    /// Reads one line ending in LF (a CR before it is dropped), waiting until `deadline`.
    /// Returns `nil` when the deadline passes before a whole line; bytes of an incomplete line are
    /// kept in `pending` for the next call. Lines longer than `maximumLength` are cut there.
    public func readLine(
        pending: inout [UInt8], maximumLength: Int = 256, deadline: MonotonicInstant
    ) throws(HardwareError) -> [UInt8]? {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                var line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if line.last == 0x0D { line.removeLast() }
                return line
            }
            if pending.count >= maximumLength {
                let line = Array(pending.prefix(maximumLength))
                pending.removeFirst(maximumLength)
                return line
            }
            let chunk = try readAvailable(maximum: 256, deadline: deadline)
            if chunk.isEmpty { return nil }
            pending += chunk
        }
    }
}
