import GPSDProtocol
import Testing

/// Lines copied verbatim from the recorded gpsd 3.22 session
/// (`shared/reference/gpsd-session-transcript.md`), without their CR LF.
enum Transcript {
    static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
    static let devicesBeforeWatch = #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/N"}]}"#
    static let deviceBare = #"{"class":"DEVICE","path":"/dev/pts/N"}"#
    static let devicesActive = #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/N","driver":"NMEA0183","activated":"2026-11-22T11:10:11.425Z","flags":1,"native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00}]}"#
    static let deviceActive = #"{"class":"DEVICE","path":"/dev/pts/N","driver":"NMEA0183","activated":"2026-11-22T11:10:10.674Z","flags":1,"native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00}"#
    static let pollBeforeWatch = #"{"class":"POLL","time":"2026-11-22T11:10:06.045Z","active":0,"tpv":[],"gst":[],"sky":[]}"#
    static let poll = #"{"class":"POLL","time":"2026-11-22T11:10:10.317Z","active":1,"tpv":[{"class":"TPV","device":"/dev/pts/N","status":2,"mode":3,"time":"2034-11-27T20:26:55.000Z","ept":0.005,"lat":44.068841667,"lon":-121.314191667,"altHAE":1108.1000,"altMSL":1127.7000,"alt":1127.7000,"epv":7.533,"track":166.6800,"magtrack":181.0984,"magvar":14.4,"speed":0.015,"climb":0.000,"epc":15.07,"geoidSep":-19.600,"eph":4.655,"sep":7.790}],"gst":[{"class":"GST","device":"/dev/pts/N"}],"sky":[{"class":"SKY","device":"/dev/pts/N","vdop":1.31,"hdop":0.98,"pdop":1.64,"nSat":0,"uSat":0}]}"#
    static let tpv = #"{"class":"TPV","device":"/dev/pts/N","status":2,"mode":3,"time":"2034-11-27T20:27:00.000Z","ept":0.005,"lat":44.068840000,"lon":-121.314191667,"altHAE":1108.1000,"altMSL":1127.7000,"alt":1127.7000,"epx":1.930,"epy":3.125,"epv":7.533,"track":165.6000,"magtrack":180.0184,"magvar":14.4,"speed":0.021,"climb":0.000,"eps":6.25,"epc":15.07,"geoidSep":-19.600,"eph":4.655,"sep":7.790}"#
    static let tpvNoTime = #"{"class":"TPV","device":"/dev/pts/N","status":2,"mode":3,"lat":44.068841667,"lon":-121.314191667,"altHAE":1108.1000,"altMSL":1127.7000,"alt":1127.7000,"magvar":14.4,"geoidSep":-19.600,"eph":4.655}"#
    static let sky = #"{"class":"SKY","device":"/dev/pts/N","xdop":0.51,"ydop":0.83,"vdop":1.31,"tdop":0.84,"hdop":0.98,"gdop":1.84,"pdop":1.64,"nSat":12,"uSat":10,"satellites":[{"PRN":9,"el":88.0,"az":89.0,"ss":33.0,"used":true,"gnssid":0,"svid":9},{"PRN":7,"el":60.0,"az":281.0,"ss":44.0,"used":true,"gnssid":0,"svid":7},{"PRN":23,"el":54.0,"az":124.0,"ss":37.0,"used":true,"gnssid":0,"svid":23},{"PRN":10,"el":44.0,"az":274.0,"ss":31.0,"used":true,"gnssid":0,"svid":10},{"PRN":16,"el":39.0,"az":51.0,"ss":30.0,"used":true,"gnssid":0,"svid":16},{"PRN":46,"el":37.0,"az":146.0,"ss":0.0,"used":false,"gnssid":1,"svid":133},{"PRN":30,"el":30.0,"az":262.0,"ss":28.0,"used":true,"gnssid":0,"svid":30},{"PRN":20,"el":24.0,"az":308.0,"ss":30.0,"used":true,"gnssid":0,"svid":20},{"PRN":27,"el":23.0,"az":92.0,"ss":31.0,"used":true,"gnssid":0,"svid":27},{"PRN":19,"el":13.0,"az":123.0,"ss":27.0,"used":true,"gnssid":0,"svid":19},{"PRN":3,"el":7.0,"az":176.0,"ss":20.0,"used":true,"gnssid":0,"svid":3},{"PRN":5,"el":5.0,"az":328.0,"ss":0.0,"used":false,"gnssid":0,"svid":5}]}"#
    static let att = #"{"class":"ATT","device":"/dev/pts/N","heading":14199.000,"mag_st":"N","pitch":171.00,"pitch_st":"N","roll":-40.00,"roll_st":"N","dip":13614.000,"mag_x":2452.000}"#
    static let toff = #"{"class":"TOFF","device":"/dev/pts/N","real_sec":2048272025, "real_nsec":0,"clock_sec":1795345820,"clock_nsec":940966788}"#
    static let errorFoo = #"{"class":"ERROR","message":"Unrecognized request '?FOO;\n'"}"#
    static let errorLong = #"{"class":"ERROR","message":"Unrecognized request '?XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX;\n'"}"#
    /// The WATCH replies in session order, after the request shown with each.
    static let watchSequence: [(request: String, reply: String)] = [
        (#"?WATCH={"enable":true,"json":true}"#,
         #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#),
        (#"?WATCH={"enable":false}"#,
         #"{"class":"WATCH","enable":false,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#),
        (#"?WATCH={"enable":true,"nmea":true}"#,
         #"{"class":"WATCH","enable":true,"json":true,"nmea":true,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#),
        (#"?WATCH={"enable":false}"#,
         #"{"class":"WATCH","enable":false,"json":true,"nmea":true,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#),
        (#"?WATCH={"enable":true,"raw":1}"#,
         #"{"class":"WATCH","enable":true,"json":true,"nmea":true,"raw":1,"scaled":false,"timing":false,"split24":false,"pps":false}"#),
        (#"?WATCH={"enable":false}"#,
         #"{"class":"WATCH","enable":false,"json":true,"nmea":true,"raw":1,"scaled":false,"timing":false,"split24":false,"pps":false}"#),
        (#"?WATCH={"enable":true,"json":true,"pps":true,"scaled":true}"#,
         #"{"class":"WATCH","enable":true,"json":true,"nmea":true,"raw":1,"scaled":true,"timing":false,"split24":false,"pps":true}"#),
        (#"?WATCH={"enable":false}"#,
         #"{"class":"WATCH","enable":false,"json":true,"nmea":true,"raw":1,"scaled":false,"timing":false,"split24":false,"pps":false}"#),
    ]
}

/// Parses a report line with our reader; the error it throws fails the calling test.
func parsed(_ line: String) throws -> GPSDJSONValue {
    try GPSDJSONValue.parse(line.utf8)
}

/// The top-level members of a one-line JSON object as (name, raw value text), to compare gpsd's exact
/// number formatting member by member. Nested arrays/objects stay as one raw value.
func rawMembers(_ line: String) -> [(key: String, value: String)] {
    let bytes = Array(line.utf8)
    var members: [(key: String, value: String)] = []
    var depth = 0
    var inString = false
    var escaped = false
    var start = 1
    for (index, byte) in bytes.enumerated() {
        if inString {
            if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            continue
        }
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","):
            if byte != UInt8(ascii: ",") { depth -= 1 }
            guard depth == 0 || (byte == UInt8(ascii: ",") && depth == 1) else { continue }
            let member = String(decoding: bytes[start..<index], as: UTF8.self)
            if let colon = member.firstIndex(of: ":") {
                let key = member[..<colon].trimmingPrefix(" ").dropFirst().dropLast()
                members.append((String(key), String(member[member.index(after: colon)...])))
            }
            start = index + 1
        default: break
        }
    }
    return members
}

/// The raw value text of `key` in a one-line object.
func raw(_ line: String, _ key: String) -> String? { rawMembers(line).first { $0.key == key }?.value }

/// Whether `subsequence` appears in `sequence` in the same order (not necessarily adjacent).
func isOrderedSubsequence(_ subsequence: [String], of sequence: [String]) -> Bool {
    var iterator = sequence.makeIterator()
    return subsequence.allSatisfy { wanted in
        while let next = iterator.next() { if next == wanted { return true } }
        return false
    }
}
