import HardwareInterfaces

// Public initialisers for values that other modules rebuild (the daemon's client socket decodes them
// from its wire format). The synthesised memberwise initialisers stay internal.

extension Visit {
    /// A visit: the stay's centre and radius, its arrival, and its departure once the unit left
    /// (`nil` while the stay goes on). Times are receiver UTC seconds since 1970 (when known) and
    /// instants on the engine's monotonic clock.
    public init(latitude: Double, longitude: Double, horizontalAccuracy: Double,
                arrival: (time: Double?, at: MonotonicInstant), departure: (time: Double?, at: MonotonicInstant)?) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        arrivalTime = arrival.time
        arrivedAt = arrival.at
        departureTime = departure?.time
        departedAt = departure?.at
    }
}

extension RegionEvent {
    /// An event of `kind` at `region`, shown by `location`.
    public init(_ kind: Kind, region: CircularRegion, location: Location) {
        self.kind = kind
        self.region = region
        self.location = location
    }
}
