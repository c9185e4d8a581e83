/// What went wrong with a location service, split into transient conditions (keep waiting) and
/// terminal ones (the service stopped), with the hardware cause where there is one.
public enum LocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No location yet (the receiver is acquiring, or the sky is blocked): transient, keep waiting.
    case locationUnknown(String)
    /// The caller is not authorised (device-node access, or the daemon's policy): terminal.
    case denied(String)
    /// Headings cannot be produced (no magnetometer, the sensor stopped answering): terminal for headings.
    case headingFailure(String)
    /// A region cannot be monitored (bad arguments, too many regions, no storage): terminal for that region.
    case regionMonitoringFailure(region: String, reason: String)
    /// Deferred updates cannot be delivered as asked.
    case deferredFailed(String)
    /// An argument is out of range (negative distance filter, NaN coordinates, …).
    case invalidArgument(String)
    /// The hardware failed.
    case hardware(HardwareCause, String)
    /// Region monitoring is not authorised for this client (Core Location's `regionMonitoringDenied`):
    /// the access policy (or the device nodes) refuse locations, so no region can be watched. Terminal.
    case regionMonitoringDenied(String)
    /// A region was accepted but its monitoring cannot begin yet (Core Location's
    /// `regionMonitoringSetupDelayed`): the receiver is silent or absent, so no state can be
    /// determined until it speaks. Transient: monitoring starts by itself.
    case regionMonitoringSetupDelayed(region: String, reason: String)
    /// Beacon ranging cannot run (no Bluetooth scanner on the board, or ranging not built). Terminal.
    case rangingUnavailable(String)
    /// Beacon ranging failed (the scanner stopped). Terminal for that ranging.
    case rangingFailure(String)
    /// A temporary full-accuracy request was declined (Core Location's `promptDeclined`): the
    /// purpose key is declared, but the access policy gives this client no location access at all.
    case promptDeclined(String)
    /// Location updates ended on their own, as the request asked (Android's `maxUpdates` and
    /// `durationMillis`): its ``ClientServices``' `maximumUpdates` were delivered or its
    /// `updateDuration` passed. The message says which. Terminal: the demand is gone.
    case requestExpired(String)
    /// A network link the unit depends on failed (Core Location's `network`): the NTRIP caster
    /// refused the login, could not be reached, or dropped the stream. Transient: the link is tried
    /// again with its backoff, and fixes go on without corrections meanwhile.
    case network(String)

    /// Hardware causes, for messages and for clients that react to them.
    public enum HardwareCause: String, Sendable, Hashable {
        /// Another process holds the receiver's port.
        case portBusy
        /// The receiver sends nothing.
        case receiverSilent
        /// The receiver's port disappeared.
        case portGone
        /// A sensor does not acknowledge on the I2C bus.
        case sensorNotAcknowledging
        /// Something else.
        case other
    }

    /// Whether the condition may clear by itself while the service keeps running.
    public var isTransient: Bool {
        switch self {
        case .locationUnknown, .regionMonitoringSetupDelayed, .network: return true
        case .hardware(let cause, _): return cause == .receiverSilent || cause == .portGone
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .locationUnknown(let s): return "location unknown: \(s)"
        case .denied(let s): return "denied: \(s)"
        case .headingFailure(let s): return "heading failure: \(s)"
        case .regionMonitoringFailure(let r, let s): return "region \(r): \(s)"
        case .deferredFailed(let s): return "deferred updates failed: \(s)"
        case .invalidArgument(let s): return "invalid argument: \(s)"
        case .hardware(let c, let s): return "hardware (\(c.rawValue)): \(s)"
        case .regionMonitoringDenied(let s): return "region monitoring denied: \(s)"
        case .regionMonitoringSetupDelayed(let r, let s): return "region \(r): monitoring delayed: \(s)"
        case .rangingUnavailable(let s): return "ranging unavailable: \(s)"
        case .rangingFailure(let s): return "ranging failure: \(s)"
        case .promptDeclined(let s): return "prompt declined: \(s)"
        case .requestExpired(let s): return "request expired: \(s)"
        case .network(let s): return "network: \(s)"
        }
    }
}

/// Whether a client may use location services (Core Location's authorisation, mapped to Linux).
public enum AuthorizationStatus: String, Sendable, Hashable, Codable {
    /// Not asked yet.
    case notDetermined
    /// Forbidden by a policy the user cannot change (a locked-down policy file).
    case restricted
    /// No access: the device nodes are not readable, or the policy denies this client.
    case denied
    /// Allowed while the client runs in the foreground (for a daemon client: while connected).
    case authorizedWhenInUse
    /// Allowed always, including services that outlive the client's connection (regions, visits).
    case authorizedAlways

    /// Whether locations may be delivered.
    public var allowsLocations: Bool { self == .authorizedWhenInUse || self == .authorizedAlways }
}

/// Whether positions are exact or coarsened (Core Location's accuracy authorisation).
public enum AccuracyAuthorization: String, Sendable, Hashable, Codable {
    /// Exact positions.
    case fullAccuracy
    /// Positions coarsened to about 5 km.
    case reducedAccuracy
}
