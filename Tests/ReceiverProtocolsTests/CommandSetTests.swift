import ReceiverProtocols
import Testing

func bytes(_ hex: String) -> [UInt8] {
    hex.split(separator: " ").compactMap { UInt8($0, radix: 16) }
}

@Suite("UBX, PMTK and PCAS command sets against golden frames")
struct CommandSetTests {
    @Test("legacy UBX CFG messages")
    func legacy() {
        #expect(UBXMessage.rate(milliseconds: 1000).bytes == bytes("B5 62 06 08 06 00 E8 03 01 00 01 00 01 39"))
        #expect(UBXMessage.rate(milliseconds: 200).bytes == bytes("B5 62 06 08 06 00 C8 00 01 00 01 00 DE 6A"))
        #expect(UBXMessage.rate(milliseconds: 10000).bytes == bytes("B5 62 06 08 06 00 10 27 01 00 01 00 4D DD"))
        #expect(UBXMessage.nmeaOutput(.gga, rate: 1).bytes == bytes("B5 62 06 01 03 00 F0 00 01 FB 10"))
        #expect(UBXMessage.nmeaOutput(.gsv, rate: 0).bytes == bytes("B5 62 06 01 03 00 F0 03 00 FD 15"))
        #expect(UBXMessage.nmeaOutput(.zda, rate: 0).bytes == bytes("B5 62 06 01 03 00 F0 08 00 02 1F"))
        #expect(UBXMessage.uartPort(baudRate: 115200).bytes
                == bytes("B5 62 06 00 14 00 01 00 00 00 C0 08 00 00 00 C2 01 00 03 00 03 00 00 00 00 00 AC 5E"))
        #expect(UBXMessage.receiverMode(lowPowerMode: 0).bytes == bytes("B5 62 06 11 02 00 08 00 21 91"))
        #expect(UBXMessage.receiverMode(lowPowerMode: 1).bytes == bytes("B5 62 06 11 02 00 08 01 22 92"))
        #expect(UBXMessage.powerManagement(cyclic: true, updatePeriod: 1000, searchPeriod: 10000, onTime: 0).bytes
                == bytes("B5 62 06 3B 2C 00 01 00 00 00 00 11 03 00 E8 03 00 00 10 27 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 A4 D4"))
        #expect(UBXMessage.powerManagement(cyclic: false, updatePeriod: 60000, searchPeriod: 60000, onTime: 2).bytes
                == bytes("B5 62 06 3B 2C 00 01 00 00 00 00 11 00 00 60 EA 00 00 60 EA 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 15 A4"))
        #expect(UBXMessage.powerSetup(3).bytes == bytes("B5 62 06 86 08 00 00 03 00 00 00 00 00 00 97 6F"))
        #expect(UBXMessage.powerSetup(2, period: 60, onTime: 10).bytes == bytes("B5 62 06 86 08 00 00 02 3C 00 0A 00 00 00 DC F8"))
    }

    @Test("CFG-VALSET keys (M9/M10)")
    func valset() {
        #expect(UBXMessage.setValues([(.rateMeasurement, 1000), (.rateNavigation, 1)]).bytes
                == bytes("B5 62 06 8A 10 00 00 03 00 00 01 00 21 30 E8 03 02 00 21 30 01 00 34 80"))
        #expect(UBXMessage.setValues([(.rateMeasurement, 100)]).bytes == bytes("B5 62 06 8A 0A 00 00 03 00 00 01 00 21 30 64 00 53 CB"))
        #expect(UBXMessage.setValues([(.nmeaOutput(.gga), 1), (.nmeaOutput(.rmc), 1), (.nmeaOutput(.gsa), 0),
                                      (.nmeaOutput(.gsv), 0), (.nmeaOutput(.gll), 0), (.nmeaOutput(.vtg), 0)]).bytes
                == bytes("B5 62 06 8A 22 00 00 03 00 00 BB 00 91 20 01 AC 00 91 20 01 C0 00 91 20 00 C5 00 91 20 00 CA 00 91 20 00 B1 00 91 20 00 44 57"))
        #expect(UBXMessage.setValues([(.uart1BaudRate, 115200)]).bytes == bytes("B5 62 06 8A 0C 00 00 03 00 00 01 00 52 40 00 C2 01 00 F5 BB"))
        #expect(UBXMessage.setValues([(.pmOperateMode, 2), (.pmOnTime, 0), (.pmUpdateEphemeris, 1), (.pmLimitPeakCurrent, 1), (.sbasEnable, 0)]).bytes
                == bytes("B5 62 06 8A 1E 00 00 03 00 00 01 00 D0 20 02 05 00 D0 30 00 00 0A 00 D0 10 01 10 00 D0 10 01 20 00 31 10 00 E6 66"))
        #expect(UBXMessage.setValues([(.pmOperateMode, 1), (.pmPositionUpdatePeriod, 60), (.pmAcquisitionPeriod, 60), (.pmOnTime, 2),
                                      (.pmMaximumAcquisitionTime, 60), (.pmUpdateEphemeris, 1)]).bytes
                == bytes("B5 62 06 8A 29 00 00 03 00 00 01 00 D0 20 01 02 00 D0 40 3C 00 00 00 03 00 D0 40 3C 00 00 00 05 00 D0 30 02 00 07 00 D0 20 3C 0A 00 D0 10 01 70 A8"))
        #expect(UBXMessage.setValues([(.pmOperateMode, 0)]).bytes == bytes("B5 62 06 8A 09 00 00 03 00 00 01 00 D0 20 00 8D F6"))
        #expect(UBXMessage.getValues([.pmOperateMode]).bytes == bytes("B5 62 06 8B 08 00 00 00 00 00 01 00 D0 20 8A 55"))
        #expect(UBXMessage.setValues([(.dynamicModel, 3)]).bytes == bytes("B5 62 06 8A 09 00 00 03 00 00 21 00 11 20 03 F1 5C"))
    }

    @Test("sleep, restart and save")
    func sleepAndRestart() {
        #expect(UBXMessage.sleepRequestShort(milliseconds: 0).bytes == bytes("B5 62 02 41 08 00 00 00 00 00 02 00 00 00 4D 3B"))
        #expect(UBXMessage.sleepRequestShort(milliseconds: 60000).bytes == bytes("B5 62 02 41 08 00 60 EA 00 00 02 00 00 00 97 A1"))
        #expect(UBXMessage.sleepRequest(milliseconds: 0, wake: [.uartRX, .extint0]).bytes
                == bytes("B5 62 02 41 10 00 00 00 00 00 00 00 00 00 06 00 00 00 28 00 00 00 81 EB"))
        #expect(UBXMessage.sleepRequest(milliseconds: 60000, wake: .uartRX).bytes
                == bytes("B5 62 02 41 10 00 00 00 00 00 60 EA 00 00 06 00 00 00 08 00 00 00 AB F9"))
        #expect(UBXMessage.restart(.hot).bytes == bytes("B5 62 06 04 04 00 00 00 02 00 10 68"))
        #expect(UBXMessage.restart(.warm).bytes == bytes("B5 62 06 04 04 00 01 00 02 00 11 6C"))
        #expect(UBXMessage.restart(.cold).bytes == bytes("B5 62 06 04 04 00 FF FF 02 00 0E 61"))
        #expect(UBXMessage.gnss(running: false).bytes == bytes("B5 62 06 04 04 00 00 00 08 00 16 74"))
        #expect(UBXMessage.gnss(running: true).bytes == bytes("B5 62 06 04 04 00 00 00 09 00 17 76"))
        #expect(UBXMessage.saveConfiguration(devices: 0x17).bytes == bytes("B5 62 06 09 0D 00 00 00 00 00 FF FF 00 00 00 00 00 00 17 31 BF"))
        #expect(!UBXMessage.restart(.hot).expectsAcknowledgement)
        #expect(!UBXMessage.sleepRequestShort(milliseconds: 0).expectsAcknowledgement)
        #expect(UBXMessage.rate(milliseconds: 1000).expectsAcknowledgement)
    }

    @Test("PMTK and PCAS sentences")
    func nmeaStyle() {
        #expect(PMTK.rate(milliseconds: 1000).sentence == "$PMTK220,1000*1F")
        #expect(PMTK.rate(milliseconds: 100).sentence == "$PMTK220,100*2F")
        #expect(PMTK.outputs([.rmc: 1, .gga: 1]).sentence == "$PMTK314,0,1,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0*28")
        #expect(PMTK.outputs([.rmc: 1, .gga: 1, .gsa: 1, .gsv: 5]).sentence == "$PMTK314,0,1,0,1,1,5,0,0,0,0,0,0,0,0,0,0,0,0,0*2C")
        #expect(PMTK.standby.sentence == "$PMTK161,0*28")
        #expect(PMTK.normalMode.sentence == "$PMTK225,0*2B")
        #expect(PMTK.perpetualBackup.sentence == "$PMTK225,4*2F")
        #expect(PMTK.periodic(standby: false, run: 3000, sleep: 12000, secondRun: 18000, secondSleep: 72000).sentence
                == "$PMTK225,1,3000,12000,18000,72000*16")
        #expect(PMTK.periodic(standby: true, run: 3000, sleep: 57000).sentence == "$PMTK225,2,3000,57000,0,0*18")
        #expect(PMTK.restart(.hot).sentence == "$PMTK101*32")
        #expect(PMTK.restart(.cold).sentence == "$PMTK103*30")
        #expect(PMTK.baudRate(115200).sentence == "$PMTK251,115200*1F")
        #expect(PMTK.acknowledgement("$PMTK001,220,3*30")! == (220, 3))
        #expect(PMTK.acknowledgement("$GPGGA,1,2") == nil)
        #expect(PCAS.rate(milliseconds: 1000)?.sentence == "$PCAS02,1000*2E")
        #expect(PCAS.rate(milliseconds: 200)?.sentence == "$PCAS02,200*1D")
        #expect(PCAS.rate(milliseconds: 300) == nil)
        #expect(PCAS.outputs([.gga: 1, .rmc: 1]).sentence == "$PCAS03,1,0,0,0,1,0,0,0,0,0,,,0,0*02")
        #expect(PCAS.restart(.cold).sentence == "$PCAS10,2*1E")
        #expect(PCAS.standby(seconds: 60).sentence == "$PCAS12,60*28")
        #expect(PCAS.baudRate(115200)?.sentence == "$PCAS01,5*19")
        #expect(PCAS.baudRate(9600)?.sentence == "$PCAS01,1*1D")
        #expect(PCAS.baudRate(1200) == nil)
    }
}
