extension BoardLoader {
    /// The `[sim]` table: the simulated unit's start, motion and faults.
    static func readSimulation(_ section: Section) throws(BoardError) -> SimulationDescription {
        try section.checkKeys(simKeys)
        let (latitude, latitudeLocation) = try section.requiredNumber("latitude", what: "the start latitude in degrees")
        guard (-90...90).contains(latitude) else {
            throw section.error("latitude \(latitude) is outside -90...90", key: "latitude", at: latitudeLocation)
        }
        let (longitude, longitudeLocation) = try section.requiredNumber("longitude", what: "the start longitude in degrees")
        guard (-180...180).contains(longitude) else {
            throw section.error("longitude \(longitude) is outside -180...180", key: "longitude", at: longitudeLocation)
        }
        var altitude = 0.0
        if let (value, location) = try section.number("altitude") {
            guard (-500...10_000).contains(value) else {
                throw section.error("altitude \(value) m is outside -500...10000", key: "altitude", at: location)
            }
            altitude = value
        }
        let scenario = try section.entry("scenario").map { entry throws(BoardError) in
            try section.enumValue(entry.node, SimulationScenario.self, key: "scenario")
        } ?? .stationary
        let model = try section.string("receiver_model")?.value ?? "generic"
        var description = SimulationDescription(latitude: latitude, longitude: longitude, altitude: altitude, scenario: scenario,
                                                receiverModel: model)
        if let entry = section.entry("gyroscope_errors") {
            description.gyroscopeErrors = try section.enumValue(entry.node, SimulatedGyroscopeErrors.self, key: "gyroscope_errors")
        }
        return description
    }
}
