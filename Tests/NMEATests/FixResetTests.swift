@testable import NMEA
import Testing

/// The assembler's reset of its fix at a change of time: everything but the satellite table.
@Suite("Fix reset")
struct FixResetTests {
    @Test("a fix holds only plain values, so the reset copies bytes")
    func plain() {
        #expect(_isPOD(Fix.self))
        #expect(MemoryLayout<Fix>.offset(of: \.satellites) != nil)
    }

    @Test("after a reset every property but the satellites is as in a new fix, and the satellites are as they were")
    func resetKeepsTheTable() throws {
        var fix = Fix()
        fix.timeOfDay = TimeOfDay(hour: 12, minute: 34, second: 56)
        fix.weekRolloverCorrected = true
        fix.latitude = 48.1
        fix.longitude = 11.5
        fix.altitudeMSL = 520
        fix.geoidSeparation = 47
        fix.geoidSeparationFromModel = true
        fix.altitudeHAE = 567
        fix.speed = 3
        fix.speedIsDerived = true
        fix.course = 90
        fix.magneticVariation = 2
        fix.mode = .threeD
        fix.quality = .differential
        fix.satellitesUsed = 9
        fix.pdop = 1.5
        fix.hdop = 0.9
        fix.vdop = 1.2
        fix.horizontalAccuracy = 4
        fix.verticalAccuracy = 6
        fix.accuracySource = .dop
        fix.leapSeconds = 18
        fix.leapSecondChange = 1
        fix.velocityNorth = 1
        fix.velocityEast = 2
        fix.velocityDown = 3
        fix.binaryProtocol = .ubx
        fix.provenance = .replay
        for prn in 1...20 { fix.satellites.append(SatelliteInfo(constellation: .gps, prn: UInt16(prn))) }
        let before = fix.satellites.array.map(\.prn)
        var empty = Fix()
        withUnsafeMutablePointer(to: &empty) { fix.reset(from: $0) }

        #expect(fix.satellites.count == 20)
        #expect(fix.satellites.array.map(\.prn) == before)
        // Every byte outside the table is a new fix's.
        let table = try #require(MemoryLayout<Fix>.offset(of: \.satellites))
        let tableEnd = table + MemoryLayout<SatelliteList>.size
        let fresh = Fix()
        let differing = withUnsafeBytes(of: fix) { got in
            withUnsafeBytes(of: fresh) { want in
                (0..<MemoryLayout<Fix>.size).filter { ($0 < table || $0 >= tableEnd) && got[$0] != want[$0] }.count
            }
        }
        #expect(differing == 0)
        #expect(fix.timeOfDay == nil && fix.latitude == nil && fix.mode == .unknown && fix.quality == .invalid)
        #expect(fix.provenance == Fix().provenance && fix.binaryProtocol == nil && fix.velocityDown == nil)
    }
}
