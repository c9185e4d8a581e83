import LocationServices

/// Monitoring events that arrive before the app has set its delegate.
///
/// A daemon client authorised `always` gets the region and visit events queued while it was away as
/// soon as its manager registers, which is inside `LocationManager.init`, before the app can set a
/// delegate. Core Location hands a relaunched app its event once the app's manager has a delegate;
/// this manager does the same: such events are held (in order, up to ``LocationManager/heldEventLimit``)
/// and delivered when a delegate is set. Location updates, headings and errors are not held: they
/// describe the present, as with Core Location, which drops them without a delegate.
extension LocationManager {
    /// The most monitoring events held for a delegate not yet set (as many as the daemon queues).
    public static let heldEventLimit = 512

    /// Monitoring events dropped because ``heldEventLimit`` were already held without a delegate.
    public var heldEventsDropped: Int { lock.withLock { extras.heldDropped } }

    /// Holds `event` when it is a monitoring event and no delegate is set; returns whether it was held.
    func holdUntilDelegate(_ event: EngineEvent) -> Bool {
        switch event {
        case .region, .regionExpired, .visit, .beaconRegion: break
        default: return false
        }
        return lock.withLock {
            guard delegateValue == nil else { return false }
            if extras.held.count >= Self.heldEventLimit {
                extras.held.removeFirst()
                extras.heldDropped += 1
            }
            extras.held.append(event)
            return true
        }
    }

    /// Sets the delegate; a delegate set hears the held events first, in the order they arrived.
    func setDelegate(_ delegate: (any LocationManagerDelegate)?) {
        let held: [EngineEvent] = lock.withLock {
            delegateValue = delegate
            guard delegate != nil else { return [] }
            defer { extras.held = [] }
            return extras.held
        }
        for event in held { receive(event) }
    }
}
