import Beacons
import Foundation

/// The output forms of ranged beacons (`fieldloc beacons`).
public enum BeaconText {
    /// One ranging update as one JSON object:
    /// `{"beacons":[{"uuid":"…","major":1,"minor":2,"proximity":"near","accuracy_m":1.84,"rssi":-64}]}`.
    /// Accuracy is in metres with two decimals (`-1` when unknown).
    public static func jsonLine(_ beacons: [Beacon]) -> String {
        let items = beacons.map { b in
            "{\"uuid\":\"\(b.uuid)\",\"major\":\(b.major),\"minor\":\(b.minor),\"proximity\":\"\(b.proximity.rawValue)\","
                + "\"accuracy_m\":\(metres(b.accuracy)),\"rssi\":\(b.rssi)}"
        }
        return "{\"beacons\":[" + items.joined(separator: ",") + "]}"
    }

    /// One line per beacon: `E2C5…96E0 1 2  near  1.84 m  -64 dBm`.
    public static func lines(_ beacons: [Beacon], at seconds: Double) -> [String] {
        if beacons.isEmpty { return [String(format: "%8.1f s  no beacons", seconds)] }
        return beacons.map { b in
            let accuracy = b.accuracy < 0 ? "    ?  " : String(format: "%6.2f m", b.accuracy)
            return String(format: "%8.1f s  ", seconds) + "\(b.uuid) \(b.major) \(b.minor)  "
                + b.proximity.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) + " \(accuracy)  \(b.rssi) dBm"
        }
    }

    static func metres(_ value: Double) -> String {
        guard value >= 0, value.isFinite else { return "-1" }
        return String(format: "%.2f", value)
    }
}
