import FieldLocation
import Foundation
import NMEA

/// GPX 1.1 tracks from fixes: one `trkseg` of `trkpt`s with elevation (MSL), time, fix mode,
/// satellites and DOPs, as gpsbabel and other GPX readers expect.
public enum GPXWriter {
    /// One track point.
    public struct Point: Sendable, Hashable {
        /// Degrees.
        public var latitude: Double, longitude: Double
        /// Metres above mean sea level.
        public var elevation: Double?
        /// ISO 8601 UTC.
        public var time: String?
        /// Satellites used.
        public var satellites: Int?
        /// Dilutions of precision.
        public var hdop: Double?, vdop: Double?, pdop: Double?
        /// "2d" or "3d".
        public var fix: String?

        /// Creates a point.
        public init(latitude: Double, longitude: Double, elevation: Double? = nil, time: String? = nil, satellites: Int? = nil,
                    hdop: Double? = nil, vdop: Double? = nil, pdop: Double? = nil, fix: String? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.elevation = elevation
            self.time = time
            self.satellites = satellites
            self.hdop = hdop
            self.vdop = vdop
            self.pdop = pdop
            self.fix = fix
        }

        /// The point of a fix with a position.
        public init?(_ fix: Fix) {
            guard fix.hasPosition, let lat = fix.latitude, let lon = fix.longitude else { return nil }
            self.init(latitude: lat, longitude: lon, elevation: fix.altitudeMSL, time: fix.time?.iso8601(fractionDigits: 3),
                      satellites: fix.satellitesUsed, hdop: fix.hdop, vdop: fix.vdop, pdop: fix.pdop,
                      fix: fix.mode == .threeD ? "3d" : "2d")
        }
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The GPX document.
    public static func document(_ points: [Point], name: String) -> String {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="fieldloc" xmlns="http://www.topografix.com/GPX/1/1">
          <trk>
            <name>\(escape(name))</name>
            <trkseg>

        """
        for p in points {
            out += "      <trkpt lat=\"\(FixText.fixed(p.latitude, 9))\" lon=\"\(FixText.fixed(p.longitude, 9))\">"
            if let e = p.elevation, e.isFinite { out += "<ele>\(FixText.fixed(e, 3))</ele>" }
            if let t = p.time { out += "<time>\(escape(t))</time>" }
            if let f = p.fix { out += "<fix>\(f)</fix>" }
            if let s = p.satellites { out += "<sat>\(s)</sat>" }
            if let h = p.hdop, h.isFinite { out += "<hdop>\(FixText.fixed(h, 2))</hdop>" }
            if let v = p.vdop, v.isFinite { out += "<vdop>\(FixText.fixed(v, 2))</vdop>" }
            if let d = p.pdop, d.isFinite { out += "<pdop>\(FixText.fixed(d, 2))</pdop>" }
            out += "</trkpt>\n"
        }
        out += "    </trkseg>\n  </trk>\n</gpx>\n"
        return out
    }

    /// Why an input could not be exported.
    public struct InputError: Error, Sendable, CustomStringConvertible {
        /// The file, line and problem.
        public var description: String
    }

    /// Points from JSON lines of class FIX (from `fieldloc watch`, `replay --json` or a recording's
    /// events): lines of other classes are skipped; a malformed FIX line is an error naming its line.
    public static func points(jsonLines text: String, file: String) throws(InputError) -> [Point] {
        var out: [Point] = []
        let decoder = JSONDecoder()
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("{"), trimmed.contains("\"class\":\"FIX\"") else { continue }
            let record: FixJSON.Record
            do {
                record = try decoder.decode(FixJSON.Record.self, from: Data(trimmed.utf8))
            } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
                throw InputError(description: "\(file):\(index + 1): key '\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type")
            } catch {
                throw InputError(description: "\(file):\(index + 1): not valid JSON")
            }
            guard let lat = record.lat, let lon = record.lon else { continue }
            guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw InputError(description: "\(file):\(index + 1): lat \(lat) / lon \(lon) out of range")
            }
            out.append(Point(latitude: lat, longitude: lon, elevation: record.alt, time: record.time,
                             satellites: record.satellitesUsed, hdop: record.hdop,
                             fix: record.mode == 3 ? "3d" : record.mode == 2 ? "2d" : nil))
        }
        return out
    }
}
