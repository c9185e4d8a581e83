import HardwareInterfaces
import Synchronization

/// Something on the far end of a ``SimulatedSerialPort`` that talks on the manual clock: a
/// simulated receiver. The port asks it for bytes as time passes and hands it what the host writes.
public protocol SimulatedSerialPeer: AnyObject, Sendable {
    /// The first instant after `instant` at which the peer will have bytes to send, if any.
    func nextTransmission(after instant: MonotonicInstant) -> MonotonicInstant?
    /// The bytes the peer sent up to and including `instant`.
    func transmit(upTo instant: MonotonicInstant) -> [UInt8]
    /// Bytes the host wrote at `instant`.
    func receive(_ bytes: [UInt8], at instant: MonotonicInstant)
}

/// An in-memory serial port on a manual clock, with the far end in the test's hands.
///
/// A test (or a ``SimulatedSerialPeer`` such as ``ReceiverEmulator``) sends bytes the
/// port reads with ``peerWrite(_:)`` and reads what the host wrote with ``peerRead()``. Reads
/// with nothing queued move the manual clock to the peer's next transmission, or to the
/// deadline, instead of blocking. Faults: ``unplug()`` (every call throws
/// ``HardwareError/Kind/deviceGone``, queued bytes are lost) and ``replug()``, garbage bytes
/// in the stream (``injectGarbage(_:)``), and a wrong line rate (bytes read at a rate other than
/// the peer's arrive scrambled, as on a real UART).
public final class SimulatedSerialPort: SerialPort {
    private struct State {
        var toHost: [UInt8] = []
        var fromHost: [UInt8] = []
        var baudRate: BaudRate
        var peerBaudRate: BaudRate
        var unplugged = false
        var closed = false
        var peer: (any SimulatedSerialPeer)?
        var pumpedUntil: MonotonicInstant?
    }

    /// The port's path, for example `/dev/ttyAMA0` on the simulated board.
    public let name: String
    /// The manual clock the deadlines are on.
    public var clock: any MonotonicClock { manualClock }
    /// The manual clock.
    public let manualClock: ManualClock
    private let state: Mutex<State>

    /// Creates an open port at `baudRate`; the far end talks at the same rate unless changed
    /// with ``setPeerBaudRate(_:)``.
    public init(name: String, clock: ManualClock, baudRate: BaudRate = .b9600) {
        self.name = name
        manualClock = clock
        state = Mutex(State(baudRate: baudRate, peerBaudRate: baudRate))
    }

    // MARK: Host side (SerialPort)

    /// The host's line rate.
    public var baudRate: BaudRate { state.withLock { $0.baudRate } }

    /// Reads what is queued, waiting on the manual clock for the peer's next bytes until `deadline`.
    public func read(into buffer: UnsafeMutableRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int {
        while true {
            let now = manualClock.now()
            pump(upTo: now)
            let outcome = state.withLock { s -> Result<(Int, MonotonicInstant?), HardwareError> in
                if s.unplugged { return .failure(gone("read")) }
                if s.closed { return .failure(HardwareError(.closed, device: name, operation: "read")) }
                if !s.toHost.isEmpty {
                    let n = min(buffer.count, s.toHost.count)
                    for i in 0..<n { buffer[i] = s.toHost[i] }
                    s.toHost.removeFirst(n)
                    return .success((n, nil))
                }
                return .success((0, s.peer?.nextTransmission(after: now)))
            }
            let (count, next) = try outcome.get()
            if count > 0 || buffer.isEmpty { return count }
            if now >= deadline { return 0 }
            if let next, next <= deadline {
                manualClock.advance(to: next)
                continue
            }
            if deadline != .distantFuture { manualClock.advance(to: deadline) }
            return 0
        }
    }

    /// Queues every byte for the far end at once.
    public func write(_ bytes: UnsafeRawBufferPointer, deadline: MonotonicInstant) throws(HardwareError) -> Int {
        let now = manualClock.now()
        let copy = Array(bytes)
        let peer = try state.withLock { s throws(HardwareError) -> (any SimulatedSerialPeer)? in
            if s.unplugged { throw gone("write") }
            if s.closed { throw HardwareError(.closed, device: name, operation: "write") }
            s.fromHost += copy
            // A far end that reads directly (an attached peer) never drains this copy: keep the last 64 KiB.
            if s.fromHost.count > 65_536 { s.fromHost.removeFirst(s.fromHost.count - 65_536) }
            return s.baudRate == s.peerBaudRate ? s.peer : nil
        }
        if let peer {
            peer.receive(copy, at: now)
            // A reply due at once (an acknowledge) is readable straight away.
            pump(upTo: now, force: true)
        }
        return copy.count
    }

    /// Changes the host's line rate.
    public func setBaudRate(_ rate: BaudRate) throws(HardwareError) {
        try state.withLock { s throws(HardwareError) in
            if s.unplugged { throw gone("set baud rate") }
            if s.closed { throw HardwareError(.closed, device: name, operation: "set baud rate") }
            s.baudRate = rate
        }
    }

    /// Returns at once: written bytes leave the port immediately.
    public func drain(deadline: MonotonicInstant) throws(HardwareError) {
        try state.withLock { s throws(HardwareError) in
            if s.unplugged { throw gone("drain") }
            if s.closed { throw HardwareError(.closed, device: name, operation: "drain") }
        }
    }

    /// Drops queued input (bytes from the far end) or output (bytes the far end has not read).
    public func discard(_ queue: SerialQueue) throws(HardwareError) {
        let now = manualClock.now()
        pump(upTo: now)
        try state.withLock { s throws(HardwareError) in
            if s.unplugged { throw gone("discard") }
            if s.closed { throw HardwareError(.closed, device: name, operation: "discard") }
            if queue != .output { s.toHost = [] }
            if queue != .input { s.fromHost = [] }
        }
    }

    /// Closes the port.
    public func close() { state.withLock { $0.closed = true } }

    /// Whether the host side is open.
    public var isOpen: Bool { state.withLock { !$0.closed } }

    /// Opens a closed port again at `baudRate`, as a platform's open does: an unplugged adapter
    /// is ``HardwareError/Kind/notFound``, a port still open is ``HardwareError/Kind/busy``
    /// (exclusive access). Stale input is dropped.
    public func reopen(baudRate: BaudRate) throws(HardwareError) {
        let now = manualClock.now()
        try state.withLock { s throws(HardwareError) in
            if s.unplugged {
                throw HardwareError(.notFound, device: name, operation: "open", detail: "errno 2: No such file or directory")
            }
            if !s.closed {
                throw HardwareError(.busy, device: name, operation: "open", detail: "errno 16: Device or resource busy",
                                    hint: "another process holds the port")
            }
            s.closed = false
            s.baudRate = baudRate
            s.toHost = []
            s.pumpedUntil = now
        }
        _ = state.withLock { $0.peer }?.transmit(upTo: now)
    }

    // MARK: Test side

    /// Attaches a peer that talks on the clock (replacing any other).
    public func attach(_ peer: (any SimulatedSerialPeer)?) {
        let now = manualClock.now()
        state.withLock {
            $0.peer = peer
            $0.pumpedUntil = now
        }
    }

    /// Sends `bytes` from the far end; the host reads them next.
    public func peerWrite(_ bytes: [UInt8]) {
        state.withLock { s in
            guard !s.unplugged else { return }
            s.toHost += s.baudRate == s.peerBaudRate ? bytes : Self.scramble(bytes)
        }
    }

    /// Sends the UTF-8 bytes of `text` from the far end.
    public func peerWrite(_ text: String) { peerWrite(Array(text.utf8)) }

    /// Takes everything the host wrote so far.
    public func peerRead() -> [UInt8] {
        state.withLock { s in
            defer { s.fromHost = [] }
            return s.fromHost
        }
    }

    /// Puts `bytes` into the stream to the host at this point (line noise).
    public func injectGarbage(_ bytes: [UInt8]) {
        state.withLock { $0.toHost += bytes }
    }

    /// Sets the far end's line rate; while it differs from the host's, bytes arrive scrambled
    /// and host writes do not reach the peer.
    public func setPeerBaudRate(_ rate: BaudRate) {
        state.withLock { $0.peerBaudRate = rate }
    }

    /// The far end's line rate.
    public var peerBaudRate: BaudRate { state.withLock { $0.peerBaudRate } }

    /// Unplugs the adapter: every call throws ``HardwareError/Kind/deviceGone`` and queued bytes are lost.
    public func unplug() {
        state.withLock {
            $0.unplugged = true
            $0.toHost = []
            $0.fromHost = []
        }
    }

    /// Plugs the adapter back in; what the peer sent meanwhile is lost.
    public func replug() {
        let now = manualClock.now()
        state.withLock {
            $0.unplugged = false
            $0.pumpedUntil = now
        }
        _ = state.withLock { $0.peer }?.transmit(upTo: now)
    }

    /// Whether the adapter is unplugged.
    public var isUnplugged: Bool { state.withLock { $0.unplugged } }

    private func pump(upTo now: MonotonicInstant, force: Bool = false) {
        let peer = state.withLock { s -> (any SimulatedSerialPeer)? in
            guard !s.unplugged, !s.closed, let peer = s.peer else { return nil }
            if !force, let pumped = s.pumpedUntil, pumped >= now { return nil }
            s.pumpedUntil = now
            return peer
        }
        guard let peer else { return }
        let bytes = peer.transmit(upTo: now)
        if !bytes.isEmpty { peerWrite(bytes) }
    }

    private func gone(_ operation: String) -> HardwareError {
        HardwareError(.deviceGone, device: name, operation: operation, detail: "the adapter was unplugged",
                      hint: "plug the receiver back in and reopen the port")
    }

    /// What bytes sent at another rate look like: framing garbage, deterministic.
    static func scramble(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { ($0 &* 0x6B) ^ 0xA5 | 0x80 }
    }
}
