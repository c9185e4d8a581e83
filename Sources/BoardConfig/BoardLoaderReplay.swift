extension BoardLoader {
    /// The keys allowed in `[replay]`.
    public static let replayKeys = ["log", "events", "receivers"]

    /// Reads `[replay]`: `log` (the raw receiver log) and `events` (default: the log's name plus
    /// `.events.jsonl`, as `fieldloc record` writes them), both relative to the board file's folder
    /// unless absolute. A replay board is simulated and has no `[sim]`. Its `[[sensor]]` tables,
    /// when it has them, describe the recorded board's sensors (chips, mounting, `gyro`): the
    /// recording's raw samples then run through calibration, mounting and the attitude filter
    /// again; without them its headings are the recording's HEADING lines.
    static func readReplay(_ section: Section, board: BoardDescription, file: String) throws(BoardError) -> ReplayDescription {
        try section.checkKeys(replayKeys)
        guard board.simulated else {
            throw section.error("[replay] needs simulated = true (the recording stands in for the hardware)", key: "replay", at: section.location)
        }
        guard board.simulation == nil else {
            throw section.error("a board has either [sim] or [replay], not both", key: "replay", at: section.location)
        }
        let (log, logLocation) = try section.requiredString("log", what: "the raw receiver log that 'fieldloc record --out' wrote")
        guard !log.isEmpty else { throw section.error("the log path is empty", key: "log", at: logLocation) }
        let events = try section.string("events")?.value ?? log + ".events.jsonl"
        var replay = ReplayDescription(log: resolve(log, against: file), events: resolve(events, against: file))
        if let names = try section.stringList("receivers") {
            let location = section.entry("receivers")?.node.location
            guard names.count >= 2 else {
                throw section.error("receivers names the recording's receivers when it has several (at least two); leave it out for one",
                                    key: "receivers", at: location)
            }
            if let empty = names.firstIndex(where: \.isEmpty) {
                throw section.error("receiver \(empty + 1) of receivers has an empty name", key: "receivers", at: location)
            }
            if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
                throw section.error("receivers names '\(twice)' twice", key: "receivers", at: location)
            }
            guard board.receivers.isEmpty else {
                throw section.error("a replay board names its receivers in [replay] receivers, without [receiver] tables",
                                    key: "receivers", at: location)
            }
            replay.receivers = names
        }
        return replay
    }

    /// The receivers a replay board with ``ReplayDescription/receivers`` plays: one for each name,
    /// on the port ``ReplayDescription/port(of:)`` names, NMEA and passive (a recording cannot
    /// answer a command, so none is written).
    public static func replayReceivers(_ replay: ReplayDescription) -> [ReceiverDescription] {
        replay.receivers.map { name in
            var receiver = ReceiverDescription(uart: ReplayDescription.port(of: name), baudRate: .b9600, family: .genericNMEA, model: nil, wake: [])
            receiver.name = name
            receiver.configMode = .passive
            return receiver
        }
    }

    /// `path` as given when absolute, else relative to the folder of `file`.
    static func resolve(_ path: String, against file: String) -> String {
        guard !path.hasPrefix("/"), let slash = file.lastIndex(of: "/") else { return path }
        return String(file[...slash]) + path
    }
}
