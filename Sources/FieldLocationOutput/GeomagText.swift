import Heading
import NMEA

/// The World Magnetic Model's time argument for the engine and the CLI; the CSV of
/// `fieldloc geomag` (``GeomagCSV/process(_:file:model:)``) is in FieldLocationOutput.
public enum GeomagCSV {
    /// NOAA's decimal year for a calendar date.
    public static func decimalYear(_ date: CalendarDate) -> Double {
        let start = CalendarDate(year: date.year, month: 1, day: 1)?.daysSinceEpoch ?? date.daysSinceEpoch
        let end = CalendarDate(year: date.year + 1, month: 1, day: 1)?.daysSinceEpoch ?? start + 365
        return Double(date.year) + Double(date.daysSinceEpoch - start) / Double(end - start)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and carriage returns.
    package func trimmingCharacters() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\r" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\r" { scalars.removeLast() }
        return String(scalars)
    }
}
