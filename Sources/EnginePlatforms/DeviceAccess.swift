import BoardConfig
import Foundation
import LocationAPI

/// Which services a board's hardware can give now, each from its own device: locations from the
/// receiver's serial port, headings from the I2C bus, time from the PPS device or the GPIO chip,
/// beacons from the Bluetooth adapter. A device that is missing, not enabled in the kernel, or not
/// readable and writable by this process makes its service unavailable, with the reason; the
/// other services are not affected, and authorisation stays the access policy's.
public enum DeviceAccess {
    /// Where to look: `/dev` and `/sys` on a real system, folders of a test otherwise.
    public struct Folders: Sendable {
        /// Where `i2c-N` and `gpiochipN` live (paths in the board file that start with `/` are taken as they are).
        public var devices: String
        /// Where `class/bluetooth/hciN` lives.
        public var system: String
        /// Whether this process may read and write a node (`access(2)` by default; a test's own
        /// answer, since root passes every permission check).
        public var mayReadWrite: @Sendable (String) -> Bool

        /// The system's folders, or others.
        public init(devices: String = "/dev", system: String = "/sys",
                    mayReadWrite: @escaping @Sendable (String) -> Bool = DeviceAccess.mayReadWrite) {
            self.devices = devices
            self.system = system
            self.mayReadWrite = mayReadWrite
        }
    }

    /// One device a service needs: its node, and the group that usually grants access to it.
    public struct Need: Sendable, Hashable {
        /// The service.
        public var service: DeviceService
        /// The device node (or, for Bluetooth, the adapter's folder in sysfs).
        public var path: String
        /// What it is, for messages (`the receiver's serial port`).
        public var purpose: String
        /// The group that grants read/write access on a stock Raspberry Pi OS or Debian (`dialout`).
        public var group: String?
    }

    /// The devices `board`'s services need (none on a simulated board).
    public static func needs(for board: BoardDescription, folders: Folders = Folders()) -> [Need] {
        guard !board.simulated else { return [] }
        func node(_ name: String) -> String { name.hasPrefix("/") ? name : folders.devices + "/" + name }
        var out: [Need] = []
        // Several receivers: location needs one of them; the first usable one is the service's device.
        let ports = board.receivers.map { USBSerialDevices.port(of: $0, folders: folders) }
        if let index = ports.indices.first(where: { !ports[$0].isEmpty && FileManager.default.fileExists(atPath: ports[$0]) && folders.mayReadWrite(ports[$0]) })
            ?? ports.indices.first(where: { !ports[$0].isEmpty }) {
            out.append(Need(service: .location, path: ports[index], purpose: "the receiver's serial port", group: "dialout"))
        } else if let usb = board.receiver?.usb {
            out.append(Need(service: .location, path: folders.devices + "/" + usb.description, purpose: "the USB receiver \(usb)", group: "dialout"))
        }
        if board.magnetometer != nil && board.accelerometer != nil, let bus = board.i2cBus {
            out.append(Need(service: .heading, path: node("i2c-\(bus)"), purpose: "the sensors' I2C bus", group: "i2c"))
        }
        if let gpio = board.gpio {
            if let pps = gpio.ppsDevice {
                out.append(Need(service: .time, path: node(pps), purpose: "the receiver's PPS device", group: nil))
            } else if gpio.line(.gnssPPS) != nil {
                out.append(Need(service: .time, path: node(gpio.chip), purpose: "the GPIO chip of the PPS line", group: "gpio"))
            }
        }
        if let adapter = board.bluetooth {
            out.append(Need(service: .beacons, path: folders.system + "/class/bluetooth/" + adapter,
                            purpose: "the Bluetooth adapter \(adapter)", group: nil))
        }
        return out
    }

    /// The folders whose changes can change ``capabilities(for:folders:)`` (the device nodes; sysfs
    /// sends no change events, so the adapter is checked again whenever a node changes).
    public static func watchedPaths(for board: BoardDescription, folders: Folders = Folders()) -> [String] {
        let paths = needs(for: board, folders: folders).filter { $0.service != .beacons }.map(\.path)
        return board.simulated ? paths : paths + board.receivers.compactMap(\.uart).filter { !paths.contains($0) }
    }

    /// Each service of `board` with its availability now.
    public static func capabilities(for board: BoardDescription, folders: Folders = Folders()) -> DeviceCapabilities {
        DeviceCapabilities(needs(for: board, folders: folders).map { availability(of: $0, folders: folders) })
    }

    /// Whether `need`'s device can be used, and why not.
    public static func availability(of need: Need, folders: Folders = Folders()) -> ServiceAvailability {
        let files = FileManager.default
        let path = need.path
        guard files.fileExists(atPath: path) else {
            let (problem, why) = absence(of: need, folders: folders)
            return ServiceAvailability(service: need.service, device: path, problem: problem,
                                       reason: "\(path) (\(need.purpose)) does not exist: \(why)")
        }
        if need.service == .beacons { return ServiceAvailability(service: .beacons, device: path) }
        guard folders.mayReadWrite(path) else {
            let owner = (try? files.attributesOfItem(atPath: path)[.groupOwnerAccountName] as? String) ?? nil
            let group = owner.flatMap { $0 == "root" ? nil : $0 } ?? need.group
            let fix = group.map { "add the user to group \($0) and log in again" } ?? "run as a user that may open it"
            return ServiceAvailability(service: need.service, device: path, problem: .permission,
                                       reason: "no read/write access to \(path) (\(need.purpose)\(group.map { ", group \($0)" } ?? "")): \(fix)")
        }
        return ServiceAvailability(service: need.service, device: path)
    }

    /// Whether this process may read and write `path` (`access(2)` with R_OK and W_OK).
    public static func mayReadWrite(_ path: String) -> Bool {
        FileManager.default.isReadableFile(atPath: path) && FileManager.default.isWritableFile(atPath: path)
    }

    /// Why a node is absent: the kernel interface is not enabled (no node of its kind exists at
    /// all), or this one is missing.
    static func absence(of need: Need, folders: Folders) -> (ServiceAvailability.Problem, String) {
        let present = (try? FileManager.default.contentsOfDirectory(atPath: folders.devices)) ?? []
        switch need.service {
        case .heading:
            let buses = present.filter { $0.hasPrefix("i2c-") }.sorted()
            if buses.isEmpty {
                return (.notEnabled, "no I2C bus device exists: the i2c-dev module is not loaded or I2C is not enabled "
                        + "(on a Raspberry Pi: dtparam=i2c_arm=on in config.txt, or raspi-config)")
            }
            return (.missing, "the buses present are \(buses.joined(separator: ", ")): check i2c_bus in the board file")
        case .time where need.purpose.contains("GPIO"):
            if !present.contains(where: { $0.hasPrefix("gpiochip") }) {
                return (.notEnabled, "no GPIO chip device exists: the kernel's GPIO character device is not available")
            }
            return (.missing, "check [gpio] chip in the board file")
        case .time:
            return (.notEnabled, "the pps-gpio overlay (dtoverlay=pps-gpio in config.txt) or 'ldattach PPS' has not created it")
        case .location:
            let name = need.path
            if name.contains("ttyUSB") || name.contains("ttyACM") || name.contains("/serial/by-") || name.contains("/usb:") {
                return (.missing, "the USB receiver is not plugged in (or its driver is not loaded)")
            }
            if name.hasSuffix("serial0") || name.contains("ttyAMA") || name.contains("ttyS") {
                return (.notEnabled, "the UART is not enabled (on a Raspberry Pi: enable_uart=1 in config.txt)")
            }
            return (.missing, "the receiver is not connected, or the board file's uart is wrong")
        case .beacons:
            return (.missing, "no such adapter (not plugged in, or its driver is not loaded)")
        }
    }
}
