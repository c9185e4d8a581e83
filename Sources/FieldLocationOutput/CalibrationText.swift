import Foundation
import Heading
import NMEA

/// Human-readable calibration reports.
public enum CalibrationText {
    /// Several lines: verdict, offset, matrix, residual, coverage, and what to do.
    public static func describe(_ c: MagnetometerCalibration) -> String {
        let q = c.quality
        var out = "calibration: \(q.verdict.rawValue) (score \(Int(q.score)) of 100, \(q.method.rawValue) fit, \(q.sampleCount) samples)\n"
        out += "  offset   \(FixText.fixed(c.offset.x, 3))  \(FixText.fixed(c.offset.y, 3))  \(FixText.fixed(c.offset.z, 3))  µT\n"
        for (i, row) in [c.softIron.r0, c.softIron.r1, c.softIron.r2].enumerated() {
            out += (i == 0 ? "  matrix   " : "           ") + "\(FixText.fixed(row.x, 5))  \(FixText.fixed(row.y, 5))  \(FixText.fixed(row.z, 5))\n"
        }
        out += "  field    \(FixText.fixed(c.fieldStrength, 2)) µT\n"
        out += "  residual \(FixText.fixed(q.residualRMS, 3)) µT RMS (\(FixText.fixed(q.relativeResidual * 100, 2)) % of the field)\n"
        out += "  coverage \(FixText.fixed(q.coverage * 100, 0)) % of the sphere\n"
        for reason in q.reasons { out += "  - \(reason)\n" }
        return out
    }
}

/// Today's UTC date, for WMM's decimal year.
public enum CalendarDateToday {
    /// The current UTC calendar date.
    public static func now() -> CalendarDate {
        let seconds = Int(Date().timeIntervalSince1970)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return CalendarDate(daysSinceEpoch: days)
    }
}
