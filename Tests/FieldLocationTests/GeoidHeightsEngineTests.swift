import EnginePlatforms
import BoardConfig
@testable import FieldLocation
import Foundation
import GPSDProtocol
import HardwareInterfaces
import NMEA
import SimulatedHardware
import Testing

/// The engine completes a fix's heights from the package geoid where the receiver gave one height
/// only, so the gpsd TPV carries `altMSL`, `altHAE` and `geoidSep` as gpsd's does.
@Suite("Engine: heights from the geoid")
struct GeoidHeightsEngineTests {
    func receiver() throws -> ReceiverSubsystem {
        let board = try BoardCatalog.load(builtin: "sim")
        let empty = try SimulatedPlatform(SimulatedPlatformDescription(), clock: ManualClock())
        return ReceiverSubsystem(board: board, platform: SimulatedEnginePlatform(platform: empty), initiallyAwake: true)
    }

    func sentence(_ body: String) -> [UInt8] { NMEAChecksum.sentence(body: Array(body.utf8)) + [0x0D, 0x0A] }

    @Test("a GGA with an empty separation field: the fix and its TPV get altHAE and geoidSep from EGM96")
    func ggaWithoutSeparation() throws {
        let receiver = try receiver()
        let bytes = sentence("GPGGA,120000,4722.6140,N,00832.5020,E,1,08,1.0,410.0,M,,M,,")
            + sentence("GPRMC,120000,A,4722.6140,N,00832.5020,E,0.0,0.0,010124,,,A")
            + sentence("GPGGA,120001,4722.6140,N,00832.5020,E,1,08,1.0,410.0,M,,M,,")
        let fixes = receiver.decode(bytes, at: ManualClock().now()).fixes
        let fix = try #require(fixes.first)
        let n = try #require(EGM96.separation(latitude: 47.3769, longitude: 8.5417))
        let separation = try #require(fix.geoidSeparation)
        let hae = try #require(fix.altitudeHAE)
        #expect(abs(separation - n) < 1e-6 && fix.geoidSeparationFromModel)
        #expect(fix.altitudeMSL == 410 && abs(hae - (410 + n)) < 1e-9)
        let tpv = GPSDReport.tpv(fix)
        #expect(tpv.contains("\"altMSL\":410") && tpv.contains("\"geoidSep\":47.") && tpv.contains("\"altHAE\":457."))
    }

    @Test("an ECEF-only u-blox solution (NAV-SOL): the fix gets altMSL from EGM96")
    func ecefOnly() throws {
        let receiver = try receiver()
        // NAV-SOL: 3D fix, GPS week 1750, ECEF of 57.7 N 11.97 E at 50 m above the ellipsoid.
        var payload = [UInt8](repeating: 0, count: 52)
        func put(_ offset: Int, _ value: Int64, _ size: Int) {
            for k in 0..<size { payload[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * Int64(k))) }
        }
        let latitude = 57.7 * Double.pi / 180, longitude = 11.97 * Double.pi / 180, height = 50.0
        let a = 6_378_137.0, e2 = 0.006_694_379_990_14
        let sinLat = sin(latitude), cosLat = cos(latitude)
        let nu = a / (1 - e2 * sinLat * sinLat).squareRoot()
        let x = (nu + height) * cosLat * cos(longitude)
        let y = (nu + height) * cosLat * sin(longitude)
        let z = (nu * (1 - e2) + height) * sinLat
        put(0, 345_600_000, 4); put(8, 1750, 2); put(10, 3, 1); put(11, 0x0D, 1)
        put(12, Int64((x * 100).rounded()), 4); put(16, Int64((y * 100).rounded()), 4); put(20, Int64((z * 100).rounded()), 4)
        put(44, 150, 2); put(47, 9, 1)
        var bytes: [UInt8] = []
        // An epoch is delivered when a third starts (EpochMerger), so four seconds give two fixes.
        for second in 0..<4 {
            put(0, 345_600_000 + Int64(second) * 1000, 4)
            bytes += UBXFraming.encode(class: 0x01, id: 0x06, payload: payload)
        }
        let fixes = receiver.decode(bytes, at: ManualClock().now()).fixes
        let fix = try #require(fixes.first)
        let hae = try #require(fix.altitudeHAE)
        #expect(abs(hae - 50) < 0.05)
        let latitudeDegrees = try #require(fix.latitude), longitudeDegrees = try #require(fix.longitude)
        #expect(abs(latitudeDegrees - 57.7) < 1e-6 && abs(longitudeDegrees - 11.97) < 1e-6)
        let n = try #require(EGM96.separation(latitude: latitudeDegrees, longitude: longitudeDegrees))
        let separation = try #require(fix.geoidSeparation)
        let msl = try #require(fix.altitudeMSL)
        #expect(fix.geoidSeparationFromModel && abs(separation - n) < 1e-3)
        #expect(abs(msl - (hae - n)) < 1e-9)
        #expect(GPSDReport.tpv(fix).contains("\"altMSL\":"))
    }
}
