import GPSDProtocol
import NMEA
import Testing

/// TPV and SKY from fixes with the receiver's own estimates and a UBX sky, as gpsd prints them for
/// u-blox and CASIC receivers (ublox8-uniqid-monhw.log.chk: `"eph":13.223`-style unscaled estimates).
@Suite("gpsd reports from binary fixes")
struct BinaryReportTests {
    static func ubloxFix() -> Fix {
        var fix = transcriptFix()
        fix.quality = .gps
        fix.receiverAccuracy = ReceiverAccuracy(model: .ubxAccuracyEstimate, horizontal: 13.223, vertical: 18.59,
                                                position3D: 22.81, speed: 0.675, course: 48.73862, time: 21e-9)
        fix.horizontalAccuracy = 13.223
        fix.verticalAccuracy = 18.59
        fix.accuracySource = .receiver
        fix.leapSeconds = 18
        fix.velocityNorth = 0.01
        fix.velocityEast = -0.011
        fix.velocityDown = 0.003
        fix.binaryProtocol = .ubx
        return fix
    }

    @Test("TPV ships the receiver's estimates unscaled as eph, epv, eps, epd, ecefpAcc, with leapseconds and velN/E/D")
    func tpv() {
        let json = GPSDReport.tpv(Self.ubloxFix())
        #expect(json.contains("\"leapseconds\":18"))
        #expect(json.contains("\"epv\":18.590"))
        #expect(json.contains("\"eps\":0.68"))
        #expect(json.contains("\"epd\":48.7386"))
        #expect(json.contains("\"ecefpAcc\":22.8100"))
        #expect(json.contains("\"velN\":0.010,\"velE\":-0.011,\"velD\":0.003"))
        #expect(json.contains("\"eph\":13.223"))
        #expect(json.contains("\"sep\":22.813"), "hypot(13.223, 18.59)")
    }

    @Test("TPV carries the receiver's jamming indicator as gpsd's jam, only when the receiver reported one")
    func jam() {
        var fix = Self.ubloxFix()
        #expect(!GPSDReport.tpv(fix).contains("\"jam\""))
        var status = ReceiverStatus()
        status.jammingIndicator = 42
        fix.receiverStatus = status
        #expect(GPSDReport.tpv(fix).contains("\"jam\":42"))
    }

    @Test("without receiver estimates the 95 % conversion is unchanged")
    func tpvFromNMEA() {
        let json = GPSDReport.tpv(transcriptFix())
        #expect(json.contains("\"eph\":4.655") && !json.contains("epd") && !json.contains("ecefpAcc"))
    }

    @Test("SKY rows from UBX carry gnssid, svid and sigid; the PRN is gpsd's ubx2_to_prn")
    func sky() {
        var fix = Self.ubloxFix()
        fix.satellites.removeAll()
        var galileo = SatelliteInfo(constellation: .galileo, prn: UBXGNSS.prn(gnssID: 2, svID: 5), elevation: 40,
                                    azimuth: 120, snr: 38, used: true, signalID: 6)
        galileo.gnssID = 2
        galileo.svID = 5
        fix.satellites.append(galileo)
        let json = GPSDReport.sky(fix)
        #expect(json.contains("{\"PRN\":305,\"el\":40.0,\"az\":120.0,\"ss\":38.0,\"used\":true,\"gnssid\":2,\"svid\":5,\"sigid\":6}"))
    }

    @Test("DEVICES names the driver by the binary protocol, as gpsd")
    func driver() {
        #expect(GPSDDevice.driverName(for: .ubx) == "u-blox")
        #expect(GPSDDevice.driverName(for: .casic) == "CASIC")
        #expect(GPSDDevice.driverName(for: nil) == "NMEA0183")
    }
}
