import BluetoothHCI
import CBluetooth
import Glibc
import HardwareInterfaces

/// The kernel's raw HCI socket calls: adapter names, device information, powering on, binding
/// with an event filter, and the errors' hints. ``LinuxBluetoothScanner`` is built on them.
enum HCISocket {
    /// The sizes of the kernel's structures on every Linux ABI: sockaddr_hci 6 bytes, hci_ufilter
    /// 16 (14 and padding), hci_dev_info 92 (the ioctl copies that many bytes back).
    static let structureSizes = (
        address: MemoryLayout<fieldloc_sockaddr_hci>.size, filter: MemoryLayout<fieldloc_hci_filter>.size,
        deviceInfo: MemoryLayout<fieldloc_hci_dev_info>.size, flagsOffset: MemoryLayout<fieldloc_hci_dev_info>.offset(of: \.flags) ?? -1)

    /// `hci0` → 0; `nil` for anything that is not `hci` and a number.
    static func deviceIndex(_ adapter: String) -> UInt16? {
        guard adapter.hasPrefix("hci") else { return nil }
        let digits = adapter.dropFirst(3)
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let index = UInt16(digits) else { return nil }
        return index
    }

    /// A raw HCI socket, not yet bound: non-blocking, closed on exec.
    static func open(adapter: String) throws(HardwareError) -> Int32 {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let (fd, code) = Sys.call { socket(FIELDLOC_AF_BLUETOOTH, type, FIELDLOC_BTPROTO_HCI) }
        guard fd >= 0 else {
            if code == EAFNOSUPPORT || code == EPROTONOSUPPORT {
                throw HardwareError(.unsupported, device: adapter, operation: "open HCI socket", detail: errnoDetail(code),
                                    hint: "this kernel has no Bluetooth sockets: load the module (`modprobe bluetooth`) or use a kernel with CONFIG_BT")
            }
            throw Sys.error(code, device: adapter, operation: "open HCI socket")
        }
        return fd
    }

    /// HCIGETDEVINFO: whether the adapter exists and is up.
    static func isUp(fd: Int32, index: UInt16, adapter: String) throws(HardwareError) -> Bool {
        var info = fieldloc_hci_dev_info()
        info.dev_id = index
        let (result, code) = Sys.ioctl(fd, UInt(FIELDLOC_HCIGETDEVINFO), &info)
        guard result >= 0 else {
            if code == ENODEV {
                throw HardwareError(.notFound, device: adapter, operation: "HCIGETDEVINFO", detail: errnoDetail(code), hint: missingHint(adapter))
            }
            throw Sys.error(code, device: adapter, operation: "HCIGETDEVINFO", ioctl: true)
        }
        return info.flags & UInt32(FIELDLOC_HCI_UP_FLAG) != 0
    }

    /// HCIDEVUP: powers the adapter on (runs the kernel's controller initialisation). Needs
    /// CAP_NET_ADMIN; an adapter already up is fine.
    static func powerOn(fd: Int32, index: UInt16, adapter: String) throws(HardwareError) {
        let (result, code) = Sys.ioctl(fd, UInt(FIELDLOC_HCIDEVUP), Int32(index))
        guard result < 0, code != EALREADY else { return }
        switch code {
        case EPERM, EACCES:
            throw HardwareError(.permissionDenied, device: adapter, operation: "power on (HCIDEVUP)", detail: errnoDetail(code),
                                hint: "powering an adapter on needs CAP_NET_ADMIN: run as root, or give the program `setcap cap_net_raw,cap_net_admin+ep`, or AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN in its systemd unit")
        case ERFKILL:
            throw HardwareError(.busy, device: adapter, operation: "power on (HCIDEVUP)", detail: errnoDetail(code),
                                hint: "the radio is blocked by rfkill: `rfkill unblock bluetooth`")
        case ENODEV:
            throw HardwareError(.notFound, device: adapter, operation: "power on (HCIDEVUP)", detail: errnoDetail(code), hint: missingHint(adapter))
        default:
            throw Sys.error(code, device: adapter, operation: "power on (HCIDEVUP)", ioctl: true)
        }
    }

    /// Binds to the adapter's raw channel and lets through only events: Command Complete, Command
    /// Status and LE Meta.
    static func bind(fd: Int32, index: UInt16, adapter: String) throws(HardwareError) {
        var address = fieldloc_sockaddr_hci(
            hci_family: sa_family_t(FIELDLOC_AF_BLUETOOTH), hci_dev: index, hci_channel: UInt16(FIELDLOC_HCI_CHANNEL_RAW))
        let (bound, code) = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                Sys.call { Glibc.bind(fd, raw, socklen_t(MemoryLayout<fieldloc_sockaddr_hci>.size)) }
            }
        }
        if bound < 0 {
            switch code {
            case ENODEV:
                throw HardwareError(.notFound, device: adapter, operation: "bind HCI socket", detail: errnoDetail(code), hint: missingHint(adapter))
            case EBUSY:
                throw HardwareError(.busy, device: adapter, operation: "bind HCI socket", detail: errnoDetail(code),
                                    hint: "another program holds \(adapter) on its exclusive user channel (HCI_CHANNEL_USER): stop it, or scan through it")
            default:
                throw Sys.error(code, device: adapter, operation: "bind HCI socket")
            }
        }
        var filter = fieldloc_hci_filter()
        filter.type_mask = 1 << UInt32(HCI.PacketType.event.rawValue)
        for event in [HCI.EventCode.commandComplete, HCI.EventCode.commandStatus, HCI.EventCode.leMeta] {
            if event < 32 { filter.event_mask.0 |= 1 << UInt32(event) } else { filter.event_mask.1 |= 1 << UInt32(event - 32) }
        }
        let (set, setCode) = Sys.call {
            setsockopt(fd, FIELDLOC_SOL_HCI, FIELDLOC_HCI_FILTER, &filter, socklen_t(MemoryLayout<fieldloc_hci_filter>.size))
        }
        if set < 0 { throw Sys.error(setCode, device: adapter, operation: "set HCI filter") }
    }

    /// The error of a failed write of a command.
    static func writeError(_ code: Int32, adapter: String, command: String) -> HardwareError {
        switch code {
        case EPERM, EACCES:
            return HardwareError(.permissionDenied, device: adapter, operation: "send \(command)", detail: errnoDetail(code),
                                 hint: "sending HCI commands needs CAP_NET_RAW: run as root, or give the program `setcap cap_net_raw,cap_net_admin+ep`, or AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN in its systemd unit")
        case ENETDOWN:
            return HardwareError(.other, device: adapter, operation: "send \(command)", detail: "the adapter is down (\(errnoDetail(code)))", hint: downHint(adapter))
        case ENODEV, EPIPE, ENXIO:
            return HardwareError(.deviceGone, device: adapter, operation: "send \(command)", detail: errnoDetail(code))
        default:
            return Sys.error(code, device: adapter, operation: "send \(command)")
        }
    }

    /// The error of a failed read or poll: the adapter went away, or something else.
    static func readError(_ code: Int32, adapter: String, operation: String) -> HardwareError {
        switch code {
        case ENODEV, EPIPE, ENXIO, ENETDOWN, ESHUTDOWN:
            return HardwareError(.deviceGone, device: adapter, operation: operation, detail: errnoDetail(code),
                                 hint: "the adapter was removed or powered off (`btmgmt info`, `dmesg`)")
        default:
            return Sys.error(code, device: adapter, operation: operation)
        }
    }

    /// The error of a command the controller refused.
    static func statusError(_ status: UInt8, adapter: String, command: String) -> HardwareError {
        let detail = "the controller answered \(HCI.statusName(status)) (0x\(hex(status)))"
        if status == 0x0C {
            return HardwareError(.busy, device: adapter, operation: command, detail: detail,
                                 hint: "another scan runs on \(adapter): bluetoothd's or the kernel's discovery (`bluetoothctl scan off`), an earlier scanner that did not stop (`btmgmt power off; btmgmt power on`), or the kernel drives the controller with the extended scan commands; where bluetoothd runs, scan through BlueZ instead")
        }
        return HardwareError(.other, device: adapter, operation: command, detail: detail)
    }

    static func missingHint(_ adapter: String) -> String {
        "no Bluetooth adapter \(adapter) (see /sys/class/bluetooth and `btmgmt info`); on a Raspberry Pi the radio is a UART device that hciuart.service (or bluetoothd's btattach) attaches, and dtoverlay=disable-bt removes it"
    }

    static func downHint(_ adapter: String) -> String {
        "bring it up: `bluetoothctl power on` where bluetoothd runs, else `btmgmt --index \(adapter.dropFirst(3)) power on` or `hciconfig \(adapter) up` (CAP_NET_ADMIN); or open the scanner with powerOn: true; `rfkill list` shows a blocked radio"
    }

    static func hex(_ value: UInt8) -> String {
        let digits: [Character] = Array("0123456789abcdef")
        return String([digits[Int(value >> 4)], digits[Int(value & 0xF)]])
    }
}
