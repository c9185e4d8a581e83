extension ActivityType {
    /// The activity a receiver shared by `demands` is set up for (its dynamic model): the
    /// most dynamic one (the highest ``speedCap``) among the demands that want locations, so no
    /// client's motion is filtered out as implausible by a model made for a slower one; `nil` when
    /// no demand wants locations.
    public static func merged(_ demands: [ClientDemand]) -> ActivityType? {
        demands.filter { $0.desiredAccuracy != nil }.map(\.activity).max { $0.speedCap < $1.speedCap }
    }
}
