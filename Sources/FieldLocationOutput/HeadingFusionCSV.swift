import Foundation
import Heading

extension HeadingCSV {
    /// The attitude filter over recorded rows: sorted by `t_s` (rows with equal times keep their
    /// order), each row updates the filter with the time since the previous one, and its output
    /// row (in input order) is the filter's heading after it. Rows before the first one with
    /// gravity and a horizontal field, and rows whose attitude is within 10° of vertical, have
    /// empty cells and a warning; a row after a gap of more than ``AttitudeFilter/maximumStep``
    /// re-initialises the filter from its sensors, with a warning. A row with the same time as
    /// the previous one does not move the filter: it repeats its heading. `speed_mps` and
    /// `course_deg` (``vehicleColumns``), where a row has them, go to the filter as the engine's
    /// fix speed and course do.
    static func processWithGyroscope(_ table: NumericCSV, reference: ReferenceField?, gains: AttitudeFilterGains)
        -> (csv: String, warnings: [String])
    {
        let a = inputColumns.map { table.index($0) ?? 0 }
        let g = motionColumns.map { table.index($0) ?? 0 }
        let declinationIndex = table.index("declination_deg")
        let speedIndex = table.index("speed_mps"), courseIndex = table.index("course_deg")
        let order = table.rows.indices.sorted { (table.rows[$0].1[g[0]], $0) < (table.rows[$1].1[g[0]], $1) }
        var filter = AttitudeFilter(gains: gains, reference: reference)
        var rows = [String](repeating: ",,,,,,,", count: table.rows.count)
        var warnings: [(Int, String)] = []
        let sinPitchLimit = sin(TiltCompensation.defaultPitchLimit * Double.pi / 180)
        var previous: Double? = nil
        for i in order {
            let (line, v) = table.rows[i]
            let t = v[g[0]]
            if let previous, t == previous {
                // Same instant: no step to integrate.
            } else {
                let dt = previous.map { t - $0 } ?? 0
                if dt > AttitudeFilter.maximumStep {
                    warnings.append((line, "\(table.file): line \(line): \(FixText.fixed(dt, 3)) s after the previous sample: the filter starts again from this row"))
                }
                filter.update(gyroscope: Vector3(v[g[1]], v[g[2]], v[g[3]]),
                              acceleration: Vector3(v[a[0]], v[a[1]], v[a[2]]), field: Vector3(v[a[3]], v[a[4]], v[a[5]]),
                              deltaTime: dt, speed: speedIndex.map { v[$0] }.flatMap { $0.isFinite ? $0 : nil },
                              course: courseIndex.map { v[$0] }.flatMap { $0.isFinite ? $0 : nil })
                previous = t
            }
            guard let magnetic = filter.magneticHeading else {
                warnings.append((line, "\(table.file): line \(line): no heading: the filter has no attitude yet (no gravity or no horizontal field)"))
                continue
            }
            let q = filter.quaternion
            let attitude = "," + FixText.fixed(q.pitch, 3) + "," + FixText.fixed(q.roll, 3) + ","
                + [q.w, q.x, q.y, q.z].map { FixText.fixed($0, 7) }.joined(separator: ",")
            if abs(q.downInBody.x) > sinPitchLimit {
                warnings.append((line, "\(table.file): line \(line): no heading: the x axis is within \(Int(90 - TiltCompensation.defaultPitchLimit))° of vertical"))
                rows[i] = "," + attitude
                continue
            }
            var row = headingText(magnetic) + ","
            if let d = declinationIndex {
                row += headingText(magnetic + v[d])
            } else if let reference {
                row += headingText(magnetic + reference.declination)
            }
            rows[i] = row + attitude
        }
        let sortedWarnings = warnings.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
        return (fusedOutputHeader + "\n" + rows.map { $0 + "\n" }.joined(), sortedWarnings)
    }
}
