extension CorrectionStatus: Codable {
    private enum CodingKeys: String, CodingKey {
        case solution, source, link, linkDescription, age, station, messageTypes, frames, crcFailures, truncated, dropped
        case reconnects, ggaSent
    }

    /// The most message types a status lists (RTCM 3 defines a few dozen in use).
    public static let maximumMessageTypes = 128

    /// Decodes a status (the `corrections` of a location on the daemon's client socket). An unknown
    /// solution, a negative count or age, a message type outside RTCM 3's 1-4095, a station outside
    /// 0-4095 or more than ``maximumMessageTypes`` types are refused.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .solution)
        guard let solution = Solution(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .solution, in: c, debugDescription: "corrections: solution '\(name)' is unknown")
        }
        func count(_ key: CodingKeys) throws -> Int {
            let value = try c.decodeIfPresent(Int.self, forKey: key) ?? 0
            guard value >= 0 else { throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "corrections: \(key.stringValue) \(value) is negative") }
            return value
        }
        let age = try c.decodeIfPresent(Double.self, forKey: .age)
        if let age, !(age.isFinite && age >= 0) {
            throw DecodingError.dataCorruptedError(forKey: .age, in: c, debugDescription: "corrections: age \(age) is not a duration")
        }
        let station = try c.decodeIfPresent(Int.self, forKey: .station)
        if let station, !(0...4095).contains(station) {
            throw DecodingError.dataCorruptedError(forKey: .station, in: c, debugDescription: "corrections: station \(station) is not 0-4095")
        }
        let types = try c.decodeIfPresent([Int].self, forKey: .messageTypes) ?? []
        guard types.count <= Self.maximumMessageTypes, types.allSatisfy({ (1...4095).contains($0) }) else {
            throw DecodingError.dataCorruptedError(forKey: .messageTypes, in: c,
                                                   debugDescription: "corrections: message types must be at most \(Self.maximumMessageTypes) of 1-4095")
        }
        self.init(solution: solution, source: try c.decode(String.self, forKey: .source), link: try c.decode(String.self, forKey: .link),
                  linkDescription: try c.decodeIfPresent(String.self, forKey: .linkDescription) ?? "",
                  age: age, station: station, messageTypes: types, frames: try count(.frames), crcFailures: try count(.crcFailures),
                  truncated: try count(.truncated), dropped: try count(.dropped), reconnects: try count(.reconnects), ggaSent: try count(.ggaSent))
    }

    /// Encodes the status (absent optionals are absent keys).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(solution.rawValue, forKey: .solution)
        try c.encode(source, forKey: .source)
        try c.encode(link, forKey: .link)
        try c.encode(linkDescription, forKey: .linkDescription)
        try c.encodeIfPresent(age, forKey: .age)
        try c.encodeIfPresent(station, forKey: .station)
        try c.encode(messageTypes, forKey: .messageTypes)
        try c.encode(frames, forKey: .frames)
        try c.encode(crcFailures, forKey: .crcFailures)
        try c.encode(truncated, forKey: .truncated)
        try c.encode(dropped, forKey: .dropped)
        try c.encode(reconnects, forKey: .reconnects)
        try c.encode(ggaSent, forKey: .ggaSent)
    }
}
