import NMEA

/// Writes fixes as JSON lines, with the keys gpsd clients and `compare_tpv.py` expect.
///
/// Keys: `time` (ISO 8601 UTC, ms), `mode` (1 no fix, 2, 3), `lat`, `lon` (degrees), `alt` (metres above
/// mean sea level), `altHAE`, `geoidSep`, `speed` (m/s), `course` (degrees true), `magvar`, `eph`, `epv`
/// (metres; see ``Fix/accuracyConfidence``), `ept` (seconds: the time's measured one-sigma error, the
/// receiver's tAcc or GST's pseudorange residuals over the speed of light, see
/// `Location.timeAccuracy(of:)`; absent when nothing measured it), `hdop`, `vdop`, `pdop`, `sats_used`, `sats_visible`,
/// `talker` (only when the epoch's positions came from more than one talker: the talker of the
/// position reported, ``Fix/positionTalker``), `leap_seconds` (only when the fix's UTC came from GPS time with leap seconds the receiver did not
/// state: `table` or `assumed`, see ``LeapSecondSource``), `quality`, `source`. Missing values are
/// omitted, never written as null or NaN.
public enum FixJSON {
    /// One JSON object on one line (no trailing newline): the bytes ``FixJSONWriter/write(_:)`` writes
    /// for `fix`, less its newline. There is one writer of fix lines; this is its `String` form, for
    /// outputs that are not hot (a recording's events, `fieldloc watch`).
    public static func line(_ fix: Fix) -> String {
        var bytes: [UInt8] = []
        let writer = FixJSONWriter(capacity: 2 * FixJSONWriter.lineReserve) { bytes.append(contentsOf: $0) }
        writer.write(fix)
        writer.flush()
        if bytes.last == 0x0A { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The name used for a quality in JSON and the status readout (``FixJSONWriter``'s table).
    public static func name(_ quality: FixQuality) -> String { FixJSONWriter.name(quality).description }

    /// The name used for a provenance in JSON (``FixJSONWriter``'s table).
    public static func name(_ provenance: Provenance) -> String { FixJSONWriter.name(provenance).description }

    /// A fix line read back (the keys of ``line(_:)`` that readers use; every key optional, others ignored).
    public struct Record: Decodable, Sendable, Equatable {
        /// `time`: ISO 8601 UTC.
        public var time: String?
        /// `mode`: 1 no fix, 2, 3.
        public var mode: Int?
        /// `lat`, degrees.
        public var lat: Double?
        /// `lon`, degrees.
        public var lon: Double?
        /// `alt`: metres above mean sea level.
        public var alt: Double?
        /// `altHAE`: metres above the ellipsoid.
        public var altHAE: Double?
        /// `speed`, m/s.
        public var speed: Double?
        /// `course`, degrees true.
        public var course: Double?
        /// `hdop`.
        public var hdop: Double?
        /// `sats_used`.
        public var satellitesUsed: Int?
        /// `quality`: a name from ``name(_:)-(FixQuality)``.
        public var quality: String?
        /// `source`: a name from ``name(_:)-(Provenance)``.
        public var source: String?

        enum CodingKeys: String, CodingKey {
            case time, mode, lat, lon, alt, altHAE, speed, course, hdop, quality, source
            case satellitesUsed = "sats_used"
        }
    }
}
