import GPSDWatch
import FieldLocationTime
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
import FieldLocation
@testable import FieldLocationDaemon
import GPSDProtocol
import HardwareInterfaces
import Heading
import Testing

/// The ATT report of a heading from the attitude filter (issue 18): gpsd's `gyro_x/y/z` in
/// degrees per second and the fused heading, pitch and roll.
@Suite("ATT with a gyroscope")
struct AttitudeATTTests {
    static func heading() -> HeadingUpdate {
        HeadingUpdate(magneticHeading: 101.25, trueHeading: 104.5, headingAccuracy: 1.5, field: (x: 20, y: 1, z: 42),
                      acceleration: (x: 0.1, y: 0, z: -1), pitch: 12.5, roll: -4.25, inclination: 63, quality: .good, flags: [],
                      takenAt: MonotonicInstant(nanoseconds: 0))
    }

    @Test("a filter heading's ATT carries gyro_x/y/z after acc_z and the filter's heading, pitch and roll")
    func gyroFields() {
        var h = Self.heading()
        let q = AttitudeQuaternion(roll: -4.25, pitch: 12.5, yaw: 101.25)
        h.attitude = AttitudeEstimate(quaternion: q, roll: -4.25, pitch: 12.5, yaw: 101.25,
                                      sources: [.gyroscope, .accelerometer], rotationRate: Vector3(0.5, -1.25, 30.125),
                                      gyroscopeBias: Vector3(0.01, 0, -0.02), isStill: false, recoveries: 0)
        let line = GPSDReport.att(GPSDHub.attitude(h, device: "/dev/serial0", time: nil))
        #expect(line.contains(#""heading":104.500"#) && line.contains(#""mheading":101.250"#), "\(line)")
        #expect(line.contains(#""pitch":12.50"#) && line.contains(#""roll":-4.25"#), "\(line)")
        #expect(line.contains(#""acc_z":-9.807,"gyro_x":0.500,"gyro_y":-1.250,"gyro_z":30.125}"#), "\(line)")
    }

    /// The simulated LSM6DSOX + LIS3MDL board with its gyroscope on, standing still (the
    /// simulated world's stationary attitude: yaw 30°, pitch 2°, roll -1°).
    static let gyroBoard = """
        name = "sim-gyro"
        title = "Simulated LSM6DSOX + LIS3MDL"
        simulated = true

        [receiver]
        baud = 9600
        family = "mtk"
        model = "MT3339 (simulated)"
        wake = "uart-byte"

        [i2c]
        bus = 1

        [[sensor]]
        chip = "lsm6dsox"
        address = 0x6a
        orientation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        gyro = true

        [[sensor]]
        chip = "lis3mdl"
        address = 0x1c
        orientation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]

        [sim]
        latitude = 47.3769
        longitude = 8.5417
        scenario = "stationary"
        """

    @Test("through the engine on a manual clock: the manager's heading carries the filter's attitude, and its ATT the gyro rates")
    func engineToATT() throws {
        let board = try BoardLoader.load(text: Self.gyroBoard, file: "sim-gyro board")
        let engine = try LocationEngine.simulated(board: board)
        defer { engine.shutdown() }
        let client = engine.register(name: "compass", persistentName: nil) { _ in }.id
        engine.update(client) { s in
            s.updatingLocation = true
            s.updatingHeading = true
            s.headingFilter = nil
        }
        engine.advance(by: .seconds(20))
        let heading = try #require(engine.lastHeading)
        let attitude = try #require(heading.attitude, "a board with gyro = true gives the filter's headings")
        #expect(attitude.sources.contains(.gyroscope), "\(attitude.sources.names)")
        #expect(heading.trueHeading != nil, "the reference field after the first fix reaches the filter")
        #expect(abs(attitude.pitch - 2) < 1.5 && abs(attitude.roll + 1) < 1.5, "pitch \(attitude.pitch), roll \(attitude.roll)")
        #expect(heading.pitch == attitude.pitch && heading.roll == attitude.roll)
        let line = GPSDReport.att(GPSDHub.attitude(heading, device: "/dev/i2c-1", time: nil))
        for key in ["\"gyro_x\":", "\"gyro_y\":", "\"gyro_z\":", "\"heading\":", "\"mheading\":"] {
            #expect(line.contains(key), "\(key) in \(line)")
        }
    }

    @Test("a tilt-compensation heading's ATT has no gyro members (as before)")
    func noGyroFields() {
        let line = GPSDReport.att(GPSDHub.attitude(Self.heading(), device: "/dev/serial0", time: nil))
        #expect(!line.contains("gyro"), "\(line)")
        #expect(line.hasSuffix(#""acc_z":-9.807}"#), "\(line)")
    }
}
