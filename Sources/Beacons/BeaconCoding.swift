/// The stored forms (JSON through any Codable coder): a UUID as its text, a constraint as
/// `uuid`, `major`, `minor`, a region with its identifier and notification flags.
extension BeaconUUID: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let uuid = BeaconUUID(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a UUID (8-4-4-4-12 hexadecimal digits)")
        }
        self = uuid
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension BeaconIdentityConstraint: Codable {
    enum CodingKeys: String, CodingKey { case uuid, major, minor }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try c.decode(BeaconUUID.self, forKey: .uuid)
        major = try c.decodeIfPresent(UInt16.self, forKey: .major)
        minor = try c.decodeIfPresent(UInt16.self, forKey: .minor)
        if minor != nil && major == nil {
            throw DecodingError.dataCorruptedError(forKey: .minor, in: c, debugDescription: "a minor value needs a major value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid, forKey: .uuid)
        try c.encodeIfPresent(major, forKey: .major)
        try c.encodeIfPresent(minor, forKey: .minor)
    }
}

extension BeaconRegion: Codable {
    enum CodingKeys: String, CodingKey { case identifier, constraint, notifyOnEntry, notifyOnExit }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try c.decode(String.self, forKey: .identifier)
        constraint = try c.decode(BeaconIdentityConstraint.self, forKey: .constraint)
        notifyOnEntry = try c.decodeIfPresent(Bool.self, forKey: .notifyOnEntry) ?? true
        notifyOnExit = try c.decodeIfPresent(Bool.self, forKey: .notifyOnExit) ?? true
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(constraint, forKey: .constraint)
        try c.encode(notifyOnEntry, forKey: .notifyOnEntry)
        try c.encode(notifyOnExit, forKey: .notifyOnExit)
    }
}

extension BeaconRegionEvent: Codable {
    enum CodingKeys: String, CodingKey { case kind, state, region, time }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .kind) {
        case "enter": kind = .enter
        case "exit": kind = .exit
        case "determined": kind = .determined(try c.decode(BeaconRegionState.self, forKey: .state))
        case let other: throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "beacon region event kind '\(other)' is unknown")
        }
        region = try c.decode(BeaconRegion.self, forKey: .region)
        time = try c.decode(Double.self, forKey: .time)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch kind {
        case .enter: try c.encode("enter", forKey: .kind)
        case .exit: try c.encode("exit", forKey: .kind)
        case .determined(let state):
            try c.encode("determined", forKey: .kind)
            try c.encode(state, forKey: .state)
        }
        try c.encode(region, forKey: .region)
        try c.encode(time, forKey: .time)
    }
}
