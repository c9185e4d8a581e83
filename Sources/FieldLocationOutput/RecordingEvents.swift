import HardwareInterfaces
import LocationAPI
import LocationServices
import NMEA

/// The lines of a recording's events file (`LOG.events.jsonl`), as `fieldloc record` writes them and
/// `RecordedSession` (the replay board) reads them back: one JSON object per line, each with its
/// `class` and `t`, the seconds since the recording started.
///
/// - `CHUNK`: one read of the receiver, `offset` and `length` bytes into the raw log.
/// - `FIX`: the engine's fix (the keys of ``FixJSON``), the recording's output.
/// - `HEADING`: `magnetic`, `true` (when known), `accuracy` (degrees) and `quality`.
/// - `PPS`: `utc` (the second the pulse starts), `edge` (seconds on the recording's clock) and
///   `nmea_delay` (seconds from the edge to that second's sentences).
///
/// Numbers are written with fixed digits; a value that is not finite is left out, never written as
/// text a JSON reader would refuse.
public enum RecordingEvents {
    /// A `CHUNK` line (with its newline).
    public static func chunk(t: Double, offset: Int, length: Int) -> String {
        "{\"class\":\"CHUNK\",\"t\":\(FixText.fixed(t, 3)),\"offset\":\(offset),\"length\":\(length)}\n"
    }

    /// A `FIX` line (with its newline): ``FixJSON/line(_:)`` with `t` added.
    public static func fix(_ fix: Fix, t: Double) -> String {
        String(FixJSON.line(fix).dropLast()) + ",\"t\":\(FixText.fixed(t, 3))}\n"
    }

    /// A `HEADING` line (with its newline).
    public static func heading(_ h: HeadingUpdate, t: Double) -> String {
        var line = "{\"class\":\"HEADING\",\"t\":\(FixText.fixed(t, 3))"
        add(&line, "magnetic", h.magneticHeading, 2)
        add(&line, "true", h.trueHeading, 2)
        add(&line, "accuracy", h.headingAccuracy, 2)
        return line + ",\"quality\":\"\(h.quality.rawValue)\"}\n"
    }

    /// A `PPS` line (with its newline).
    public static func pps(_ p: PPSSample, t: Double) -> String {
        var line = "{\"class\":\"PPS\",\"t\":\(FixText.fixed(t, 3)),\"utc\":\(p.utcSecond)"
        add(&line, "edge", p.edge.seconds, 9)
        add(&line, "nmea_delay", (p.nmeaArrival - p.edge).secondsDouble, 3)
        return line + "}\n"
    }

    private static func add(_ line: inout String, _ key: String, _ value: Double?, _ digits: Int) {
        guard let value, value.isFinite else { return }
        line += ",\"\(key)\":\(FixText.fixed(value, digits))"
    }
}
