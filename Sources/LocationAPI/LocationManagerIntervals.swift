import LocationServices

/// The update interval and fix loss of standard updates (Android's fused provider's interval and
/// minimum update interval; Core Location's `locationUnknown` while the sky is blocked).
extension LocationManager {
    /// The period standard updates want fixes at, seconds (Android's fused provider's interval):
    /// the receiver takes one fix each interval and sleeps between them, whatever the accuracy
    /// level; `nil` (default) leaves the period to the accuracy and the speed. Refused unless
    /// positive and finite.
    public var updateInterval: Double? {
        get { lock.withLock { options.updateInterval } }
        set {
            if let d = newValue, !(d.isFinite && d > 0) {
                fail(.invalidArgument("updateInterval \(d): must be a positive number of seconds, or nil for none"))
                return
            }
            apply { $0.updateInterval = newValue }
        }
    }

    /// The shortest time between two deliveries of standard updates, seconds (Android's minimum
    /// update interval, with half a second of tolerance for the receiver's epoch jitter); `nil` (default)
    /// means ``updateInterval``. Refused unless positive and finite.
    public var minimumUpdateInterval: Double? {
        get { lock.withLock { options.minimumUpdateInterval } }
        set {
            if let d = newValue, !(d.isFinite && d > 0) {
                fail(.invalidArgument("minimumUpdateInterval \(d): must be a positive number of seconds, or nil for the update interval"))
                return
            }
            apply { $0.minimumUpdateInterval = newValue }
        }
    }

    /// Seconds without a usable fix, while the receiver is scheduled to give them, before standard
    /// updates report `locationUnknown` (transient; ``LocationManagerDelegate/locationManager(_:didRecoverFix:)``
    /// and the location follow when fixes return); `nil` (default) means `max(3 × the expected fix
    /// period, 10 s)`. Refused unless positive and finite.
    public var fixLossTimeout: Double? {
        get { lock.withLock { options.fixLossTimeout } }
        set {
            if let d = newValue, !(d.isFinite && d > 0) {
                fail(.invalidArgument("fixLossTimeout \(d): must be a positive number of seconds, or nil for the default"))
                return
            }
            apply { $0.fixLossTimeout = newValue }
        }
    }

    /// Passive updates (Android's `PRIORITY_PASSIVE`): standard updates and headings receive what
    /// other clients' demand brings, through this manager's filters, and add no demand, so the
    /// receiver stays off while nothing else wants it. Default `false`.
    public var passive: Bool {
        get { lock.withLock { options.passive } }
        set { apply { $0.passive = newValue } }
    }
}
