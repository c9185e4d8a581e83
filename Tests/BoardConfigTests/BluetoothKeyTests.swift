import BoardConfig
import Testing

/// `bluetooth_backend`, `beacon_path_loss_exponent` and `beacon_power_1m`.
@Suite("Bluetooth board keys")
struct BluetoothKeyTests {
    static let top = "simulated = false\n"

    @Test("the backend defaults to auto; each value is read")
    func backends() throws {
        #expect(try BoardLoader.load(text: validBoard, file: "Boards/t.toml").bluetoothBackend == .auto)
        for backend in BluetoothBackend.allCases {
            let text = board(replacing: Self.top, with: Self.top + "bluetooth = \"hci0\"\nbluetooth_backend = \"\(backend.rawValue)\"\n")
            #expect(try BoardLoader.load(text: text, file: "Boards/t.toml").bluetoothBackend == backend)
        }
    }

    @Test("a bad backend names the line and the allowed values")
    func badBackend() {
        let text = board(replacing: Self.top, with: Self.top + "bluetooth_backend = \"dbus\"\n")
        #expect(throws: BoardError(file: "Boards/t.toml", location: SourceLocation(line: 4, column: 21), key: "bluetooth_backend",
                                   message: "'dbus' is not a Bluetooth backend: \"auto\", \"bluez\" or \"hci\"")) {
            try BoardLoader.load(text: text, file: "Boards/t.toml")
        }
        #expect(throws: BoardError.self) {
            try BoardLoader.load(text: board(replacing: Self.top, with: Self.top + "bluetooth_backend = 1\n"), file: "Boards/t.toml")
        }
    }

    @Test("the site calibration keys are read and checked")
    func siteCalibration() throws {
        let good = board(replacing: Self.top, with: Self.top + "beacon_path_loss_exponent = 2.7\nbeacon_power_1m = -63\n")
        let loaded = try BoardLoader.load(text: good, file: "Boards/t.toml")
        #expect(loaded.beaconPathLossExponent == 2.7 && loaded.beaconPower1m == -63)
        #expect(try BoardLoader.load(text: validBoard, file: "Boards/t.toml").beaconPathLossExponent == nil)
        #expect(throws: BoardError(file: "Boards/t.toml", location: SourceLocation(line: 4, column: 29), key: "beacon_path_loss_exponent",
                                   message: "0.5 is not a path-loss exponent: between 1 and 6 (2 in free space, 2-4 indoors)")) {
            try BoardLoader.load(text: board(replacing: Self.top, with: Self.top + "beacon_path_loss_exponent = 0.5\n"), file: "Boards/t.toml")
        }
        #expect(throws: BoardError(file: "Boards/t.toml", location: SourceLocation(line: 4, column: 19), key: "beacon_power_1m",
                                   message: "30.0 is not an RSSI at 1 m: dBm between -120 and 20, such as -59")) {
            try BoardLoader.load(text: board(replacing: Self.top, with: Self.top + "beacon_power_1m = 30\n"), file: "Boards/t.toml")
        }
    }
}
