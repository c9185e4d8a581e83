import NMEA
import Testing

/// `ParsedSentence` keeps each decoded sentence as the bytes of its payload (SentencePayload.swift)
/// and builds the `Sentence` from them when asked. Each type here has every field filled, its last
/// ones in particular (the end of the largest payloads, GBS and GNS), and is read back whole.
@Suite("Parsed sentences read back from their stored payload")
struct SentencePayloadTests {
    @Test("GBS with its NMEA 4.10 system and signal IDs (the largest payload)")
    func gbs() throws {
        let parsed = try parse(withChecksum("$GNGBS,015509.00,-0.031,-0.186,0.219,19,0.000,-0.354,6.972,4,1"))
        guard case .gbs(let s) = parsed.sentence else { Issue.record("not GBS"); return }
        #expect(s.time == TimeOfDay(hour: 1, minute: 55, second: 9))
        #expect(s.latitudeError == FixedDecimal(significand: -31, scale: 3))
        #expect(s.failedSatellite == 19)
        #expect(s.biasStandardDeviation == FixedDecimal(significand: 6972, scale: 3))
        #expect(s.systemID == 4)
        #expect(s.signalID == 1)
    }

    @Test("GNS with its navigational status (NMEA 4.10)")
    func gns() throws {
        let parsed = try parse(withChecksum("$GNGNS,112257.00,3844.24011,N,00908.43828,W,AANN,03,10.5,,,,,V"))
        guard case .gns(let s) = parsed.sentence else { Issue.record("not GNS"); return }
        #expect(s.modeCount == 4)
        #expect(s.satellitesUsed == 3)
        #expect(s.hdop == FixedDecimal(significand: 105, scale: 1))
        #expect(s.navigationalStatus == .notValid)
        #expect(s.latitude?.degreesMinutes == FixedDecimal(significand: 384_424_011, scale: 5))
        #expect(s.longitude?.isNegative == true)
    }

    @Test("GGA, RMC, GST, GSV, GSA, TXT and a pass-through read back whole")
    func others() throws {
        guard case .gga(let gga) = try parse(withChecksum("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,2.5,0120")).sentence
        else { Issue.record("not GGA"); return }
        #expect(gga.differentialAge == FixedDecimal(significand: 25, scale: 1))
        #expect(gga.differentialStation == 120)
        guard case .rmc(let rmc) = try parse(withChecksum("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,D")).sentence
        else { Issue.record("not RMC"); return }
        #expect(rmc.magneticVariation == FixedDecimal(significand: -31, scale: 1))
        #expect(rmc.mode == .differential)
        guard case .gst(let gst) = try parse(withChecksum("$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031")).sentence
        else { Issue.record("not GST"); return }
        #expect(gst.altitudeSigma == FixedDecimal(significand: 31, scale: 3))
        guard case .gsv(let gsv) = try parse(withChecksum("$GPGSV,3,3,11,22,42,067,42,24,14,311,43,27,05,244,00,32,08,111,31,1")).sentence
        else { Issue.record("not GSV"); return }
        #expect(gsv.satelliteCount == 4)
        #expect(gsv.satellites[3] == SatelliteView(prn: 32, elevation: 8, azimuth: 111, snr: 31))
        #expect(gsv.signalID == 1)
        guard case .gsa(let gsa) = try parse(withChecksum("$GNGSA,A,3,01,02,03,04,05,06,07,08,09,10,11,12,1.8,1.0,1.5,1")).sentence
        else { Issue.record("not GSA"); return }
        #expect(gsa.satelliteCount == 12)
        #expect(gsa.satellites[11] == 12)
        #expect(gsa.constellation == .gps)
        guard case .txt(let txt) = try parse(withChecksum("$GPTXT,01,01,02,ANTSTATUS=OK")).sentence
        else { Issue.record("not TXT"); return }
        #expect(txt.text.description == "ANTSTATUS=OK")
        let undecoded = try parse(withChecksum("$PUBX,00,081350.00,4717.113210,N"))
        guard case .proprietary(let p) = undecoded.sentence else { Issue.record("not proprietary"); return }
        #expect(p.fieldCount == 4)
        #expect(p.address == undecoded.address)
    }
}
