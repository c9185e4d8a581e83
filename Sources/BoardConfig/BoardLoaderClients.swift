/// The demand the daemon's gpsd and NMEA-TCP watchers add to the engine's (board key
/// `gpsd_clients`): an accuracy level, as a manager asks for, or none at all.
public enum GPSDClientDemand: String, Sendable, Hashable, CaseIterable {
    /// No demand (Android's `PRIORITY_PASSIVE`): the watchers get the fixes other clients cause and
    /// nothing while no other client wants the receiver, so a forgotten chart plotter drains nothing.
    case passive
    /// The highest rate at the highest accuracy, for units on external power.
    case bestForNavigation
    /// The highest accuracy at 1 Hz (the default, as gpsd runs its receiver).
    case best
    /// Within about ten metres.
    case nearestTenMeters
    /// Within about a hundred metres (the receiver may sleep between fixes).
    case hundredMeters
    /// Within about a kilometre.
    case kilometer
    /// Within about three kilometres.
    case threeKilometers
}

extension BoardLoader {
    /// Reads the top-level `gpsd_clients` key: ``GPSDClientDemand/best`` when absent; an unknown
    /// value is an error naming the file, line and column and the values allowed.
    static func readGPSDClients(_ top: Section) throws(BoardError) -> GPSDClientDemand {
        guard let entry = top.entry("gpsd_clients") else { return .best }
        return try top.enumValue(entry.node, GPSDClientDemand.self, key: "gpsd_clients")
    }
}
