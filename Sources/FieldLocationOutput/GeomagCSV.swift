import FieldLocation
import Heading
import NMEA

/// Why a geomagnetic request could not be served.
public enum GeomagError: Error, Sendable, CustomStringConvertible {
    /// The CSV's first line is not the expected header.
    case badHeader(file: String, found: String)
    /// A cell could not be read: file, line (1-based), column name and the text found.
    case badCell(file: String, line: Int, column: String, text: String)
    /// A row has the wrong number of cells.
    case badRow(file: String, line: Int, cells: Int)
    /// A date is not `YYYY-MM-DD`.
    case badDate(String)
    /// A number is outside the range its column allows: file, line (1-based), column and the text found.
    case outOfRange(file: String, line: Int, column: String, text: String)

    public var description: String {
        switch self {
        case .badHeader(let file, let found):
            return "\(file): line 1: expected header '\(GeomagCSV.inputHeader)', found '\(found)'"
        case .badCell(let file, let line, let column, let text):
            return "\(file): line \(line), column \(column): '\(text)' is not a number"
        case .badRow(let file, let line, let cells):
            return "\(file): line \(line): expected 4 cells, found \(cells)"
        case .badDate(let text): return "'\(text)' is not a date (expected YYYY-MM-DD)"
        case .outOfRange(let file, let line, let column, let text):
            return "\(file): line \(line), column \(column): \(text) is out of range"
        }
    }
}

/// Batch and single-point evaluation of the World Magnetic Model for the CLI.
extension GeomagCSV {
    /// The header of the input CSV.
    public static let inputHeader = "decimal_year,height_km,lat_deg,lon_deg"
    /// The header of the output CSV: the input columns, then the field elements.
    public static let outputHeader = inputHeader + ",X_nT,Y_nT,Z_nT,H_nT,F_nT,I_deg,D_deg"

    /// Evaluates every row of a CSV with the header ``inputHeader``; returns CSV with ``outputHeader``.
    /// Rows outside the model's validity period are computed and counted in `warnings`.
    public static func process(_ text: String, file: String, model: WorldMagneticModel = .wmm2025)
        throws(GeomagError) -> (csv: String, warnings: [String])
    {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        while let last = lines.last, last.trimmingCharacters().isEmpty { lines.removeLast() }
        guard let header = lines.first, header.trimmingCharacters() == inputHeader else {
            throw .badHeader(file: file, found: lines.first ?? "")
        }
        var out = outputHeader + "\n"
        var warnings: [String] = []
        let columns = ["decimal_year", "height_km", "lat_deg", "lon_deg"]
        for (offset, line) in lines.dropFirst().enumerated() {
            let number = offset + 2
            if line.trimmingCharacters().isEmpty { continue }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters() }
            guard cells.count == 4 else { throw .badRow(file: file, line: number, cells: cells.count) }
            var values: [Double] = []
            for (index, cell) in cells.enumerated() {
                guard let value = Double(cell), value.isFinite else {
                    throw .badCell(file: file, line: number, column: columns[index], text: cell)
                }
                values.append(value)
            }
            guard (-90...90).contains(values[2]) else {
                throw .outOfRange(file: file, line: number, column: "lat_deg", text: cells[2])
            }
            let e = model.evaluate(latitude: values[2], longitude: values[3], heightKm: values[1], decimalYear: values[0])
            if e.outsideValidityPeriod {
                warnings.append("\(file): line \(number): \(cells[0]) is outside \(model.name)'s validity period")
            }
            out += cells.joined(separator: ",") + "," + format(e) + "\n"
        }
        return (out, warnings)
    }

    /// `X_nT,Y_nT,Z_nT,H_nT,F_nT,I_deg,D_deg` with 3 decimals for fields and 4 for angles.
    public static func format(_ e: GeomagneticElements) -> String {
        [FixText.fixed(e.x, 3), FixText.fixed(e.y, 3), FixText.fixed(e.z, 3), FixText.fixed(e.horizontalIntensity, 3),
         FixText.fixed(e.totalIntensity, 3), FixText.fixed(e.inclination, 4), FixText.fixed(e.declination, 4)]
            .joined(separator: ",")
    }

    /// NOAA's decimal year for a `YYYY-MM-DD` date: year + (day of year - 1) / days in year.
    public static func decimalYear(_ text: String) throws(GeomagError) -> Double {
        let parts = text.split(separator: "-")
        guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              let date = CalendarDate(year: year, month: month, day: day) else { throw .badDate(text) }
        return decimalYear(date)
    }
}
