import HardwareInterfaces
import LocationServices
import NMEA
import SensorDrivers

/// The GPIO checks: the enable output, a busy or missing line, edge deadlines, PPS timestamps and a stuck line.
extension HILChecks {
    // MARK: GPIO

    /// The enable output as the outside world sees it.
    public static let gpioEnableOutput = HILCheck(
        name: "gpio-enable-output",
        proves: "LinuxGPIOLine drives the GNSS enable output: high and low are seen by gpio-sim's sysfs value while the process holds the line"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let line = try hardware("request \(c.gpioChip)/\(c.enableLine) as output") {
            try context.platform.requestOutput(chip: c.gpioChip, line: c.enableLine, initial: false)
        }
        defer { line.release() }
        let observer = c.gpioObserver.map(SimulatedLineObserver.init(folder:))
        var seen: [Bool] = []
        for level in [false, true, false, true, false] {
            try hardware("set \(line.name) \(level ? "high" : "low")") { try line.set(level) }
            let readBack = try hardware("get \(line.name)") { try line.get() }
            try require(readBack == level, "\(line.name) reads \(readBack) after set(\(level))")
            if let observer {
                let outside = try waitForValue(observer, c.enableLine, level, clock: context.clock)
                try require(outside == level, "\(line.name) set \(level ? "high" : "low") but gpio-sim's value stays \(outside ? 1 : 0)")
                seen.append(outside)
            }
        }
        if observer == nil { return .passed(detail: "no observer: level read back through the line only") }
        return .passed(detail: "sysfs value followed " + seen.map { $0 ? "1" : "0" }.joined())
    }

    /// A line held by this process cannot be requested twice.
    public static let gpioLineBusy = HILCheck(
        name: "gpio-line-busy",
        proves: "requesting a line that is already held fails with HardwareError.busy, and succeeds again after release"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let first = try hardware("request \(c.enableLine)") {
            try context.platform.requestOutput(chip: c.gpioChip, line: c.enableLine, initial: false)
        }
        let error: HardwareError
        do {
            defer { first.release() }
            error = try expectHardwareError("second request of \(first.name)", kinds: [.busy]) {
                try context.platform.requestOutput(chip: c.gpioChip, line: c.enableLine, initial: false)
            }
        }
        let again = try hardware("request \(c.enableLine) after release") {
            try context.platform.requestOutput(chip: c.gpioChip, line: c.enableLine, initial: false)
        }
        again.release()
        return .passed(detail: "\(error)")
    }

    /// A line name the chip does not have gives `.notFound`.
    public static let gpioMissingLine = HILCheck(
        name: "gpio-missing-line",
        proves: "requesting a line name that does not exist fails with HardwareError.notFound"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let error = try expectHardwareError("request line fieldloc-no-such-line", kinds: [.notFound]) {
            try context.platform.requestInput(chip: c.gpioChip, line: .name("fieldloc-no-such-line"), edges: .both, bias: .asIs)
        }
        return .passed(detail: "\(error)")
    }

    /// A wait without an edge returns nil at its deadline.
    public static let gpioEdgeDeadline = HILCheck(
        name: "gpio-edge-deadline",
        proves: "waitForEdge on a quiet line returns nil once its deadline has passed, not before and not much after"
    ) { context throws(HILFailure) in
        let c = context.configuration
        if c.realPPS { return .skipped(reason: "FIELDLOC_HIL_PPS=1: the PPS line is not quiet") }
        let observer = c.gpioObserver.map(SimulatedLineObserver.init(folder:))
        try observer?.pull(c.ppsLine, high: false)
        let line = try hardware("request \(c.gpioChip)/\(c.ppsLine) as input") {
            try context.platform.requestInput(chip: c.gpioChip, line: c.ppsLine, edges: .both, bias: .asIs)
        }
        defer { line.release() }
        let clock = context.clock
        let start = clock.now()
        let deadline = start.advanced(by: .milliseconds(300))
        let event = try hardware("wait for an edge on \(line.name)") { try line.waitForEdge(deadline: deadline) }
        let end = clock.now()
        try require(event == nil, "an edge arrived with nothing driving the line: \(event.map { "\($0)" } ?? "")")
        try require(end >= deadline, "returned nil \(milliseconds(deadline - end)) before its deadline")
        try require(end - deadline < .seconds(2), "returned \(milliseconds(end - deadline)) after its deadline")
        return .passed(detail: "nil after \(milliseconds(end - start)) (deadline 300 ms)")
    }

    /// PPS edges are timestamped on the monotonic clock.
    public static let gpioPPSTimestamps = HILCheck(
        name: "gpio-pps-timestamps",
        proves: "rising edges on the PPS input (driven through gpio-sim's pull, or a real receiver's PPS) are reported by waitForEdge with a kernel timestamp between monotonic clock readings taken before and after"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let clock = context.clock
        guard c.gpioObserver != nil || c.realPPS else {
            return .skipped(reason: "no gpio-sim observer and FIELDLOC_HIL_PPS is not 1 (needs a receiver with a fix)")
        }
        let observer = c.gpioObserver.map(SimulatedLineObserver.init(folder:))
        try observer?.pull(c.ppsLine, high: false)
        let line = try hardware("request \(c.gpioChip)/\(c.ppsLine) as input") {
            try context.platform.requestInput(chip: c.gpioChip, line: c.ppsLine, edges: .rising, bias: .asIs)
        }
        defer { line.release() }
        var stamps: [MonotonicInstant] = []
        for pulse in 1...3 {
            let before = clock.now()
            try observer?.pull(c.ppsLine, high: true)
            let event = try hardware("wait for edge \(pulse) on \(line.name)") {
                try line.waitForEdge(deadline: before.advanced(by: .seconds(observer == nil ? 2 : 5)))
            }
            let after = clock.now()
            guard let event else { throw HILFailure("no edge \(pulse) on \(line.name) within the deadline") }
            try require(event.edge == .rising, "edge \(pulse) on \(line.name) is \(event.edge.rawValue), only rising edges were requested")
            try require(before <= event.timestamp && event.timestamp <= after,
                        "edge \(pulse) at \(event.timestamp) is outside [\(before), \(after)] on the monotonic clock")
            stamps.append(event.timestamp)
            try observer?.pull(c.ppsLine, high: false)
        }
        if observer != nil {
            // The falling edges made above were not requested, so none may be reported.
            let extra = try hardware("wait for an unrequested edge") {
                try line.waitForEdge(deadline: clock.now().advanced(by: .milliseconds(200)))
            }
            try require(extra == nil, "a falling edge was reported on a rising-only line: \(extra.map { "\($0)" } ?? "")")
        } else {
            for (a, b) in zip(stamps, stamps.dropFirst()) {
                let gap = b - a
                try require(gap > .milliseconds(900) && gap < .milliseconds(1100), "PPS edges \(milliseconds(gap)) apart, expected 1 s")
            }
        }
        return .passed(detail: "3 rising edges, gaps " + zip(stamps, stamps.dropFirst()).map { milliseconds($1 - $0) }.joined(separator: ", "))
    }

    /// A PPS line that stops pulsing, stuck high and then low, degrades the time status visibly.
    public static let gpioPPSStuck = HILCheck(
        name: "gpio-pps-stuck",
        proves: "after one pulse paired with a fix (PPS locked), a PPS line held high gives no further edge, and with fixes still arriving PPSTracker reports 'no pulse for N s (line stuck high)' from the real line's level after 2.5 s; held low, '(line stuck low)'"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let clock = context.clock
        guard let folder = c.gpioObserver else {
            return .skipped(reason: "needs gpio-sim's observer (FIELDLOC_HIL_GPIO_OBSERVER) to hold the PPS line")
        }
        let observer = SimulatedLineObserver(folder: folder)
        try observer.pull(c.ppsLine, high: false)
        let line = try hardware("request \(c.gpioChip)/\(c.ppsLine) as input") {
            try context.platform.requestInput(chip: c.gpioChip, line: c.ppsLine, edges: .rising, bias: .asIs)
        }
        defer { line.release() }
        var tracker = PPSTracker()
        let utc = 1_700_000_000.0
        try observer.pull(c.ppsLine, high: true)
        guard let pulse = try hardware("wait for the pulse on \(line.name)", { try line.waitForEdge(deadline: clock.deadline(after: .seconds(5))) }) else {
            throw HILFailure("no edge on \(line.name) after pulling it high")
        }
        tracker.pulse(at: pulse.timestamp)
        // The fix of that second arrives 100 ms after its pulse.
        _ = tracker.fix(utc: utc, receivedAt: pulse.timestamp.advanced(by: .milliseconds(100)))
        let locked = tracker.status(at: pulse.timestamp.advanced(by: .milliseconds(200)), level: nil)
        try require(locked == .locked, "after a paired pulse the status is '\(locked)', not locked")
        // Stuck high: fixes go on every second, no edge comes.
        var second = 1.0
        while clock.now() - pulse.timestamp < .milliseconds(2800) {
            let edge = try hardware("wait for an edge on \(line.name)") { try line.waitForEdge(deadline: clock.deadline(after: .milliseconds(400))) }
            try require(edge == nil, "an edge on a line held high: \(edge.map { "\($0)" } ?? "")")
            if clock.now() - pulse.timestamp >= .seconds(Int64(second)) {
                _ = tracker.fix(utc: utc + second, receivedAt: clock.now())
                second += 1
            }
        }
        let high = try hardware("read \(line.name)") { try line.get() }
        let stuckHigh = tracker.status(at: clock.now(), level: high)
        try require(high, "\(line.name) reads low while gpio-sim holds it high")
        guard case .missing(let seconds, true) = stuckHigh, seconds >= 2 else {
            throw HILFailure("with the line held high for 2.8 s the status is '\(stuckHigh)'")
        }
        // Stuck low: the falling edge was not requested, so nothing comes either.
        try observer.pull(c.ppsLine, high: false)
        let edge = try hardware("wait for an edge on \(line.name)") { try line.waitForEdge(deadline: clock.deadline(after: .milliseconds(300))) }
        try require(edge == nil, "a falling edge was reported on a rising-only line")
        _ = tracker.fix(utc: utc + second, receivedAt: clock.now())
        let low = try hardware("read \(line.name)") { try line.get() }
        let stuckLow = tracker.status(at: clock.now(), level: low)
        guard !low, case .missing(_, false) = stuckLow else {
            throw HILFailure("with the line held low the status is '\(stuckLow)' (line reads \(low ? "high" : "low"))")
        }
        return .passed(detail: "locked, then '\(stuckHigh)', then '\(stuckLow)'")
    }
}
