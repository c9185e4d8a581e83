import EnginePlatforms
import Foundation
import HardwareInterfaces
import Heading
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
/// - `RECORDING` (format version 2, the first line): `version` and the `board` recorded; from
///   version 3 also `calibration`, the magnetometer calibration in force (a stored calibration's
///   keys), when there is one.
/// - `SENSOR` (version 2): one burst of raw readings before calibration, chip axes: `acc` (g),
///   `gyro` (degrees per second, boards with a gyroscope) and `mag` (µT; not in motion-only samples).
/// - `ADVERT` (version 2): a Bluetooth advertising report: `address`, `random`, `rssi` (dBm),
///   `tx_power` (when reported), `scan_response` (when true) and `data` (the AD structures, hex).
///
/// - Version 4, a board with several receivers: the RECORDING line lists them by name
///   (`receivers`, the board's first first); every CHUNK line names the `receiver` whose read it
///   was (the raw log holds every receiver's bytes in the order read), a `PORT` line says when a
///   receiver's port opened (`"open":true`) or failed (`false`), and a FIX line names the
///   `receiver` whose fix was delivered. A recording of one receiver is written as in version 3.
///
/// From version 2 the times of CHUNK, SENSOR and ADVERT lines have nine decimals (nanoseconds),
/// and sensor readings are written with every digit Swift needs to read the same `Double` back,
/// so that a replay reproduces the live run bit for bit.
///
/// Numbers are written with fixed digits; a value that is not finite is left out, never written as
/// text a JSON reader would refuse.
public enum RecordingEvents {
    /// A `CHUNK` line (with its newline).
    public static func chunk(t: Double, offset: Int, length: Int) -> String {
        "{\"class\":\"CHUNK\",\"t\":\(FixText.fixed(t, 3)),\"offset\":\(offset),\"length\":\(length)}\n"
    }

    /// A `CHUNK` line (with its newline) with its time to the nanosecond (format version 2), and
    /// the receiver whose read it was on a board with several (version 4).
    public static func chunk(at t: Duration, offset: Int, length: Int, receiver: String? = nil) -> String {
        "{\"class\":\"CHUNK\",\"t\":\(seconds(t)),\"offset\":\(offset),\"length\":\(length)"
            + (receiver.map { ",\"receiver\":" + quoted($0) } ?? "") + "}\n"
    }

    /// A `PORT` line (with its newline, version 4): `receiver`'s port opened or failed `t` after the start.
    public static func port(at t: Duration, receiver: String, open: Bool) -> String {
        "{\"class\":\"PORT\",\"t\":\(seconds(t)),\"receiver\":\(quoted(receiver)),\"open\":\(open)}\n"
    }

    /// The `RECORDING` header line (with its newline): the format version, the board and, when
    /// one is in force, the magnetometer calibration the unit applies (a stored calibration's keys,
    /// every digit kept, so a replay's headings are the unit's bit for bit).
    public static func header(board: String, calibration: MagnetometerCalibration? = nil, receivers: [String] = []) -> String {
        // One receiver: the version 3 format, which older readers take.
        let version = receivers.count > 1 ? RecordedSession.formatVersion : 3
        var line = "{\"class\":\"RECORDING\",\"version\":\(version),\"board\":\(quoted(board))"
        if receivers.count > 1 { line += ",\"receivers\":[" + receivers.map(quoted).joined(separator: ",") + "]" }
        if let c = calibration {
            let q = c.quality
            line += ",\"calibration\":{\"offset_uT\":[\(exact(c.offset.x)),\(exact(c.offset.y)),\(exact(c.offset.z))]"
            line += ",\"matrix\":[\(c.softIron.values.map(exact).joined(separator: ","))]"
            line += ",\"field_uT\":\(exact(c.fieldStrength)),\"residual_uT\":\(exact(q.residualRMS))"
            line += ",\"residual_relative\":\(exact(q.relativeResidual)),\"coverage\":\(exact(q.coverage))"
            line += ",\"shape_ratio\":\(exact(q.shapeRatio))"
            if let scale = q.scaleRatio { line += ",\"scale_ratio\":\(exact(scale))" }
            line += ",\"samples\":\(q.sampleCount),\"method\":\"\(q.method.rawValue)\"}"
        }
        return line + "}\n"
    }

    /// A `SENSOR` line (with its newline), `t` after the recording's start.
    public static func sensor(_ s: RawSensorSample, at t: Duration) -> String {
        var line = "{\"class\":\"SENSOR\",\"t\":\(seconds(t))"
        for (key, value) in [("acc", s.acceleration), ("gyro", s.rotationRate), ("mag", s.field)] {
            guard let value else { continue }
            line += ",\"\(key)\":[\(exact(value.x)),\(exact(value.y)),\(exact(value.z))]"
        }
        return line + "}\n"
    }

    /// An `ADVERT` line (with its newline), received `t` after the recording's start.
    public static func advert(_ a: RecordedAdvert, at t: Duration) -> String {
        var line = "{\"class\":\"ADVERT\",\"t\":\(seconds(t)),\"address\":\"\(a.address)\",\"random\":\(a.address.isRandom)"
        if let rssi = a.rssi { line += ",\"rssi\":\(rssi)" }
        if let tx = a.txPower { line += ",\"tx_power\":\(tx)" }
        if a.isScanResponse { line += ",\"scan_response\":true" }
        let digits = Array("0123456789ABCDEF")
        var hex = ""
        hex.reserveCapacity(a.data.count * 2)
        for byte in a.data {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0xF)])
        }
        return line + ",\"data\":\"\(hex)\"}\n"
    }

    /// Seconds with nine decimals, exactly the duration's nanoseconds (negative durations as 0).
    static func seconds(_ t: Duration) -> String {
        let (whole, atto) = t.components
        guard whole >= 0, atto >= 0 else { return "0.000000000" }
        let nanos = String(atto / 1_000_000_000)
        return "\(whole)." + String(repeating: "0", count: max(0, 9 - nanos.count)) + nanos
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A reading with the shortest digits that read back as the same `Double`; `null` (refused by
    /// the reader, which names the line) for a value that is not finite.
    static func exact(_ value: Double) -> String { value.isFinite ? "\(value)" : "null" }

    /// A `FIX` line (with its newline): ``FixJSON/line(_:)`` with `t` added, and on a board with
    /// several receivers the `receiver` whose fix it is.
    public static func fix(_ fix: Fix, t: Double, receiver: String? = nil) -> String {
        String(FixJSON.line(fix).dropLast()) + (receiver.map { ",\"receiver\":" + quoted($0) } ?? "") + ",\"t\":\(FixText.fixed(t, 3))}\n"
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

extension RecordingEvents {
    /// The receivers the events file beside raw log `log` (`LOG.events.jsonl`) lists in its
    /// RECORDING line (format version 4), read from its first line only; empty when there is no
    /// such file, or it lists none (a recording of one receiver).
    public static func receivers(besideLog log: String) -> [String] {
        guard let handle = FileHandle(forReadingAtPath: log + ".events.jsonl") else { return [] }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 65_536) else { return [] }
        let first = head.prefix { $0 != 0x0A }
        guard let object = try? JSONSerialization.jsonObject(with: Data(first)) as? [String: Any],
              object["class"] as? String == "RECORDING" else { return [] }
        return object["receivers"] as? [String] ?? []
    }
}
