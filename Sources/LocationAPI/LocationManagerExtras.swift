import Heading
import LocationServices

/// The guided calibration prompt a manager shows while headings are poor for want of calibration
/// (Core Location's heading calibration display, mapped to this project's guided calibration).
public struct HeadingCalibrationPrompt: Sendable, Hashable, CustomStringConvertible {
    /// Why calibration is wanted (the heading's flags or its accuracy).
    public var reason: String
    /// What to do with the unit now.
    public var instructions: String
    /// The command that runs the full guided calibration and stores it for the board.
    public var command: String

    /// Creates a prompt.
    public init(reason: String, instructions: String, command: String) {
        self.reason = reason
        self.instructions = instructions
        self.command = command
    }

    public var description: String { "\(reason): \(instructions) (or run `\(command)`)" }
}

/// A manager's state beside its services: its diagnostics and the calibration prompt.
struct ManagerExtras {
    var diagnostics = DiagnosticsTracker()
    /// The delegate was asked during this episode of poor headings.
    var askedForCalibration = false
    /// The prompt being displayed, if any.
    var prompt: HeadingCalibrationPrompt?
    /// The heading accuracy above which headings ask for calibration, degrees.
    var calibrationAccuracyLimit = 30.0
    /// The accuracy authorisation last told to the delegate.
    var lastAccuracy: AccuracyAuthorization?
    /// Monitoring events that arrived before a delegate was set (LocationManagerHeldEvents.swift).
    var held: [EngineEvent] = []
    /// Monitoring events dropped because ``LocationManager/heldEventLimit`` were already held.
    var heldDropped = 0
}

extension LocationManager {
    /// Why data is or is not flowing to this manager now (see ``LocationDiagnostics``); changes
    /// arrive through `locationManager(_:didChangeDiagnostics:)`.
    public var diagnostics: LocationDiagnostics {
        let grant = LocationDiagnostics(authorization: authorizationStatus)
        return lock.withLock { extras.diagnostics.current }.union(grant)
    }

    /// The calibration prompt being displayed: set when the delegate's
    /// `locationManagerShouldDisplayHeadingCalibration(_:)` returned true, cleared by
    /// ``dismissHeadingCalibrationDisplay()`` or by the first well-calibrated heading.
    public var headingCalibrationPrompt: HeadingCalibrationPrompt? { lock.withLock { extras.prompt } }

    /// Whether the calibration prompt is displayed.
    public var isDisplayingHeadingCalibration: Bool { headingCalibrationPrompt != nil }

    /// Heading accuracy, degrees, above which the delegate is asked to display calibration (with the
    /// `poor-calibration` flag, which always asks). Default 30; refused unless positive and finite.
    public var headingCalibrationAccuracyLimit: Double {
        get { lock.withLock { extras.calibrationAccuracyLimit } }
        set {
            guard newValue.isFinite && newValue > 0 else {
                fail(.invalidArgument("headingCalibrationAccuracyLimit \(newValue): must be a positive number of degrees"))
                return
            }
            lock.withLock { extras.calibrationAccuracyLimit = newValue }
        }
    }

    /// Hides the calibration prompt (Core Location's `dismissHeadingCalibrationDisplay()`); the
    /// delegate is not asked again until headings have been good once.
    public func dismissHeadingCalibrationDisplay() {
        lock.withLock { extras.prompt = nil }
    }

    /// The prompt a heading asks for, or `nil` when the heading is well calibrated.
    static func calibrationReason(_ heading: HeadingUpdate, limit: Double) -> String? {
        if heading.flags.contains("poor-calibration") { return "the magnetometer's calibration is poor or missing" }
        if heading.quality != .unavailable, heading.headingAccuracy < 0 || heading.headingAccuracy > limit {
            return heading.headingAccuracy < 0
                ? "the heading's accuracy is unknown"
                : "the heading's accuracy is \(Int(heading.headingAccuracy.rounded()))°, worse than \(Int(limit.rounded()))°"
        }
        return nil
    }

    /// Diagnostics and calibration for each event, before it is delivered.
    func noteExtras(_ event: EngineEvent) {
        let changed: LocationDiagnostics? = lock.withLock { extras.diagnostics.note(event) ? extras.diagnostics.current : nil }
        if changed != nil {
            let flags = diagnostics
            dispatch { $0.locationManager($1, didChangeDiagnostics: flags) }
        }
        guard case .heading(let heading) = event else { return }
        let limit = lock.withLock { extras.calibrationAccuracyLimit }
        guard let reason = Self.calibrationReason(heading, limit: limit) else {
            lock.withLock {
                extras.askedForCalibration = false
                extras.prompt = nil
            }
            return
        }
        let ask: Bool = lock.withLock {
            defer { extras.askedForCalibration = true }
            return !extras.askedForCalibration
        }
        guard ask else { return }
        let prompt = HeadingCalibrationPrompt(
            reason: reason,
            instructions: "turn the unit slowly through every orientation: a full turn level, then a full turn on each side and on end",
            command: "fieldloc calibrate --board \(provider.boardName) --save")
        dispatch { delegate, manager in
            guard delegate.locationManagerShouldDisplayHeadingCalibration(manager) else { return }
            manager.lock.withLock {
                if manager.extras.askedForCalibration { manager.extras.prompt = prompt }
            }
        }
    }

    /// The provider's grant changed: evaluate again (a manager that has not asked yet waits until it
    /// asks) and tell the delegate when the status or the accuracy changed.
    func authorizationChanged() {
        let granted = provider.authorization(policy: policy)
        let accuracy = accuracyAuthorization
        let changed: Bool = lock.withLock {
            let old = status
            guard old != .notDetermined else { return false }
            switch granted.status {
            case .authorizedAlways, .authorizedWhenInUse:
                if !old.allowsLocations || granted.status == .authorizedWhenInUse { status = .authorizedWhenInUse }
            default:
                status = granted.status
                deniedReason = granted.reason ?? "the access policy says \(granted.status.rawValue)"
            }
            let accuracyChanged = extras.lastAccuracy.map { $0 != accuracy } ?? true
            extras.lastAccuracy = accuracy
            return old != status || accuracyChanged
        }
        if granted.status.allowsLocations { apply { _ in } }
        if changed { dispatch { $0.locationManagerDidChangeAuthorization($1) } }
    }

    /// Monitoring of `region` was accepted: the delegate hears it, and that its state must wait
    /// while the receiver is silent.
    func monitoringStarted(_ region: CircularRegion) {
        dispatch { $0.locationManager($1, didStartMonitoringFor: region) }
        if lock.withLock({ extras.diagnostics.current.contains(.receiverSilent) }) {
            let error = LocationError.regionMonitoringSetupDelayed(
                region: region.identifier, reason: "the receiver is silent: the region's state is determined once fixes come")
            dispatch { $0.locationManager($1, monitoringDidFailFor: region, withError: error) }
        }
    }

    /// Monitoring of `region` was refused for want of authorisation.
    func monitoringDenied(_ region: CircularRegion) {
        let reason = lock.withLock { deniedReason }
        let error = LocationError.regionMonitoringDenied(reason.isEmpty ? "authorization is \(authorizationStatus.rawValue)" : reason)
        dispatch { $0.locationManager($1, monitoringDidFailFor: region, withError: error) }
    }
}
