import Foundation
@testable import Heading
import Testing

/// NOAA's official WMM2025 test values, from `../shared/data/wmm/` beside the package.
enum NOAATables {
    static var folder: URL? {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url = package.appendingPathComponent("../shared/data/wmm").standardized
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Rows as dictionaries keyed by the CSV header.
    static func rows(_ file: String) throws -> [[String: Double]] {
        guard let folder else { return [] }
        let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        let lines = text.split(whereSeparator: \.isNewline)
        guard let header = lines.first?.split(separator: ",").map(String.init) else { return [] }
        return lines.dropFirst().map { line in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            var row: [String: Double] = [:]
            for (key, cell) in zip(header, cells) { if let value = Double(cell) { row[key] = value } }
            return row
        }
    }
}

@Suite("WMM2025")
struct WorldMagneticModelTests {
    let model = WorldMagneticModel.wmm2025

    func check(_ row: [String: Double], nT: Double, degrees: Double, rates: Double, line: Int) {
        guard let year = row["decimal_year"], let height = row["height_km"], let lat = row["lat_deg"], let lon = row["lon_deg"]
        else { Issue.record("row \(line) incomplete"); return }
        let e = model.evaluate(latitude: lat, longitude: lon, heightKm: height, decimalYear: year)
        let pairs: [(String, Double, Double)] = [
            ("X_nT", e.x, nT), ("Y_nT", e.y, nT), ("Z_nT", e.z, nT), ("H_nT", e.horizontalIntensity, nT),
            ("F_nT", e.totalIntensity, nT), ("I_deg", e.inclination, degrees), ("D_deg", e.declination, degrees),
            ("Xdot_nT_per_yr", e.xRate, rates), ("Ydot_nT_per_yr", e.yRate, rates), ("Zdot_nT_per_yr", e.zRate, rates),
            ("Hdot_nT_per_yr", e.horizontalIntensityRate, rates), ("Fdot_nT_per_yr", e.totalIntensityRate, rates),
            ("Idot_deg_per_yr", e.inclinationRate, degrees), ("Ddot_deg_per_yr", e.declinationRate, degrees),
        ]
        for (key, ours, tolerance) in pairs {
            guard let expected = row[key] else { continue }
            #expect(abs(ours - expected) <= tolerance, "row \(line) \(key): ours \(ours), NOAA \(expected)")
        }
        if let gv = row["GV_deg"] {
            #expect(abs((e.gridVariation ?? .nan) - gv) <= degrees, "row \(line) GV: ours \(e.gridVariation as Any), NOAA \(gv)")
        } else if row.keys.contains("D_deg"), lat > -55, lat < 55 {
            #expect(e.gridVariation == nil)
        }
    }

    @Test("NOAA's 12-point table to its printed precision (0.1 nT, 0.01 degree)",
          .enabled(if: NOAATables.folder != nil, "../shared/data/wmm is not beside the package"))
    func twelvePoints() throws {
        let rows = try NOAATables.rows("WMM2025_TestValues.csv")
        #expect(rows.count == 12)
        for (index, row) in rows.enumerated() { check(row, nT: 0.05 + 1e-9, degrees: 0.005 + 1e-9, rates: 0.05 + 1e-9, line: index + 2) }
    }

    @Test("NOAA's 100-point high-precision table (X/Y/Z/H/F to 1e-3 nT, rates to 1e-4, D and I as printed)",
          .enabled(if: NOAATables.folder != nil, "../shared/data/wmm is not beside the package"))
    func hundredPoints() throws {
        let rows = try NOAATables.rows("WMM2025_TestValues_HighPrecision.csv")
        #expect(rows.count == 100)
        for (index, row) in rows.enumerated() { check(row, nT: 1e-3, degrees: 0.005 + 1e-9, rates: 1e-4, line: index + 2) }
    }

    @Test("the embedded coefficient table equals the shipped WMM2025.COF, parsed")
    func embeddedMatchesFile() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Heading/WMM2025.COF")
        let parsed = try WorldMagneticModel(cof: try String(contentsOf: file, encoding: .utf8))
        #expect(parsed.epoch == 2025.0 && parsed.name == "WMM-2025" && parsed.maximumDegree == 12)
        #expect(parsed.rows == model.rows)
        #expect(parsed.rows.count == 90)
    }

    @Test("a malformed coefficient file is an error that names the line")
    func badFiles() {
        #expect(throws: WMMError.badHeader(line: 1)) { try WorldMagneticModel(cof: "") }
        #expect(throws: WMMError.badRow(line: 3, field: "g is not a number")) {
            try WorldMagneticModel(cof: "2025.0 WMM-2025 11/13/2024\n1 0 -29351.8 0.0 12.0 0.0\n1 1 x 4545.4 9.7 -21.5\n")
        }
        #expect(throws: WMMError.badDegree(line: 3, n: 2, m: 2)) {
            try WorldMagneticModel(cof: "2025.0 WMM-2025 11/13/2024\n1 0 1 0 0 0\n2 2 1 0 0 0\n")
        }
        #expect(throws: WMMError.incomplete(rows: 3, expected: 5)) {
            try WorldMagneticModel(cof: "2025.0 WMM\n1 0 1 0 0 0\n1 1 1 0 0 0\n2 0 1 0 0 0\n999999999999999999\n")
        }
    }

    @Test("poles give finite values, dates outside 2025-2030 are flagged")
    func polesAndValidity() {
        for latitude in [90.0, -90.0] {
            let e = model.evaluate(latitude: latitude, longitude: 0, heightKm: 0, decimalYear: 2026)
            #expect(e.totalIntensity.isFinite && e.declination.isFinite && e.inclination.isFinite)
            #expect(abs(e.inclination) > 70)
        }
        #expect(model.evaluate(latitude: 0, longitude: 0, heightKm: 0, decimalYear: 2031).outsideValidityPeriod)
        #expect(model.evaluate(latitude: 0, longitude: 0, heightKm: 0, decimalYear: 2024.5).outsideValidityPeriod)
        #expect(!model.evaluate(latitude: 0, longitude: 0, heightKm: 0, decimalYear: 2029.99).outsideValidityPeriod)
    }
}
