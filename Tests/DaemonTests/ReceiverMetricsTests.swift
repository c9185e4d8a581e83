import FieldLocation
@testable import FieldLocationConsole
import FieldLocationOutput
import LocationServices
import NMEA
import PowerPolicy
import Testing

@Suite("Console metrics per receiver")
struct ReceiverMetricsTests {
    static func snapshot(_ receivers: [ReceiverSourceStatus]) -> StatusSnapshot {
        var s = StatusSnapshot(board: "two", boardTitle: "Two", receiver: "generic-nmea", fix: nil, fixAge: nil, heading: nil, headingAge: nil,
                               calibration: nil, decision: nil, energy: EnergyLedger(), uptime: 10, counters: LocationEngine.Counters(), warnings: [])
        s.receivers = receivers
        return s
    }

    @Test("a board with several receivers: open, chosen, fix type, accuracy and age labelled by receiver name; one receiver: no such series")
    func perReceiver() {
        let hat = ReceiverSourceStatus(label: "hat", device: "/dev/ttyS1", open: true, chosen: false, family: "mtk", baudRate: 9600,
                                       lastFixType: .threeD, lastAccuracy: 4.5, lastFixAge: 0.25, live: true)
        let dongle = ReceiverSourceStatus(label: "dongle", device: nil, open: false, chosen: false, problem: "no USB serial device", family: "ublox",
                                          baudRate: 38_400, usb: "usb:1546:01a9")
        let text = String(decoding: UnitMetrics(includePosition: false).exposition(Self.snapshot([hat, dongle])), as: UTF8.self)
        let lines = Set(text.split(separator: "\n").map(String.init))
        for expected in ["fieldloc_receiver_open{receiver=\"hat\"} 1.0", "fieldloc_receiver_open{receiver=\"dongle\"} 0.0",
                         "fieldloc_receiver_chosen{receiver=\"hat\"} 0.0", "fieldloc_receiver_live{receiver=\"hat\"} 1.0", "fieldloc_receiver_fix_age_seconds{receiver=\"hat\"} 0.25",
                         "fieldloc_receiver_horizontal_accuracy_meters{receiver=\"hat\"} 4.5",
                         "fieldloc_receiver_fix_type{receiver=\"hat\",type=\"threeD\"} 1.0",
                         "fieldloc_receiver_fix_type{receiver=\"hat\",type=\"dgps\"} 0.0",
                         "fieldloc_receiver_fix_age_seconds{receiver=\"dongle\"} nan"] {
            #expect(lines.contains(expected), "\(expected) in \(text.split(separator: "\n").filter { $0.contains("receiver=") })")
        }
        let one = String(decoding: UnitMetrics(includePosition: false).exposition(Self.snapshot([hat])), as: UTF8.self)
        #expect(!one.contains("fieldloc_receiver_open"))
        let json = StatusView.json(Self.snapshot([hat, dongle]))
        #expect(json.contains("\"receivers\":[{\"name\":\"hat\",\"device\":\"/dev/ttyS1\",\"open\":true,\"chosen\":false,\"live\":true,\"family\":\"mtk\",\"baud\":9600,\"fix_type\":\"threeD\",\"accuracy\":4.50,\"fix_age\":0.3}"), "\(json)")
        #expect(json.contains("{\"name\":\"dongle\",\"usb\":\"usb:1546:01a9\",\"open\":false,\"chosen\":false,\"live\":false,\"problem\":\"no USB serial device\",\"family\":\"ublox\",\"baud\":38400}"), "\(json)")
        #expect(!StatusView.json(Self.snapshot([hat])).contains("\"receivers\""))
    }
}
