import HardwareInterfaces
import Synchronization

/// One write to a simulated output line.
public struct GPIOWrite: Sendable, Hashable, CustomStringConvertible {
    /// When the line was set, on the chip's clock.
    public var timestamp: MonotonicInstant
    /// The level written.
    public var high: Bool

    /// `high at 1.5 s`.
    public var description: String { "\(high ? "high" : "low") at \(timestamp)" }
}

/// Periodic pulses on an input line, as a PPS output makes them.
public struct GPIOPulseTrain: Sendable, Hashable {
    /// The first rising edge.
    public var start: MonotonicInstant
    /// The time from one rising edge to the next.
    public var period: Duration
    /// How long the line stays high.
    public var width: Duration

    /// Creates a pulse train (a 1 PPS source: `period: .seconds(1), width: .milliseconds(100)`).
    public init(start: MonotonicInstant, period: Duration = .seconds(1), width: Duration = .milliseconds(100)) {
        self.start = start
        self.period = period
        self.width = width
    }

    /// The first edge strictly after `instant`.
    func nextEdge(after instant: MonotonicInstant) -> GPIOEvent? {
        let p = UInt64(max(1, period.nanosecondsClamped))
        let w = UInt64(max(0, min(width.nanosecondsClamped, period.nanosecondsClamped - 1)))
        if instant < start { return GPIOEvent(edge: .rising, timestamp: start) }
        let elapsed = instant.nanoseconds - start.nanoseconds
        let cycle = elapsed / p
        let rise = start.nanoseconds &+ cycle &* p
        if w > 0 && instant.nanoseconds < rise &+ w { return GPIOEvent(edge: .falling, timestamp: MonotonicInstant(nanoseconds: rise &+ w)) }
        let (next, overflow) = rise.addingReportingOverflow(p)
        return overflow ? nil : GPIOEvent(edge: .rising, timestamp: MonotonicInstant(nanoseconds: next))
    }
}

/// A GPIO line of a ``SimulatedGPIOChip``: the handle a platform hands out (``GPIOLine``) and,
/// for the test, the other side of the wire.
///
/// It records every write with its time, takes levels driven by the test (``drive(high:)``)
/// as edge events stamped with the manual clock, can carry a periodic pulse train (a PPS
/// source), and ``waitForEdge(deadline:)`` moves the manual clock to the next scheduled edge, or
/// to the deadline, instead of blocking. Faults: a stuck line (no edges, level frozen) and a
/// line held by another process (``HardwareError/Kind/busy`` on request).
public final class SimulatedGPIOLine: GPIOLine {
    private struct State {
        var requested = false
        var isOutput = false
        var edges: GPIOEdgeDetection = .none
        var outputLevel = false
        var externalLevel = false
        var writes: [GPIOWrite] = []
        var events: [GPIOEvent] = []
        var pulses: GPIOPulseTrain?
        var processedUntil: MonotonicInstant = .zero
        var stuck = false
        var heldElsewhere = false
    }

    /// `chip/line`.
    public let name: String
    /// The offset on its chip.
    public let offset: Int
    private let clock: ManualClock
    private let state: Mutex<State>

    init(name: String, offset: Int, clock: ManualClock) {
        self.name = name
        self.offset = offset
        self.clock = clock
        state = Mutex(State(processedUntil: clock.now()))
    }

    // MARK: Host side (GPIOLine)

    /// Whether the process drives the line.
    public var isOutput: Bool { state.withLock { $0.isOutput } }

    /// Drives an output and records the write with its time.
    public func set(_ high: Bool) throws(HardwareError) {
        let now = clock.now()
        let error = state.withLock { s -> HardwareError? in
            guard s.requested else { return HardwareError(.closed, device: name, operation: "set") }
            guard s.isOutput else { return HardwareError(.unsupported, device: name, operation: "set", detail: "the line is an input") }
            s.outputLevel = high
            s.writes.append(GPIOWrite(timestamp: now, high: high))
            return nil
        }
        if let error { throw error }
    }

    /// The driven level of an output, the external level of an input.
    public func get() throws(HardwareError) -> Bool {
        let now = clock.now()
        let result = state.withLock { s -> Result<Bool, HardwareError> in
            guard s.requested else { return .failure(HardwareError(.closed, device: name, operation: "get")) }
            Self.catchUp(&s, to: now)
            return .success(s.isOutput ? s.outputLevel : s.externalLevel)
        }
        return try result.get()
    }

    /// Returns the next queued edge; otherwise advances the manual clock to the next scheduled
    /// edge before `deadline` and returns it, or to `deadline` and returns `nil`. With no edge
    /// scheduled and a deadline of ``MonotonicInstant/distantFuture`` it returns `nil` at once.
    public func waitForEdge(deadline: MonotonicInstant) throws(HardwareError) -> GPIOEvent? {
        while true {
            let now = clock.now()
            let step = state.withLock { s -> Result<(GPIOEvent?, MonotonicInstant?), HardwareError> in
                guard s.requested else { return .failure(HardwareError(.closed, device: name, operation: "wait for edge")) }
                guard !s.isOutput, s.edges != .none else {
                    return .failure(HardwareError(.unsupported, device: name, operation: "wait for edge",
                                                  detail: "the line was not requested with edge detection"))
                }
                Self.catchUp(&s, to: now)
                if !s.events.isEmpty { return .success((s.events.removeFirst(), nil)) }
                return .success((nil, Self.nextReported(s, after: now)))
            }
            let (event, next) = try step.get()
            if let event { return event }
            if let next, next <= deadline {
                clock.advance(to: next)
                continue
            }
            if deadline != .distantFuture { clock.advance(to: deadline) }
            return nil
        }
    }

    /// Gives the line back; later calls throw ``HardwareError/Kind/closed``.
    public func release() {
        state.withLock {
            $0.requested = false
            $0.events = []
        }
    }

    // MARK: Test side

    /// Every write so far, oldest first.
    public var writes: [GPIOWrite] { state.withLock { $0.writes } }

    /// The instant of the first write of `high` after `instant` (for "the enable line went high at t").
    public func firstWrite(of high: Bool, after instant: MonotonicInstant = .zero) -> MonotonicInstant? {
        state.withLock { $0.writes.first { $0.high == high && $0.timestamp >= instant }?.timestamp }
    }

    /// The level the process drives (outputs) or the last driven external level (inputs), without checks.
    public var level: Bool {
        let now = clock.now()
        return state.withLock { s in
            Self.catchUp(&s, to: now)
            return s.isOutput ? s.outputLevel : s.externalLevel
        }
    }

    /// Drives the line from outside at the clock's current instant; a change makes an edge event
    /// when the line was requested for that edge. A stuck line ignores it.
    public func drive(high: Bool) {
        let now = clock.now()
        state.withLock { s in
            Self.catchUp(&s, to: now)
            guard !s.stuck, s.externalLevel != high else { return }
            s.externalLevel = high
            Self.record(&s, GPIOEvent(edge: high ? .rising : .falling, timestamp: now))
        }
    }

    /// Starts a periodic pulse train (replacing any other); `nil` stops it.
    public func schedulePulses(_ pulses: GPIOPulseTrain?) {
        let now = clock.now()
        state.withLock { s in
            Self.catchUp(&s, to: now)
            s.pulses = pulses
        }
    }

    /// Sticks the line (no edges, level frozen) or frees it.
    public func setStuck(_ stuck: Bool) {
        let now = clock.now()
        state.withLock { s in
            Self.catchUp(&s, to: now)
            s.stuck = stuck
        }
    }

    /// Marks the line as held by another process: requests fail with ``HardwareError/Kind/busy``.
    public func setHeldElsewhere(_ held: Bool) {
        state.withLock { $0.heldElsewhere = held }
    }

    func request(output: Bool, initial: Bool, edges: GPIOEdgeDetection) throws(HardwareError) {
        let now = clock.now()
        let error = state.withLock { s -> HardwareError? in
            if s.heldElsewhere || s.requested {
                return HardwareError(.busy, device: name, operation: "request line", detail: "errno 16: Device or resource busy",
                                     hint: "another process holds the line")
            }
            Self.catchUp(&s, to: now)
            s.requested = true
            s.isOutput = output
            s.edges = output ? .none : edges
            s.events = []
            if output {
                s.outputLevel = initial
                s.writes.append(GPIOWrite(timestamp: now, high: initial))
            }
            return nil
        }
        if let error { throw error }
    }

    /// Generates the pulse edges up to `now`.
    private static func catchUp(_ s: inout State, to now: MonotonicInstant) {
        defer { if now > s.processedUntil { s.processedUntil = now } }
        guard let pulses = s.pulses, !s.stuck else { return }
        var cursor = s.processedUntil
        while let edge = pulses.nextEdge(after: cursor), edge.timestamp <= now {
            s.externalLevel = edge.edge == .rising
            record(&s, edge)
            cursor = edge.timestamp
        }
    }

    private static func record(_ s: inout State, _ event: GPIOEvent) {
        guard s.requested, !s.isOutput else { return }
        switch (s.edges, event.edge) {
        case (.both, _), (.rising, .rising), (.falling, .falling): s.events.append(event)
        default: break
        }
    }

    /// The next scheduled edge the line reports, after `now`.
    private static func nextReported(_ s: State, after now: MonotonicInstant) -> MonotonicInstant? {
        guard let pulses = s.pulses, !s.stuck else { return nil }
        var cursor = now
        for _ in 0..<2 {
            guard let edge = pulses.nextEdge(after: cursor) else { return nil }
            switch (s.edges, edge.edge) {
            case (.both, _), (.rising, .rising), (.falling, .falling): return edge.timestamp
            default: cursor = edge.timestamp
            }
        }
        return nil
    }
}

/// A simulated GPIO chip with named lines on a manual clock.
public final class SimulatedGPIOChip: Sendable {
    /// The chip's name, for example `gpiochip0`.
    public let name: String
    /// The lines, by offset.
    public let lines: [SimulatedGPIOLine]

    /// Creates a chip whose lines are named `lineNames`, at offsets 0, 1, 2...
    public init(name: String, lineNames: [String], clock: ManualClock) {
        self.name = name
        lines = lineNames.enumerated().map { SimulatedGPIOLine(name: "\(name)/\($1)", offset: $0, clock: clock) }
    }

    /// The line called `name` or at an offset, or `nil`.
    public func line(_ id: GPIOLineID) -> SimulatedGPIOLine? {
        switch id {
        case .name(let lineName): return lines.first { $0.name == "\(name)/\(lineName)" }
        case .offset(let offset): return offset >= 0 && offset < lines.count ? lines[offset] : nil
        }
    }

    /// The line called `name`, or `nil`.
    public func line(named lineName: String) -> SimulatedGPIOLine? { line(.name(lineName)) }

    /// Requests a line as an output driven to `initial`.
    public func requestOutput(_ id: GPIOLineID, initial: Bool) throws(HardwareError) -> SimulatedGPIOLine {
        let line = try find(id)
        try line.request(output: true, initial: initial, edges: .none)
        return line
    }

    /// Requests a line as an input reporting `edges` (the bias is accepted and has no effect).
    public func requestInput(_ id: GPIOLineID, edges: GPIOEdgeDetection, bias: GPIOBias = .asIs) throws(HardwareError) -> SimulatedGPIOLine {
        let line = try find(id)
        try line.request(output: false, initial: false, edges: edges)
        return line
    }

    private func find(_ id: GPIOLineID) throws(HardwareError) -> SimulatedGPIOLine {
        guard let line = line(id) else {
            throw HardwareError(.notFound, device: name, operation: "request \(id)",
                                detail: "no such line; lines: \(lines.map { String($0.name.dropFirst(name.count + 1)) }.joined(separator: ", "))")
        }
        return line
    }
}
