/// Differential corrections behind a location: the solution the receiver reached, and the state of
/// the correction link (an NTRIP caster) that feeds it.
public struct CorrectionStatus: Sendable, Hashable, CustomStringConvertible {
    /// The receiver's solution with the corrections it has.
    public enum Solution: String, Sendable, Hashable {
        /// No differential solution (autonomous, or no fix).
        case none
        /// Code-differential (GGA quality 2).
        case dgps
        /// RTK with float ambiguities (GGA quality 5, UBX carrSoln 1).
        case rtkFloat = "rtk-float"
        /// RTK with fixed ambiguities (GGA quality 4, UBX carrSoln 2).
        case rtkFixed = "rtk-fixed"
    }

    /// The solution.
    public var solution: Solution
    /// Where the corrections come from (`host:port/MOUNT`).
    public var source: String
    /// The link's state by name (`streaming`, `unauthorized`, `mountpoint-not-found`, …).
    public var link: String
    /// The link's state in words.
    public var linkDescription: String
    /// Seconds since corrections last reached the receiver (`nil` before any did).
    public var age: Double?
    /// The reference station ID the corrections name (RTCM 1005 and the observation messages).
    public var station: Int?
    /// The RTCM 3 message types received, ascending.
    public var messageTypes: [Int]
    /// Frames received with a good CRC, failing their CRC, and cut off by a connection's end.
    public var frames: Int, crcFailures: Int, truncated: Int
    /// Frames dropped because the receiver's UART could not take them in time.
    public var dropped: Int
    /// Connections made after the first, and GGA sentences sent to the caster.
    public var reconnects: Int, ggaSent: Int

    /// A status with every value given.
    public init(solution: Solution, source: String, link: String, linkDescription: String, age: Double? = nil, station: Int? = nil,
                messageTypes: [Int] = [], frames: Int = 0, crcFailures: Int = 0, truncated: Int = 0, dropped: Int = 0,
                reconnects: Int = 0, ggaSent: Int = 0) {
        self.solution = solution
        self.source = source
        self.link = link
        self.linkDescription = linkDescription
        self.age = age
        self.station = station
        self.messageTypes = messageTypes
        self.frames = frames
        self.crcFailures = crcFailures
        self.truncated = truncated
        self.dropped = dropped
        self.reconnects = reconnects
        self.ggaSent = ggaSent
    }

    public var description: String {
        var parts = ["\(solution.rawValue)", "NTRIP \(source) \(linkDescription)"]
        if let age, age.isFinite, age >= 0, age < 1e9 {
            let tenths = Int((age * 10).rounded())
            parts.append("age \(tenths / 10).\(tenths % 10) s")
        }
        if let station { parts.append("station \(station)") }
        if !messageTypes.isEmpty { parts.append("types " + messageTypes.map(String.init).joined(separator: ",")) }
        return parts.joined(separator: ", ")
    }
}
