import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
import FieldLocation
import Foundation
import GPSDProtocol
import LocationServices
import PowerPolicy
import Testing

/// Every kind of bad input tried, in one table: each must give a clear error that names where
/// (file, line, key, argument or byte offset) and what is wrong, and must not trap.
/// RELIABILITY.md quotes this table.
struct BadInput: Sendable, CustomTestStringConvertible {
    let kind: String
    let name: String
    /// Runs the input; returns the error text, or nil when it was (wrongly) accepted.
    let attempt: @Sendable () -> String?
    /// Fragments the error must contain.
    let mustMention: [String]
    var testDescription: String { "\(kind): \(name)" }
}

/// The sim board's file, named `bad`, with one piece replaced.
func simBoard(_ original: String, _ replacement: String) -> String {
    (BoardCatalog.text(ofBuiltin: "sim") ?? "").replacingOccurrences(of: "name = \"sim\"", with: "name = \"bad\"")
        .replacingOccurrences(of: original, with: replacement)
}

/// The 1-based line of the sim board's file where `text` is.
func simLine(_ text: String) -> Int {
    let lines = (BoardCatalog.text(ofBuiltin: "sim") ?? "").split(separator: "\n", omittingEmptySubsequences: false)
    return (lines.firstIndex { $0.contains(text) } ?? -1) + 1
}

func boardError(_ text: String) -> String? {
    do { _ = try BoardLoader.load(text: text, file: "bad.toml"); return nil } catch { return error.description }
}

func policyError(_ text: String) -> String? {
    do { _ = try AccessPolicy.parse(text, file: "access.policy"); return nil } catch { return error.description }
}

func calibrationError(_ text: String) -> String? {
    do { _ = try CalibrationStore.decode(Data(text.utf8), file: "sim.mag.calibration.json"); return nil } catch { return error.description }
}

func regionsFileError(_ text: String) -> String? {
    let path = NSTemporaryDirectory() + "fieldloc-bad-regions-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: path) }
    guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else { return "could not write the test file" }
    do { _ = try RegionStore.load(path); return nil } catch { return error.description.replacingOccurrences(of: path, with: "regions.json") }
}

func gpsdError(_ bytes: [UInt8]) -> String? {
    GPSDCommand.parse(bytes).error?.message
}

let validCalibration = #"{"version":1,"offset_uT":[1,2,3],"matrix":[1,0,0,0,1,0,0,0,1],"field_uT":48,"residual_uT":0.3,"residual_relative":0.006,"coverage":0.8,"shape_ratio":0.9,"samples":400,"method":"ellipsoid","quality":"good","score":90,"reasons":[]}"#

let badInputs: [BadInput] = [
    // Board files.
    BadInput(kind: "board file", name: "unterminated string", attempt: { boardError("name = \"sim\n") }, mustMention: ["bad.toml:1"]),
    BadInput(kind: "board file", name: "unknown key with a suggestion", attempt: { boardError(simBoard("baud = 9600", "buad = 9600")) },
             mustMention: ["bad.toml:\(simLine("baud = 9600"))", "buad", "baud"]),
    BadInput(kind: "board file", name: "sensor address out of range", attempt: { boardError(simBoard("address = 0x1e", "address = 0x99")) },
             mustMention: ["bad.toml:\(simLine("address = 0x1e"))", "address"]),
    BadInput(kind: "board file", name: "mount matrix not orthonormal", attempt: { boardError(simBoard("               [0, 0, 1]]\n\n[setup]", "               [0, 1, 0]]\n\n[setup]")) },
             mustMention: ["bad.toml:", "orientation"]),
    BadInput(kind: "board file", name: "baud rate not a standard rate", attempt: { boardError(simBoard("baud = 9600", "baud = 12345")) },
             mustMention: ["bad.toml:\(simLine("baud = 9600"))", "12345"]),
    // Access policy files.
    BadInput(kind: "policy file", name: "unknown status word", attempt: { policyError("default = sometimes\n") }, mustMention: ["access.policy:1", "default", "sometimes"]),
    BadInput(kind: "policy file", name: "line without =", attempt: { policyError("# ok\nuser alice always\n") }, mustMention: ["access.policy:2", "key = value"]),
    BadInput(kind: "policy file", name: "unknown key", attempt: { policyError("accuracy = full\nsudo = yes\n") }, mustMention: ["access.policy:2", "sudo"]),
    BadInput(kind: "policy file", name: "purpose without a reason", attempt: { policyError("purpose nav =\n") }, mustMention: ["access.policy:1", "nav"]),
    // Calibration files.
    BadInput(kind: "calibration file", name: "not JSON", attempt: { calibrationError("{offset: [1,2,3]") }, mustMention: ["sim.mag.calibration.json", "JSON"]),
    BadInput(kind: "calibration file", name: "top level is an array", attempt: { calibrationError("[1,2,3]") }, mustMention: ["sim.mag.calibration.json", "object"]),
    BadInput(kind: "calibration file", name: "unknown key", attempt: { calibrationError(String(validCalibration.dropLast()) + #","offsets":[0]}"#) }, mustMention: ["offsets"]),
    BadInput(kind: "calibration file", name: "missing key", attempt: { calibrationError(validCalibration.replacingOccurrences(of: #""field_uT":48,"#, with: "")) }, mustMention: ["field_uT"]),
    BadInput(kind: "calibration file", name: "wrong type", attempt: { calibrationError(validCalibration.replacingOccurrences(of: #""samples":400"#, with: #""samples":"many""#)) }, mustMention: ["samples"]),
    BadInput(kind: "calibration file", name: "matrix of 8 numbers", attempt: { calibrationError(validCalibration.replacingOccurrences(of: "[1,0,0,0,1,0,0,0,1]", with: "[1,0,0,0,1,0,0,0]")) }, mustMention: ["matrix"]),
    // Regions files.
    BadInput(kind: "regions file", name: "truncated JSON", attempt: { regionsFileError(#"{"version":1,"regions":["#) }, mustMention: ["regions.json", "not a regions file"]),
    BadInput(kind: "regions file", name: "negative radius", attempt: {
        regionsFileError(#"{"version":1,"regions":[{"region":{"identifier":"a","latitude":1,"longitude":2,"radius":-5,"notifyOnEntry":true,"notifyOnExit":true},"state":"unknown","dwellReported":false}]}"#)
    }, mustMention: ["regions.json", "radius -5"]),
    BadInput(kind: "regions file", name: "polygon with crossing edges", attempt: {
        regionsFileError("{\"version\":1,\"regions\":[\n{\"region\":{\"identifier\":\"bow\",\"latitude\":0,\"longitude\":0,\"radius\":0,\"notifyOnEntry\":true,\"notifyOnExit\":true,\n\"polygon\":{\"vertices\":[[47,8],[47.001,8.001],[47.001,8],[47,8.001]]}},\"state\":\"unknown\",\"dwellReported\":false}]}")
    }, mustMention: ["regions.json", "line 2", "regions.0.region", "crosses"]),
    BadInput(kind: "regions file", name: "polygon vertex of one number", attempt: {
        regionsFileError(#"{"version":1,"regions":[{"region":{"identifier":"p","latitude":0,"longitude":0,"radius":0,"notifyOnEntry":true,"notifyOnExit":true,"polygon":{"vertices":[[47,8],[47.001],[47.001,8]]}},"state":"unknown","dwellReported":false}]}"#)
    }, mustMention: ["regions.json", "polygon.vertices"]),
    BadInput(kind: "command-line argument", name: "--expires tomorrow", attempt: {
        do { _ = try RegionExpiryText.parse("tomorrow", now: 0); return nil } catch { return "\(error)" }
    }, mustMention: ["--expires", "tomorrow"]),
    BadInput(kind: "command-line argument", name: "--polygon vertex without longitude", attempt: {
        do { _ = try RegionPolygon(parsing: "47,8;47.001;47.001,8.001"); return nil } catch { return "\(error)" }
    }, mustMention: ["byte 5", "47.001"]),
    BadInput(kind: "regions file", name: "future version", attempt: { regionsFileError(#"{"version":2,"regions":[]}"#) }, mustMention: ["regions.json", "version 2"]),
    // API arguments.
    BadInput(kind: "API argument", name: "negative distance filter", attempt: { argumentError(LocationRequest(distanceFilter: -1)) }, mustMention: ["distanceFilter -1"]),
    BadInput(kind: "API argument", name: "NaN distance filter", attempt: { argumentError(LocationRequest(distanceFilter: .nan)) }, mustMention: ["distanceFilter nan"]),
    BadInput(kind: "API argument", name: "zero maximum age", attempt: { argumentError(LocationRequest(maximumAge: 0)) }, mustMention: ["maximumAge 0"]),
    BadInput(kind: "API argument", name: "zero region radius", attempt: { CircularRegion(identifier: "r", latitude: 1, longitude: 2, radius: 0).validate() }, mustMention: ["region r", "radius 0"]),
    BadInput(kind: "API argument", name: "negative region radius", attempt: { CircularRegion(identifier: "r", latitude: 1, longitude: 2, radius: -10).validate() }, mustMention: ["radius -10"]),
    BadInput(kind: "API argument", name: "NaN latitude", attempt: { CircularRegion(identifier: "r", latitude: .nan, longitude: 2, radius: 10).validate() }, mustMention: ["latitude nan"]),
    BadInput(kind: "API argument", name: "longitude 200", attempt: { CircularRegion(identifier: "r", latitude: 1, longitude: 200, radius: 10).validate() }, mustMention: ["longitude 200"]),
    BadInput(kind: "API argument", name: "radius beyond 100 km", attempt: { CircularRegion(identifier: "r", latitude: 1, longitude: 2, radius: 2e5).validate() }, mustMention: ["maximum"]),
    BadInput(kind: "API argument", name: "unknown accuracy name", attempt: { DesiredAccuracy(rawValue: "ultra") == nil ? "unknown accuracy 'ultra' (known: \(DesiredAccuracy.allCases.map(\.rawValue).joined(separator: ", ")))" : nil }, mustMention: ["ultra", "hundredMeters"]),
    // Socket lines (gpsd protocol).
    BadInput(kind: "socket line", name: "oversized line", attempt: { gpsdError(Array(("?WATCH={\"device\":\"" + String(repeating: "x", count: 2000) + "\"};").utf8)) }, mustMention: ["1024"]),
    BadInput(kind: "socket line", name: "malformed WATCH JSON", attempt: { gpsdError(Array("?WATCH={\"enable\":tru;".utf8)) }, mustMention: ["WATCH", "byte"]),
    BadInput(kind: "socket line", name: "unknown command", attempt: { gpsdError(Array("?FOO;".utf8)) }, mustMention: ["Unrecognized request", "FOO"]),
    BadInput(kind: "socket line", name: "binary after ?", attempt: { gpsdError([0x3F, 0xB5, 0x62, 0x00, 0xFF]) }, mustMention: ["Unrecognized request"]),
]

func argumentError(_ request: LocationRequest) -> String? {
    do { try request.validate(); return nil } catch { return error.description }
}

@Suite struct BadInputTableTests {
    @Test(arguments: badInputs)
    func refusedWithAClearError(_ input: BadInput) {
        guard let message = input.attempt() else {
            Issue.record("\(input.kind) '\(input.name)' was accepted")
            return
        }
        for fragment in input.mustMention {
            #expect(message.contains(fragment), "\(input.kind) '\(input.name)': \(message)")
        }
    }

    @Test func junkLinesAreIgnoredQuietly() {
        #expect(GPSDCommand.parse(Array("hello there\r\n".utf8)) == .ignored)
        #expect(GPSDCommand.parse([0x00, 0xFF, 0x10]) == .ignored)
    }
}
