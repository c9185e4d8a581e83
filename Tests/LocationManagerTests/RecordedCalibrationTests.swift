import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import Heading
import LocationAPI
import SimulatedHardware
import Testing

/// A recording carries what a replay needs beyond the samples: the magnetometer calibration the
/// unit applied (in the RECORDING line) and the recorded board's layout (OUT-replay.toml).
@Suite("Recordings carry their calibration and their replay board")
struct RecordedCalibrationTests {
    /// A calibration far from the identity: a hard-iron offset and a stretched, skewed soft iron.
    static let calibration = MagnetometerCalibration(
        offset: Vector3(6.25, -3.5, 2.0 / 3.0),
        softIron: Matrix3([1.08, 0.031, -0.012, 0.031, 0.94, 0.007, -0.012, 0.007, 1.0 / 1.1])!,
        fieldStrength: 48.7,
        quality: CalibrationQuality(residualRMS: 0.41, relativeResidual: 0.0084, coverage: 0.83, shapeRatio: 1.15,
                                    scaleRatio: 0.97, sampleCount: 412, method: .ellipsoid))

    @Test("the unit's calibration is in the header and the written board replays to the live headings, bit for bit; without it they differ")
    func calibrationAndBoardTravelWithTheRecording() throws {
        let folder = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = folder + "/unit.nmea"
        let (liveSeen, recorder, _, sim) = try SensorReplayTests.recordLive(to: log, seconds: 20, calibration: Self.calibration)
        #expect(liveSeen.headings.count > 500)

        let session = try RecordedSession.load(log: log, events: log + ".events.jsonl")
        #expect(session.version == 3)
        #expect(session.calibration == Self.calibration, "every digit of the calibration reads back")

        // The board written beside the recording loads by its path and names the sim board's layout.
        let boardPath = recorder.boardPath
        #expect(boardPath == folder + "/unit-nmea-replay.toml")
        let board = try BoardResolver.load(boardPath)
        #expect(board.name == "unit-nmea-replay" && board.simulated && board.replay?.log == log)
        #expect(board.sensors == sim.sensors && board.i2cBus == sim.i2cBus && board.bluetooth == sim.bluetooth)

        let engine = LocationEngine(board: board, platform: try ReplayEnginePlatform(board: board, clock: ManualClock()))
        #expect(engine.calibration == Self.calibration, "the replay starts with the recorded calibration")
        let replayed = try SensorReplayTests.watch(engine, board: board, seconds: 20)
        engine.shutdown()
        #expect(replayed.headings.count == liveSeen.headings.count)
        #expect(replayed.headings == liveSeen.headings, "the headings differ")
        if let first = zip(replayed.headings, liveSeen.headings).first(where: { $0 != $1 }) {
            Issue.record("first different heading: replay \(first.0.magneticHeading)° at \(first.0.takenAt), live \(first.1.magneticHeading)° at \(first.1.takenAt)")
        }

        // The calibration matters: the same replay with the identity gives other headings.
        let uncalibrated = LocationEngine(board: board, platform: try ReplayEnginePlatform(board: board, clock: ManualClock()))
        uncalibrated.calibration = .identity
        let other = try SensorReplayTests.watch(uncalibrated, board: board, seconds: 20)
        uncalibrated.shutdown()
        let differences = zip(other.headings, liveSeen.headings).map { abs(angleDifference($0.magneticHeading, $1.magneticHeading)) }
        #expect((differences.max() ?? 0) > 2, "largest difference \(differences.max() ?? 0)°")
    }

    @Test("a recording without a calibration in force has none in its header and replays with none")
    func noCalibration() throws {
        let header = RecordingEvents.header(board: "sim")
        #expect(header == "{\"class\":\"RECORDING\",\"version\":3,\"board\":\"sim\"}\n")
        let raw = Array("$GPGGA,1*00\r\n".utf8)
        let session = try RecordedSession.parse(raw: raw, events: header + "{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":13}",
                                                eventsFile: "s.events.jsonl")
        #expect(session.calibration == nil)
    }

    @Test("a header whose calibration is malformed is refused with the file, line and key")
    func malformedCalibration() throws {
        let raw = Array("$GPGGA,1*00\r\n".utf8)
        let chunk = "\n{\"class\":\"CHUNK\",\"t\":0.5,\"offset\":0,\"length\":13}"
        let good = RecordingEvents.header(board: "sim", calibration: Self.calibration).dropLast()
        func with(_ from: String, _ to: String) -> String { good.replacingOccurrences(of: from, with: to) + chunk }
        let cases: [(String, String)] = [
            (with("\"offset_uT\":[6.25,", "\"offset_uT\":["), "s.events.jsonl:1: RECORDING: key 'calibration.offset_uT' must be a list of three numbers"),
            (with("\"offset_uT\":[6.25", "\"offset_uT\":[\"x\""), "s.events.jsonl:1: RECORDING: key 'calibration.offset_uT' must be a list of three numbers"),
            (with("\"matrix\":[1.08,", "\"matrix\":["), "s.events.jsonl:1: RECORDING: key 'calibration.matrix' must be a list of nine numbers"),
            (with("\"method\":\"ellipsoid\"", "\"method\":\"cubic\""), "s.events.jsonl:1: RECORDING: key 'calibration.method' must be none, sphere or ellipsoid, found cubic"),
            (with("\"coverage\":0.83", "\"coverage\":1.5"), "s.events.jsonl:1: RECORDING: key 'calibration.coverage' must be from 0 to 1"),
            (with("\"field_uT\":48.7", "\"field_uT\":-1"), "s.events.jsonl:1: RECORDING: key 'calibration.field_uT' must be a positive number"),
            (with("\"samples\":412", "\"samples\":4.5"), "s.events.jsonl:1: RECORDING: key 'calibration.samples' must be a whole number"),
            (good.replacingOccurrences(of: ",\"calibration\":{", with: ",\"calibration\":7,\"x\":{") + chunk,
             "s.events.jsonl:1: RECORDING: key 'calibration' must be an object"),
        ]
        expectRefused(raw: raw, cases)
        // A singular matrix cannot be a calibration.
        let singular = with("\"matrix\":[1.08,0.031,-0.012", "\"matrix\":[0,0,0").replacingOccurrences(of: "0.031,0.94,0.007", with: "0,0,0")
        #expect(throws: RecordedSession.LoadError.self) { try RecordedSession.parse(raw: raw, events: singular, eventsFile: "s.events.jsonl") }
    }

    /// The signed difference of two headings, degrees in (-180, 180].
    func angleDifference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 }
        if d <= -180 { d += 360 }
        return d
    }
}
