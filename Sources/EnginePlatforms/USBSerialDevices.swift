import BoardConfig
import Foundation

/// Finds the serial node of a USB receiver from its identity (``USBSerialMatch``), as udev knows
/// it: each `class/tty/NAME` in sysfs whose device has a USB ancestor with the `idVendor`,
/// `idProduct` (and `serial`) attributes asked for is `/dev/NAME`. Read on each attempt to open
/// the port, so a receiver plugged in late (or into another socket) is found without a restart.
public enum USBSerialDevices {
    /// The node (`DEVICES/ttyACM0`) of the first tty, by name, whose USB device matches `match`;
    /// `nil` when none is plugged in. `system` is sysfs (`/sys`), `devices` where nodes live (`/dev`).
    public static func node(matching match: USBSerialMatch, system: String = "/sys", devices: String = "/dev") -> String? {
        let files = FileManager.default
        let ttys = system + "/class/tty"
        let names = ((try? files.contentsOfDirectory(atPath: ttys)) ?? []).sorted()
        for name in names {
            // class/tty/NAME/device is a link to the interface (ttyACM) or the port (ttyUSB) folder.
            let link = ttys + "/" + name + "/device"
            guard let resolved = try? files.destinationOfSymbolicLink(atPath: link) else { continue }
            var folder = resolved.hasPrefix("/") ? resolved : (ttys + "/" + name + "/" + resolved)
            folder = URL(fileURLWithPath: folder).standardizedFileURL.path
            // Up to the USB device: the first ancestor with idVendor (at most 4 levels: port, interface, device).
            for _ in 0..<4 {
                if let vendor = attribute(folder + "/idVendor"), let product = attribute(folder + "/idProduct") {
                    if match.matches(vendor: vendor, product: product, serial: attribute(folder + "/serial")) { return devices + "/" + name }
                    break
                }
                folder = (folder as NSString).deletingLastPathComponent
            }
        }
        return nil
    }

    /// A sysfs attribute's text without its newline, or `nil` when absent.
    static func attribute(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The port of `receiver`: its `uart`, else the node its USB identity finds now, else `""`
    /// (nothing to open yet; the engine tries again).
    public static func port(of receiver: ReceiverDescription?, folders: DeviceAccess.Folders) -> String {
        guard let receiver else { return "" }
        if let uart = receiver.uart { return uart }
        guard let usb = receiver.usb else { return "" }
        return node(matching: usb, system: folders.system, devices: folders.devices) ?? ""
    }
}
