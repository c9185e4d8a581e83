/// A board's NTRIP corrections (`[ntrip]`): the caster URL and how to send GGA. The password is
/// never in the board file: it comes from `password_file` (or the daemon's environment).
public struct NTRIPBoardSettings: Sendable, Equatable {
    /// `ntrip://[user@]host[:port]/MOUNT` (NTRIP 2.0) or `ntrip1://…` (NTRIP 1.0), without a password.
    public var url: String
    /// A file whose first line is the password.
    public var passwordFile: String?
    /// `auto` (when the source table's nmea flag asks), `always` or `never`.
    public var gga: String
    /// Seconds between GGA sentences.
    public var ggaInterval: Double

    /// Settings with every value given.
    public init(url: String, passwordFile: String? = nil, gga: String = "auto", ggaInterval: Double = 10) {
        self.url = url
        self.passwordFile = passwordFile
        self.gga = gga
        self.ggaInterval = ggaInterval
    }
}

extension BoardLoader {
    /// The keys allowed in `[ntrip]`.
    public static let ntripKeys = ["url", "password_file", "gga", "gga_interval"]

    static func readNTRIP(_ section: Section) throws(BoardError) -> NTRIPBoardSettings {
        try section.checkKeys(ntripKeys)
        let (url, urlLocation) = try section.requiredString("url", what: "the caster, e.g. \"ntrip://user@caster.example:2101/MOUNT\"")
        guard url.hasPrefix("ntrip://") || url.hasPrefix("ntrip1://") || url.hasPrefix("ntrip2://") else {
            throw section.error("'\(url)' is not an ntrip:// or ntrip1:// URL", key: "url", at: urlLocation)
        }
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        if parts.count >= 3, let at = parts[2].lastIndex(of: "@"), parts[2][..<at].contains(":") {
            throw section.error("a password does not belong in a board file: use password_file", key: "url", at: urlLocation)
        }
        var gga = "auto"
        if let (value, location) = try section.string("gga") {
            guard ["auto", "always", "never"].contains(value) else {
                throw section.error("gga '\(value)' is not auto, always or never", key: "gga", at: location)
            }
            gga = value
        }
        var interval = 10.0
        if let (value, location) = try section.number("gga_interval") {
            guard (1...3600).contains(value) else {
                throw section.error("gga_interval \(value) s is outside 1...3600", key: "gga_interval", at: location)
            }
            interval = value
        }
        return NTRIPBoardSettings(url: url, passwordFile: try section.string("password_file")?.value, gga: gga, ggaInterval: interval)
    }
}
