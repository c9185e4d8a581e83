import LocationAPI
import LocationServices

extension LocationManager {
    /// The engine, when the manager runs in the process that owns the board (`nil` over the daemon's socket).
    public var engine: LocationEngine? { provider as? LocationEngine }

    /// Creates a manager on `engine`. Regions persisted under `name` are restored and monitored again.
    public convenience init(engine: LocationEngine, name: String = "default", delivery: DeliveryTarget = .immediate,
                            policy: AccessPolicy = AccessPolicy()) {
        self.init(provider: engine, name: name, delivery: delivery, policy: policy)
    }
}
