import Glibc
import HardwareInterfaces
@testable import LinuxHardware
import Testing

@Suite("LinuxBluetoothScanner: adapter names and the errors of a machine without the adapter")
struct BluetoothScannerTests {
    @Test("adapter names: hci and a number", arguments: [
        ("hci0", UInt16?.some(0)), ("hci1", 1), ("hci12", 12), ("hci", nil), ("hci-1", nil), ("hci0x", nil),
        ("wlan0", nil), ("HCI0", nil), ("hci99999999", nil), ("hci٣", nil),
    ])
    func names(name: String, index: UInt16?) {
        #expect(HCISocket.deviceIndex(name) == index)
    }

    @Test("the kernel structures as declared have the kernel's sizes (hci_sock.h)")
    func layouts() {
        let sizes = HCISocket.structureSizes
        #expect(sizes.address == 6 && sizes.filter == 16 && sizes.deviceInfo == 92 && sizes.flagsOffset == 16)
    }

    @Test("a name that is not hciN is an invalid argument, before any socket is opened")
    func badName() {
        #expect {
            _ = try LinuxBluetoothScanner(adapter: "wlan0")
        } throws: { error in
            (error as? HardwareError)?.kind == .invalidArgument && (error as? HardwareError)?.device == "wlan0"
        }
    }

    /// hci250 exists on no machine: a kernel with Bluetooth says the adapter is missing, one
    /// without says so; either way with a hint naming the fix.
    @Test("an absent adapter is notFound (or unsupported on a kernel without Bluetooth), with a hint")
    func absentAdapter() {
        #expect {
            _ = try LinuxBluetoothScanner(adapter: "hci250")
        } throws: { error in
            guard let error = error as? HardwareError else { return false }
            return (error.kind == .notFound || error.kind == .unsupported) && error.device == "hci250" && error.hint != nil
        }
    }

    @Test("the controller's refusal names its words; Command Disallowed is busy with the bluetoothd hint")
    func statusErrors() {
        let disallowed = HCISocket.statusError(0x0C, adapter: "hci0", command: "LE Set Scan Enable")
        #expect(disallowed.kind == .busy)
        #expect(disallowed.detail.contains("Command Disallowed (0x0c)"))
        #expect(disallowed.hint?.contains("bluetoothctl scan off") == true)
        let invalid = HCISocket.statusError(0x12, adapter: "hci0", command: "LE Set Scan Parameters")
        #expect(invalid.kind == .other && invalid.detail.contains("Invalid HCI Command Parameters"))
        #expect(HCISocket.writeError(EPERM, adapter: "hci0", command: "x").hint?.contains("CAP_NET_RAW") == true)
        #expect(HCISocket.writeError(ENETDOWN, adapter: "hci0", command: "x").detail.contains("down"))
        #expect(HCISocket.readError(EPIPE, adapter: "hci0", operation: "read").kind == .deviceGone)
    }
}
