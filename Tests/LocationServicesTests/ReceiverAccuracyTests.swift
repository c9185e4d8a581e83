import HardwareInterfaces
import LocationServices
import NMEA
import Testing

/// Location accuracy from the receiver's own estimates when its binary solution gave them.
@Suite("Location accuracy from the receiver's estimates")
struct ReceiverAccuracyTests {
    static func fix() -> Fix {
        var fix = Fix()
        fix.mode = .threeD
        fix.latitude = 46.4046109
        fix.longitude = -117.0207312
        fix.hdop = 1.36
        fix.horizontalAccuracy = 6.8
        fix.verticalAccuracy = 9.0
        fix.accuracySource = .dop
        return fix
    }

    @Test("u-blox hAcc, vAcc, sAcc and headAcc become the location's accuracies, named by model")
    func ublox() throws {
        var fix = Self.fix()
        fix.receiverAccuracy = ReceiverAccuracy(model: .ubxAccuracyEstimate, horizontal: 13.223, vertical: 18.59,
                                                speed: 0.675, course: 48.7)
        let location = try #require(Location(fix, receivedAt: at(0)))
        #expect(location.horizontalAccuracy == 13.223 && location.verticalAccuracy == 18.59)
        #expect(location.speedAccuracy == 0.675 && location.courseAccuracy == 48.7)
        #expect(location.accuracyModel == .receiver(.ubxAccuracyEstimate))
        #expect("\(location.accuracyModel)" == "u-blox accuracy estimate")
        #expect(location.reduced().speedAccuracy == nil)
    }

    @Test("without receiver estimates the NMEA-derived accuracy stays and says so")
    func nmea() throws {
        let location = try #require(Location(Self.fix(), receivedAt: at(0)))
        #expect(location.horizontalAccuracy == 6.8 && location.accuracyModel == .dopTimesRangeError)
        #expect(location.speedAccuracy == nil)
        var bare = Self.fix()
        bare.horizontalAccuracy = nil
        bare.accuracySource = .none
        #expect(Location(bare, receivedAt: at(0))?.accuracyModel == .unknown)
        #expect(Location(bare, receivedAt: at(0))?.horizontalAccuracy == Location.unknownAccuracy)
    }

    @Test("CASIC variances give their square roots (1 sigma)")
    func casicThroughStream() throws {
        var fix = Self.fix()
        fix.receiverAccuracy = ReceiverAccuracy(model: .casicVariance, horizontal: 1.6451.squareRoot(), vertical: 3.2231.squareRoot())
        let location = try #require(Location(fix, receivedAt: at(0)))
        #expect(abs(location.horizontalAccuracy - 1.2826) < 1e-4 && location.accuracyModel == .receiver(.casicVariance))
    }
}
