import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import Foundation
import Heading
import Testing

@Suite("Heading and calibration files")
struct HeadingFilesTests {
    @Test("heading CSV: one row per sample, true heading only with a declination, refusals named by line")
    func headingCSV() throws {
        let text = """
        acc_x_g,acc_y_g,acc_z_g,mag_x_uT,mag_y_uT,mag_z_uT,declination_deg
        0,0,-1,20,0,40,10
        0,0,-1,0,-20,40,-5
        -1,0,0,20,0,40,0
        """
        let result = try HeadingCSV.process(text, file: "s.csv")
        #expect(result.csv == "magnetic_heading_deg,true_heading_deg,pitch_deg,roll_deg\n0.000,10.000,0.000,0.000\n90.000,85.000,0.000,0.000\n,,-90.000,-180.000\n")
        #expect(result.warnings == ["s.csv: line 4: no heading: pitch -90° is within 10° of vertical: the heading of the x axis is undefined there"])
        let noDeclination = try HeadingCSV.process("acc_x_g,acc_y_g,acc_z_g,mag_x_uT,mag_y_uT,mag_z_uT\n0,0,-1,-20,0,40\n", file: "n.csv")
        #expect(noDeclination.csv == "magnetic_heading_deg,true_heading_deg,pitch_deg,roll_deg\n180.000,,0.000,0.000\n")
    }

    @Test("headings print in [0, 360) after rounding: never 360.000")
    func headingText() {
        #expect(HeadingCSV.headingText(359.9996) == "0.000")
        #expect(HeadingCSV.headingText(-0.0001) == "0.000")
        #expect(HeadingCSV.headingText(359.9994) == "359.999")
        #expect(HeadingCSV.headingText(720.5) == "0.500")
    }

    @Test("--year: recordings older than the model are taken with a warning, absurd years refused")
    func modelYears() {
        #expect(HeadingCSV.modelYearWarning(2027.5) == nil)
        #expect(HeadingCSV.modelYearWarning(2016.5)?.hasPrefix("--year 2016.5 is outside WMM2025's validity") == true)
        #expect(HeadingCSV.plausibleYears.contains(2016.5))
        #expect(!HeadingCSV.plausibleYears.contains(1066))
    }

    @Test("bad CSV input names file, line and column", arguments: [
        ("mx_uT,my_uT\n1,2\n", "c.csv: line 1: the header has no column 'mz_uT' (header: 'mx_uT,my_uT')"),
        ("mx_uT,my_uT,mz_uT,extra\n", "c.csv: line 1: unknown or repeated column 'extra'"),
        ("mx_uT,my_uT,mz_uT\n1,2,3\n1,x,3\n", "c.csv: line 3, column my_uT: 'x' is not a finite number"),
        ("mx_uT,my_uT,mz_uT\n1,2\n", "c.csv: line 2: 2 cells, expected 3"),
        ("mx_uT,my_uT,mz_uT\n1,nan,3\n", "c.csv: line 2, column my_uT: 'nan' is not a finite number"),
        ("", "c.csv: the file is empty"),
    ])
    func badCSV(text: String, message: String) {
        do {
            _ = try CalibrationCSV.samples(text, file: "c.csv")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    func calibration(coverageScale: Double, seed: UInt64) throws -> MagnetometerCalibration {
        var points: [Vector3] = []
        var state = seed
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        for _ in 0..<200 {
            let z = (next() * 2 - 1) * coverageScale
            let t = next() * 2 * .pi
            let r = (1 - z * z).squareRoot()
            points.append(Vector3(48 * r * cos(t) + 5, 48 * r * sin(t) - 3, 48 * z + 10))
        }
        return try CalibrationFitter.fit(points, expectedField: 48)
    }

    @Test("the store writes atomically, refuses a worse calibration without force, and reads back what it wrote")
    func store() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fieldloc-cal-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = CalibrationStore(directory: dir + "/nested")
        let good = StoredCalibration(try calibration(coverageScale: 1, seed: 1), board: "sim", sensor: "lis3mdl")
        let poor = StoredCalibration(try calibration(coverageScale: 0.2, seed: 2), board: "sim", sensor: "lis3mdl")
        #expect(good.quality == .good)
        #expect(poor.quality == .poor)
        let path = try store.save(good, board: "sim", sensor: "lis3mdl")
        #expect(try store.load(board: "sim", sensor: "lis3mdl") == good)
        #expect(throws: CalibrationFileError.self) { try store.save(poor, board: "sim", sensor: "lis3mdl") }
        #expect(try store.load(board: "sim", sensor: "lis3mdl") == good)
        try store.save(poor, board: "sim", sensor: "lis3mdl", force: true)
        #expect(try store.load(board: "sim", sensor: "lis3mdl") == poor)
        // No temporary files are left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/nested")
        #expect(names == [(path as NSString).lastPathComponent])
    }

    @Test("a damaged calibration file is an error naming the file and key", arguments: [
        ("{", "not valid JSON"),
        ("[1]", "the top level is not an object"),
        ("{\"surprise\": 1}", "unknown key 'surprise'"),
        ("{\"version\": 1}", "is missing"),
    ])
    func damaged(text: String, fragment: String) {
        do {
            _ = try CalibrationStore.decode(Data(text.utf8), file: "x.json")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.hasPrefix("x.json: "))
            #expect(error.description.contains(fragment), "\(error.description)")
        }
    }

    @Test("a singular matrix in a stored file is refused by key")
    func singular() throws {
        var stored = StoredCalibration(try calibration(coverageScale: 1, seed: 3))
        stored.matrix = [1, 0, 0, 0, 0, 0, 0, 0, 1]
        do {
            _ = try CalibrationStore.decode(Data(stored.json().utf8), file: "y.json")
            Issue.record("accepted a singular matrix")
        } catch {
            #expect(error.description == "y.json: key 'matrix': is singular")
        }
    }

    @Test("a stored file is checked as a recording's calibration is: shape and scale ratios, sample count",
          arguments: [("shape_ratio", 0.0), ("scale_ratio", -1.0), ("samples", -3.0)])
    func sharedChecks(key: String, value: Double) throws {
        var stored = StoredCalibration(try calibration(coverageScale: 1, seed: 3))
        switch key {
        case "shape_ratio": stored.shape_ratio = value
        case "scale_ratio": stored.scale_ratio = value
        default: stored.samples = Int(value)
        }
        do {
            _ = try CalibrationStore.decode(Data(stored.json().utf8), file: "z.json")
            Issue.record("accepted \(key) = \(value)")
        } catch {
            #expect(error.description.hasPrefix("z.json: key '\(key)': "), "\(error.description)")
        }
    }

    @Test("a write into a folder that cannot be created fails clearly and leaves nothing")
    func unwritable() {
        do {
            try AtomicFile.write(Data("x".utf8), to: "/proc/fieldloc-test/x.json")
            Issue.record("wrote into /proc")
        } catch {
            #expect(error.description.contains("/proc/fieldloc-test"))
        }
    }
}
