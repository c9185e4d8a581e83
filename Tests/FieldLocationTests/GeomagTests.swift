import FieldLocation
import FieldLocationOutput
import Testing

@Suite("fieldloc geomag")
struct GeomagTests {
    @Test("CSV in, CSV out with the seven field columns")
    func csv() throws {
        let input = "decimal_year,height_km,lat_deg,lon_deg\n2025.0,0.0,80.0,0.0\n2027.5,100.0,-80.0,240.0\n"
        let (out, warnings) = try GeomagCSV.process(input, file: "points.csv")
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.first == GeomagCSV.outputHeader)
        #expect(lines.count == 3)
        let first = lines[1].split(separator: ",").compactMap { Double($0) }
        // NOAA's 12-point table, first row: X 6521.6, Y 145.9, Z 54791.5, H 6523.2, F 55178.5, I 83.21, D 1.28.
        let expected = [6521.6, 145.9, 54791.5, 6523.2, 55178.5, 83.21, 1.28]
        for (ours, noaa) in zip(first.dropFirst(4), expected) { #expect(abs(ours - noaa) <= 0.05) }
        #expect(warnings.isEmpty)
    }

    @Test("a date outside the model's validity is computed and warned about")
    func validityWarning() throws {
        let (_, warnings) = try GeomagCSV.process("decimal_year,height_km,lat_deg,lon_deg\n2031.0,0,0,0\n", file: "late.csv")
        #expect(warnings.count == 1 && warnings[0].contains("late.csv: line 2"))
    }

    @Test("bad input names the file, the line and the column")
    func badInput() {
        #expect(throws: GeomagError.self) { try GeomagCSV.process("year,h,lat,lon\n", file: "a.csv") }
        do {
            _ = try GeomagCSV.process("decimal_year,height_km,lat_deg,lon_deg\n2025.0,0,north,0\n", file: "b.csv")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "b.csv: line 2, column lat_deg: 'north' is not a number")
        }
        do {
            _ = try GeomagCSV.process("decimal_year,height_km,lat_deg,lon_deg\n2025.0,0,0\n", file: "c.csv")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "c.csv: line 2: expected 4 cells, found 3")
        }
    }

    @Test("decimal years follow NOAA's convention")
    func decimalYears() throws {
        #expect(try GeomagCSV.decimalYear("2025-01-01") == 2025.0)
        #expect(abs(try GeomagCSV.decimalYear("2024-07-02") - (2024 + 183.0 / 366)) < 1e-12)
        #expect(throws: GeomagError.self) { try GeomagCSV.decimalYear("2025-02-30") }
        #expect(throws: GeomagError.self) { try GeomagCSV.decimalYear("yesterday") }
    }
}
