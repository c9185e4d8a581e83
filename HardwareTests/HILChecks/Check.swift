import HardwareInterfaces

/// Why a hardware-in-the-loop check failed: one line naming the device and what was seen.
public struct HILFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message printed after `not ok - name: `.
    public var message: String

    /// Creates a failure with `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// What a check found when it did not fail.
public enum HILOutcome: Sendable, Equatable {
    /// The check ran and everything matched; `detail` says what was measured (may be empty).
    case passed(detail: String)
    /// The check needs something this setup lacks (a simulator, a fixed receiver); `reason` says what.
    case skipped(reason: String)
}

/// One check: a name and a function that throws a descriptive ``HILFailure``.
public struct HILCheck: Sendable {
    /// A short kebab-case name, for example `i2c-identity`.
    public let name: String
    /// What a pass proves, one sentence (used by `fieldloc-hil --list` and the README).
    public let proves: String
    /// Runs the check against `context`'s devices.
    public let run: @Sendable (HILContext) throws(HILFailure) -> HILOutcome

    /// Creates a check.
    public init(name: String, proves: String, run: @escaping @Sendable (HILContext) throws(HILFailure) -> HILOutcome) {
        self.name = name
        self.proves = proves
        self.run = run
    }
}

/// What a check runs against: the platform that opens devices and the configuration naming them.
public struct HILContext: Sendable {
    /// Opens buses, ports and lines (``LinuxHardware``'s platform in the guest and on a Pi).
    public let platform: any HardwarePlatform
    /// Which devices to use and what stands behind them.
    public let configuration: HILConfiguration

    /// Creates a context.
    public init(platform: any HardwarePlatform, configuration: HILConfiguration) {
        self.platform = platform
        self.configuration = configuration
    }

    /// The platform's monotonic clock.
    public var clock: any MonotonicClock { platform.clock }
}

/// The result of one check, as the runner reports it.
public struct HILResult: Sendable, Equatable {
    /// The check's name.
    public var name: String
    /// `nil` when the check failed.
    public var outcome: HILOutcome?
    /// The failure, when it failed.
    public var failure: HILFailure?

    /// Creates a result: an outcome, or a failure.
    public init(name: String, outcome: HILOutcome?, failure: HILFailure?) {
        self.name = name
        self.outcome = outcome
        self.failure = failure
    }

    /// `ok - name`, `ok - name # SKIP reason` or `not ok - name: why`.
    public var line: String {
        if let failure { return "not ok - \(name): \(failure.message)" }
        switch outcome {
        case .skipped(let reason): return "ok - \(name) # SKIP \(reason)"
        case .passed(let detail): return detail.isEmpty ? "ok - \(name)" : "ok - \(name) # \(detail)"
        case nil: return "not ok - \(name): no outcome"
        }
    }

    /// Whether the check failed.
    public var failed: Bool { failure != nil || outcome == nil }
    /// Whether the check was skipped.
    public var skipped: Bool {
        if case .skipped = outcome { return true }
        return false
    }
}

extension HILCheck {
    /// Runs the check and turns a thrown failure into a result (never throws).
    public func result(in context: HILContext) -> HILResult {
        do {
            return HILResult(name: name, outcome: try run(context), failure: nil)
        } catch {
            return HILResult(name: name, outcome: nil, failure: error)
        }
    }
}

/// Runs `checks` in order, handing each result line to `report` as soon as it is known, and
/// returns the results. The closing summary is ``summaryLine(_:)``.
public func runHILChecks(
    _ checks: [HILCheck], in context: HILContext, report: (HILResult) -> Void
) -> [HILResult] {
    var results: [HILResult] = []
    for check in checks {
        let result = check.result(in: context)
        report(result)
        results.append(result)
    }
    return results
}

/// `N passed, N failed` (plus `, N skipped` when some were skipped; skipped checks are not passed).
public func summaryLine(_ results: [HILResult]) -> String {
    let failed = results.filter(\.failed).count
    let skipped = results.filter(\.skipped).count
    let passed = results.count - failed - skipped
    return "\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : "")
}

// MARK: - Helpers for writing checks

/// Throws `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(HILFailure) {
    if !condition { throw HILFailure(message()) }
}

/// Runs a hardware call; its error (a ``HardwareError``) becomes a failure naming `what` and the error.
func hardware<T, E: Error>(_ what: String, _ body: () throws(E) -> T) throws(HILFailure) -> T {
    do {
        return try body()
    } catch {
        throw HILFailure("\(what): \(error)")
    }
}

/// Runs a hardware call that must fail with one of `kinds`; returns the error.
@discardableResult
func expectHardwareError<T, E: Error>(
    _ what: String, kinds: [HardwareError.Kind], _ body: () throws(E) -> T
) throws(HILFailure) -> HardwareError {
    do {
        _ = try body()
    } catch {
        guard let error = error as? HardwareError else {
            throw HILFailure("\(what): expected a HardwareError, got \(error)")
        }
        guard kinds.contains(error.kind) else {
            throw HILFailure("\(what): expected \(kinds.map(\.rawValue).joined(separator: " or ")), got \(error.kind.rawValue) (\(error))")
        }
        return error
    }
    throw HILFailure("\(what): expected \(kinds.map(\.rawValue).joined(separator: " or ")), but it succeeded")
}

/// `0.123 s` with millisecond precision, for details.
func milliseconds(_ duration: Duration) -> String {
    let ms = duration.nanosecondsClamped / 1_000_000
    return "\(ms) ms"
}
