import NMEA

/// Writes fixes as JSON lines, with the keys gpsd clients and `compare_tpv.py` expect.
///
/// Keys: `time` (ISO 8601 UTC, ms), `mode` (1 no fix, 2, 3), `lat`, `lon` (degrees), `alt` (metres above
/// mean sea level), `altHAE`, `geoidSep`, `speed` (m/s), `course` (degrees true), `magvar`, `eph`, `epv`
/// (metres; see ``Fix/accuracyConfidence``), `hdop`, `vdop`, `pdop`, `sats_used`, `sats_visible`,
/// `talker` (only when the epoch's positions came from more than one talker: the talker of the
/// position reported, ``Fix/positionTalker``), `leap_seconds` (only when the fix's UTC came from GPS time with leap seconds the receiver did not
/// state: `table` or `assumed`, see ``LeapSecondSource``), `quality`, `source`. Missing values are
/// omitted, never written as null or NaN.
public enum FixJSON {
    /// One JSON object on one line (no trailing newline).
    public static func line(_ fix: Fix) -> String {
        var out = "{\"class\":\"FIX\""
        if let time = fix.time { out += ",\"time\":\"\(time.iso8601(fractionDigits: 3))\"" }
        out += ",\"mode\":\(fix.mode.rawValue)"
        if fix.hasPosition {
            add(&out, "lat", fix.latitude)
            add(&out, "lon", fix.longitude)
            add(&out, "alt", fix.altitudeMSL)
            add(&out, "altHAE", fix.altitudeHAE)
            add(&out, "geoidSep", fix.geoidSeparation)
        }
        add(&out, "speed", fix.speed)
        add(&out, "course", fix.course)
        add(&out, "magvar", fix.magneticVariation)
        add(&out, "eph", fix.horizontalAccuracy)
        add(&out, "epv", fix.verticalAccuracy)
        add(&out, "hdop", fix.hdop)
        add(&out, "vdop", fix.vdop)
        add(&out, "pdop", fix.pdop)
        if let used = fix.satellitesUsed { out += ",\"sats_used\":\(used)" }
        if fix.satellites.count > 0 { out += ",\"sats_visible\":\(fix.satellites.count)" }
        if fix.positionTalkersDiffer, fix.hasPosition, let talker = fix.positionTalker {
            out += ",\"talker\":\"" + String(decoding: [UInt8(truncatingIfNeeded: talker.rawValue >> 8), UInt8(truncatingIfNeeded: talker.rawValue)], as: UTF8.self) + "\""
        }
        if let source = fix.leapSecondsSource, source != .receiver { out += ",\"leap_seconds\":\"\(source.rawValue)\"" }
        out += ",\"quality\":\"\(name(fix.quality))\",\"source\":\"\(name(fix.provenance))\"}"
        return out
    }

    static func add(_ out: inout String, _ key: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        out += ",\"\(key)\":\(value)"
    }

    /// The name used for a quality in JSON and the status readout (``FixJSONWriter``'s table).
    public static func name(_ quality: FixQuality) -> String { FixJSONWriter.name(quality).description }

    /// The name used for a provenance in JSON (``FixJSONWriter``'s table).
    public static func name(_ provenance: Provenance) -> String { FixJSONWriter.name(provenance).description }
}
