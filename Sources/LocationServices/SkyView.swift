import HardwareInterfaces
import NMEA

/// The receiver's sky at one epoch: the satellites in view with their constellation, elevation,
/// azimuth, carrier-to-noise density and whether the solution used them, and the dilutions of
/// precision (gpsd's SKY report, for the manager API and the client socket).
public struct SkyView: Sendable, Hashable, Codable {
    /// One satellite in view.
    public struct Satellite: Sendable, Hashable, Codable {
        /// The constellation (`gps`, `glonass`, `galileo`, `beidou`, `qzss`, `navic`, `sbas`, or
        /// `unknown` when the receiver's numbering does not say).
        public var constellation: String
        /// The satellite's number as the receiver gave it (NMEA numbering).
        public var prn: Int
        /// Degrees above the horizon, when known.
        public var elevation: Int?
        /// Degrees clockwise from true north, when known.
        public var azimuth: Int?
        /// Carrier-to-noise density, dB-Hz, when tracked.
        public var cn0: Int?
        /// Whether the position solution used it.
        public var used: Bool

        /// A satellite.
        public init(constellation: String, prn: Int, elevation: Int? = nil, azimuth: Int? = nil, cn0: Int? = nil, used: Bool = false) {
            self.constellation = constellation
            self.prn = prn
            self.elevation = elevation
            self.azimuth = azimuth
            self.cn0 = cn0
            self.used = used
        }
    }

    /// The epoch's UTC, seconds since 1970, when the receiver dated it.
    public var timestamp: Double?
    /// When the epoch arrived, on the engine's monotonic clock (nanoseconds on the wire).
    public var receivedAt: MonotonicInstant
    /// Position dilution of precision, when stated.
    public var pdop: Double?
    /// Horizontal dilution of precision, when stated.
    public var hdop: Double?
    /// Vertical dilution of precision, when stated.
    public var vdop: Double?
    /// The satellites in view, in the receiver's order.
    public var satellites: [Satellite]

    /// A sky view.
    public init(timestamp: Double? = nil, receivedAt: MonotonicInstant, pdop: Double? = nil, hdop: Double? = nil, vdop: Double? = nil,
                satellites: [Satellite]) {
        self.timestamp = timestamp
        self.receivedAt = receivedAt
        self.pdop = pdop
        self.hdop = hdop
        self.vdop = vdop
        self.satellites = satellites
    }

    /// The sky of an assembled fix, or `nil` when it has no satellites in view.
    public init?(_ fix: Fix, receivedAt: MonotonicInstant) {
        guard fix.satellites.count > 0 else { return nil }
        let finite = { (value: Double?) -> Double? in value.flatMap { $0.isFinite ? $0 : nil } }
        self.init(timestamp: fix.time?.secondsSinceEpoch, receivedAt: receivedAt, pdop: finite(fix.pdop), hdop: finite(fix.hdop),
                  vdop: finite(fix.vdop), satellites: fix.satellites.array.map { s in
                      Satellite(constellation: s.constellation?.code ?? "unknown", prn: Int(s.prn),
                                elevation: s.elevation.map(Int.init), azimuth: s.azimuth.map(Int.init), cn0: s.snr.map(Int.init), used: s.used)
                  })
    }

    /// The satellites of each constellation (by its name), in the receiver's order.
    public var byConstellation: [String: [Satellite]] { Dictionary(grouping: satellites, by: \.constellation) }

    /// Satellites the solution used.
    public var usedCount: Int { satellites.filter(\.used).count }

    private enum CodingKeys: String, CodingKey { case timestamp, receivedAt, pdop, hdop, vdop, satellites }

    /// Decodes `{"timestamp"?,"receivedAt" (ns),"pdop"?,"hdop"?,"vdop"?,"satellites":[…]}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        timestamp = try c.decodeIfPresent(Double.self, forKey: .timestamp)
        receivedAt = MonotonicInstant(nanoseconds: try c.decode(UInt64.self, forKey: .receivedAt))
        pdop = try c.decodeIfPresent(Double.self, forKey: .pdop)
        hdop = try c.decodeIfPresent(Double.self, forKey: .hdop)
        vdop = try c.decodeIfPresent(Double.self, forKey: .vdop)
        satellites = try c.decode([Satellite].self, forKey: .satellites)
        guard satellites.count <= 512 else {
            throw DecodingError.dataCorruptedError(forKey: .satellites, in: c, debugDescription: "sky: more than 512 satellites")
        }
    }

    /// Encodes the sky view (`receivedAt` in nanoseconds).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(timestamp, forKey: .timestamp)
        try c.encode(receivedAt.nanoseconds, forKey: .receivedAt)
        try c.encodeIfPresent(pdop, forKey: .pdop)
        try c.encodeIfPresent(hdop, forKey: .hdop)
        try c.encodeIfPresent(vdop, forKey: .vdop)
        try c.encode(satellites, forKey: .satellites)
    }
}
