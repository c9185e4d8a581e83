import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import Foundation
import Heading
import Testing

@Suite("Heading file with gyroscope columns")
struct HeadingFusionCSVTests {
    static let header = "t_s,acc_x_g,acc_y_g,acc_z_g,mag_x_uT,mag_y_uT,mag_z_uT,gyro_x_dps,gyro_y_dps,gyro_z_dps"

    /// A level unit turning at 30°/s from 20°, surging forward and back by 0.2 g at 2 Hz, at 100 Hz.
    static func rows(seconds: Double = 12) -> (lines: [String], truth: [Double]) {
        var lines: [String] = [], truth: [Double] = []
        let (h, z) = (23.3, 43.0)
        for k in 0..<Int(seconds * 100) {
            let t = Double(k) / 100
            let yaw = 20 + 30 * t
            let psi = yaw * .pi / 180
            let surge = 0.2 * sin(2 * .pi * 2 * t)
            lines.append(String(format: "%.2f,%.5f,0,-1,%.4f,%.4f,%.4f,0,0,30", t, surge, h * cos(psi), -h * sin(psi), z))
            truth.append(wrap360(yaw))
        }
        return (lines, truth)
    }

    static func headings(_ csv: String) -> [Double?] {
        csv.split(separator: "\n").dropFirst().map { Double($0.split(separator: ",", omittingEmptySubsequences: false)[0]) }
    }

    static func rms(_ headings: [Double?], _ truth: [Double]) -> Double {
        let errors = zip(headings, truth).map { wrap180(($0 ?? .nan) - $1) }
        return (errors.reduce(0) { $0 + $1 * $1 } / Double(errors.count)).squareRoot()
    }

    @Test("gyroscope rows run the attitude filter: one row per input row, far better than tilt compensation")
    func fused() throws {
        let (lines, truth) = Self.rows()
        let result = try HeadingCSV.process(([Self.header] + lines).joined(separator: "\n"), file: "m.csv")
        #expect(result.warnings.isEmpty)
        let fused = Self.headings(result.csv)
        #expect(fused.count == lines.count)
        #expect(Self.rms(fused, truth) < 1, "filter \(Self.rms(fused, truth))°")
        // The same rows without t_s and the rates: today's per-row tilt compensation.
        let plain = lines.map { $0.split(separator: ",").dropFirst().prefix(6).joined(separator: ",") }
        let tilt = try HeadingCSV.process((["acc_x_g,acc_y_g,acc_z_g,mag_x_uT,mag_y_uT,mag_z_uT"] + plain).joined(separator: "\n"),
                                          file: "m.csv")
        #expect(Self.rms(Self.headings(tilt.csv), truth) > 5, "tilt \(Self.rms(Self.headings(tilt.csv), truth))°")
        // Rows out of order are processed in time order and printed in input order.
        let reversed = try HeadingCSV.process(([Self.header] + lines.reversed()).joined(separator: "\n"), file: "m.csv")
        let back = reversed.csv.split(separator: "\n").dropFirst().reversed().joined(separator: "\n")
        #expect(back == result.csv.split(separator: "\n").dropFirst().joined(separator: "\n"))
    }

    @Test("declination column, reference field, and the filter's warnings by line")
    func declinationAndWarnings() throws {
        let (lines, _) = Self.rows(seconds: 0.05)
        var text = [Self.header + ",declination_deg", "0.00,0,0,0,23.3,0,43,0,0,0,5"]
        text += lines.dropFirst().map { $0 + ",5" }
        let result = try HeadingCSV.process(text.joined(separator: "\n"), file: "d.csv")
        #expect(result.warnings == ["d.csv: line 2: no heading: the filter has no attitude yet (no gravity or no horizontal field)"])
        let rows = result.csv.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows[1] == ",,,,,,,")
        // Row 2 (t = 0.01) initialises from its own sensors: the tilt-compensated solution.
        let v = lines[1].split(separator: ",").compactMap { Double($0) }
        let solution = try TiltCompensation.solve(acceleration: Vector3(v[1], v[2], v[3]), field: Vector3(v[4], v[5], v[6])).get()
        #expect(rows[2].hasPrefix(String(format: "%.3f,%.3f,", solution.magneticHeading, solution.magneticHeading + 5)))
        // A gap re-initialises, with a warning; --lat/--lon's reference gives true heading.
        let gap = [Self.header, lines[0], lines[1], "5.00,0,0,-1,0,-23.3,43,0,0,0"]
        let reference = ReferenceField(declination: 12, inclination: 61.5, totalIntensity: 48.9)
        let restarted = try HeadingCSV.process(gap.joined(separator: "\n"), file: "g.csv", reference: reference)
        #expect(restarted.warnings == ["g.csv: line 4: 4.990 s after the previous sample: the filter starts again from this row"])
        #expect(restarted.csv.split(separator: "\n").last?.hasPrefix("90.000,102.000,0.000,0.000,") == true)
    }

    @Test("motion columns come as a set", arguments: ["t_s", "gyro_x_dps", "gyro_y_dps", "gyro_z_dps"])
    func partialColumns(missing: String) {
        let names = Self.header.split(separator: ",").map(String.init).filter { $0 != missing }
        let row = Array(repeating: "0", count: names.count).joined(separator: ",")
        #expect(throws: SampleFileError.missingColumn(file: "p.csv", column: missing, header: names.joined(separator: ","))) {
            try HeadingCSV.process(names.joined(separator: ",") + "\n" + row + "\n", file: "p.csv")
        }
    }

    @Test("a vehicle's fix speed and course columns take a long corner's centripetal force off, as in the engine; blank cells are no fix")
    func vehicleColumns() throws {
        // A level car at 15 m/s turning right at 10 °/s for 55 s after 5 s parked: 0.27 g to the
        // right the whole corner, which without the speed looks like a 15° roll.
        let (h, z, g) = (23.3, 43.0, 9.80665)
        var plain: [String] = [], aided: [String] = [], blank: [String] = [], truth: [Double] = []
        for k in 0..<6000 {
            let t = Double(k) / 100
            let moving = t >= 5
            let yaw = 30 + (moving ? 10 * (t - 5) : 0)
            let psi = yaw * .pi / 180
            let side: Double = moving ? 15 * (10 * .pi / 180) / g : 0
            let rate: Double = moving ? 10 : 0, speed: Double = moving ? 15 : 0
            let row = String(format: "%.2f,0,%.6f,-1,%.4f,%.4f,%.4f,0,0,%.1f", t, side, h * cos(psi), -h * sin(psi), z, rate)
            plain.append(row)
            aided.append(row + String(format: ",%.1f,%.3f", speed, wrap360(yaw)))
            blank.append(row + (moving ? String(format: ",15.0,%.3f", wrap360(yaw)) : ",,"))
            truth.append(wrap360(yaw))
        }
        let header = Self.header + ",speed_mps,course_deg"
        let without = Self.headings(try HeadingCSV.process(([Self.header] + plain).joined(separator: "\n"), file: "c.csv").csv)
        let with = Self.headings(try HeadingCSV.process(([header] + aided).joined(separator: "\n"), file: "c.csv").csv)
        let blanks = try HeadingCSV.process(([header] + blank).joined(separator: "\n"), file: "c.csv")
        let corner = 500..<6000
        let rmsWithout = Self.rms(Array(without[corner]), Array(truth[corner]))
        let rmsWith = Self.rms(Array(with[corner]), Array(truth[corner]))
        #expect(rmsWith < 0.5, "with the fix's speed: \(rmsWith)° RMS")
        #expect(rmsWithout > 5, "without it the corner tilts the filter: \(rmsWithout)° RMS")
        #expect(Self.headings(blanks.csv) == with, "a blank speed while parked differs from a speed of 0 there")
        #expect(throws: SampleFileError.badCell(file: "c.csv", line: 2, column: "t_s", text: "")) {
            try HeadingCSV.process(header + "\n,0,0,-1,23.3,0,43,0,0,0,1,2\n", file: "c.csv")
        }
    }
}
