import HardwareInterfaces
import NMEA
import PowerPolicy
import RealModule
import Synchronization

/// The PMTK and PCAS commands the emulated receiver answers.
extension ReceiverEmulator {
    func handleNMEA(_ s: inout State, _ body: String, at: MonotonicInstant) {
        let fields = body.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard let address = fields.first else { return }
        switch s.family {
        case .mediatek:
            guard address.hasPrefix("PMTK"), address.count == 7 else { return }
            let number = String(address.dropFirst(4))
            var flag = 3
            switch number {
            case "220":
                if fields.count == 2, let ms = Int(fields[1]), (100...10_000).contains(ms) { setInterval(&s, .milliseconds(ms), at: at) } else { flag = 2 }
            case "314":
                let order = ["GLL", "RMC", "VTG", "GGA", "GSA", "GSV", "GRS", "GST"]
                if fields.count >= 2, fields[1] == "-1" {
                    s.outputs = ["GGA", "RMC", "GSA", "GSV"]
                } else if fields.count >= 9 {
                    for (k, name) in order.enumerated() { set(&s, name, UInt64(fields[k + 1]) ?? 0) }
                } else { flag = 0 }
            case "161":
                s.pending.append((at, sentence("PMTK001,161,3")))
                s.asleep = true
                s.model.sleep(.standby)
                return
            case "225":
                s.powerSave = false
            case "101", "102", "103", "104":
                restart(&s, number == "101" ? .hot : (number == "102" ? .warm : .cold), at: at)
                s.pending.append((at.advanced(by: .milliseconds(200)), sentence("PMTK011,MTKGPS") + sentence("PMTK010,001")))
                return
            case "605":
                s.pending.append((at, sentence("PMTK705,AXN_2.31_3339_13101700,5632,PA6H,1.0")))
                return
            case "886":
                flag = setMediaTekMode(&s, fields)
            case "740", "741":
                flag = handleMediaTekAiding(&s, fields)
            case "414", "400":
                s.pending.append((at, mediaTekQueryReply(s, number)))
                return
            case "000", "251", "313", "301", "869", "353":
                break
            default:
                flag = 1
            }
            s.pending.append((at, sentence("PMTK001,\(number),\(flag)")))
        case .casic:
            switch address {
            case "PCAS02": if fields.count == 2, let ms = Int(fields[1]), [200, 500, 1000].contains(ms) { setInterval(&s, .milliseconds(ms), at: at) }
            case "PCAS03":
                let order = ["GGA", "GLL", "GSA", "GSV", "RMC", "VTG", "ZDA", "ANT"]
                for (k, name) in order.enumerated() where k + 1 < fields.count { set(&s, name, UInt64(fields[k + 1]) ?? 0) }
                if fields.count > 14 { set(&s, "GST", UInt64(fields[14]) ?? 0) }
            case "PCAS11": setCASICModel(&s, fields)
            // `$PCAS06,0` asks for the firmware, `$PCAS06,1` for the hardware (the Quectel L76K spec).
            case "PCAS06":
                let hardware = fields.count > 1 && fields[1] == "1"
                s.pending.append((at, sentence(hardware ? "GPTXT,01,01,02,HW=ATGM336H" : "GPTXT,01,01,02,SW=URANUS5,V5.3.0.0")))
            case "PCAS10": restart(&s, fields.count > 1 && fields[1] == "2" ? .cold : .hot, at: at)
            case "PCAS12":
                let seconds = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
                s.asleep = true
                s.model.sleep(.standby)
                s.wakeAt = seconds > 0 ? at.advanced(by: .seconds(seconds)) : nil
            default: break
            }
        case .ublox8, .ublox9, .ublox10:
            break
        }
    }

    /// What MON-VER answers (the interface descriptions' layout; the hardware versions u-blox's
    /// generations report, `00080000` M8, `00190000` M9, `000A0000` M10).
    static func version(_ family: Family) -> (software: String, hardware: String, protocolVersion: String, module: String) {
        switch family {
        case .ublox8: return ("ROM SPG 3.01", "00080000", "18.00", "NEO-M8N")
        case .ublox9: return ("EXT CORE 4.04", "00190000", "32.01", "NEO-M9N")
        default: return ("ROM SPG 5.10", "000A0000", "34.10", "MAX-M10S")
        }
    }

    /// What the receiver prints when its supply comes on: u-blox's boot screen as `GPTXT` (the
    /// company line, the hardware and the protocol version), MediaTek's `$PMTK011,MTKGPS` and
    /// `$PMTK010,001` (started), CASIC's `GPTXT` lines (maker, chip, firmware, model).
    func bootBanner(_ family: Family) -> [UInt8] {
        switch family {
        case .ublox8, .ublox9, .ublox10:
            let version = Self.version(family)
            return sentence("GPTXT,01,01,02,u-blox ag - www.u-blox.com") + sentence("GPTXT,01,01,02,HW UBX \(version.hardware)")
                + sentence("GPTXT,01,01,02,\(version.software)") + sentence("GPTXT,01,01,02,PROTVER=\(version.protocolVersion)")
        case .mediatek:
            return sentence("PMTK011,MTKGPS") + sentence("PMTK010,001")
        case .casic:
            return sentence("GPTXT,01,01,02,MA=CASIC") + sentence("GPTXT,01,01,02,IC=AT6558F-5N-32-1C580900")
                + sentence("GPTXT,01,01,02,SW=URANUS5,V5.3.0.0") + sentence("GPTXT,01,01,02,MO=GB")
        }
    }
}
