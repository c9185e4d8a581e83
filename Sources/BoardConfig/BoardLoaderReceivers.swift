import Devices
import HardwareInterfaces

// The board's receivers: one `[receiver]` table, or several `[[receiver]]` tables (each by its port
// or by its USB identity), the first of which owns the `[gpio]` control lines.
extension BoardLoader {
    /// The receiver tables: `[receiver]` once, or each `[[receiver]]`.
    static func receiverTables(_ top: Section, file: String) throws(BoardError) -> [Section] {
        guard let entry = top.entry("receiver") else { return [] }
        if case .table = entry.node.value {
            return try top.table("receiver", file: file).map { [$0] } ?? []
        }
        return try top.arrayOfTables("receiver", file: file)
    }

    /// Reads every receiver; names and ports must be unique, and a simulated board has one.
    static func readReceivers(_ sections: [Section], simulated: Bool, gpio: GPIODescription?) throws(BoardError) -> [ReceiverDescription] {
        var receivers: [ReceiverDescription] = []
        for (index, section) in sections.enumerated() {
            let receiver = try readReceiver(section, simulated: simulated, gpio: gpio, first: index == 0)
            if simulated, index > 0 {
                throw section.error("a simulated board has one receiver; [[receiver]] #\(index + 1) needs simulated = false",
                                    key: "receiver", at: section.location)
            }
            for (other, earlier) in receivers.enumerated() {
                if let name = receiver.name, name == earlier.name {
                    throw section.error("the name '\(name)' is already used by [[receiver]] #\(other + 1)", key: "name",
                                        at: section.entry("name")?.node.location)
                }
                if let uart = receiver.uart, uart == earlier.uart {
                    throw section.error("the port \(uart) is already used by [[receiver]] #\(other + 1)", key: "uart",
                                        at: section.entry("uart")?.node.location)
                }
                if let usb = receiver.usb, usb == earlier.usb {
                    throw section.error("the USB identity \(usb) is already used by [[receiver]] #\(other + 1); add usb_serial to tell them apart",
                                        key: "usb_vendor", at: section.entry("usb_vendor")?.node.location)
                }
            }
            receivers.append(receiver)
        }
        return receivers
    }

    /// `usb_vendor` and `usb_product` (four hex digits each, as udev's ID_VENDOR_ID and ID_MODEL_ID),
    /// with an optional `usb_serial`; `nil` when none is given.
    static func readUSBMatch(_ section: Section) throws(BoardError) -> USBSerialMatch? {
        let vendor = try section.string("usb_vendor")
        let product = try section.string("usb_product")
        let serial = try section.string("usb_serial")
        guard vendor != nil || product != nil || serial != nil else { return nil }
        guard let vendor else { throw section.missing("usb_vendor", what: "the USB vendor ID as udev gives it, e.g. \"1546\"") }
        guard let product else { throw section.missing("usb_product", what: "the USB product ID as udev gives it, e.g. \"01a9\"") }
        for (key, id) in [("usb_vendor", vendor), ("usb_product", product)] {
            let hex = id.value.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }
            guard id.value.utf8.count == 4, hex else {
                throw section.error("'\(id.value)' is not a USB ID (four hex digits, e.g. \"1546\")", key: key, at: id.location)
            }
        }
        return USBSerialMatch(vendor: vendor.value, product: product.value, serial: serial?.value)
    }

    /// One receiver table; `first` says whether it is the board's first receiver (the one the
    /// `[gpio]` control lines belong to).
    static func readReceiver(_ section: Section, simulated: Bool, gpio: GPIODescription?, first: Bool = true) throws(BoardError) -> ReceiverDescription {
        try section.checkKeys(receiverKeys)
        let uart = try section.string("uart")
        let usb = try readUSBMatch(section)
        if let usb, let uart {
            throw section.error("give either uart or usb_vendor/usb_product, not both (\(uart.value) or \(usb.description))",
                                key: "uart", at: uart.location)
        }
        if !simulated, uart == nil, usb == nil {
            throw section.error("missing required key in \(section.title): a real board needs the serial device, e.g. \"/dev/serial0\", or usb_vendor and usb_product",
                                key: "uart", at: section.location)
        }
        if let (path, location) = uart, !path.hasPrefix("/dev/") {
            throw section.error("'\(path)' is not a device path (expected /dev/...)", key: "uart", at: location)
        }
        let (baud, baudLocation) = try section.requiredInteger("baud", what: "the receiver's baud rate, e.g. 9600")
        guard let baudRate = BaudRate(baud) else {
            let list = BaudRate.standard.map(String.init).joined(separator: ", ")
            throw section.error("\(baud) is not a supported baud rate (\(list))", key: "baud", at: baudLocation)
        }
        // No family, or `auto`: found on the receiver's arrival (generic NMEA until then).
        let familyEntry = section.entry("family")
        var detects = familyEntry == nil
        if let familyEntry, case .string("auto") = familyEntry.node.value { detects = true }
        let family: ReceiverFamily
        if detects {
            family = .genericNMEA
        } else {
            family = try section.requiredName("family", what: "the receiver's command set", names: ReceiverFamily.boardNames + ["auto"],
                                              lookup: ReceiverFamily.init(boardSpelling:))
        }
        let model = try section.string("model")?.value
        var wake: [WakeMethod] = []
        if let entry = section.entry("wake") {
            let items: [TOMLNode]
            switch entry.node.value {
            case .string: items = [entry.node]
            case .array(let elements): items = elements
            default:
                throw section.error("expected a string or an array of strings, found \(entry.node.value.typeName)",
                                    key: "wake", at: entry.node.location)
            }
            for item in items {
                let method = try section.enumValue(item, WakeMethod.self, key: "wake")
                if wake.contains(method) {
                    throw section.error("'\(method.rawValue)' is listed twice", key: "wake", at: item.location)
                }
                let needed: GPIOFunction? = method == .extint ? .gnssExtint : method == .powerEnable ? .gnssPowerEnable : nil
                if needed != nil, !first {
                    throw section.error("wake method '\(method.rawValue)' needs a [gpio] line, and those belong to the first receiver; use uart-byte or none here",
                                        key: "wake", at: item.location)
                }
                if let needed, !simulated, gpio?.line(needed) == nil {
                    throw section.error("wake method '\(method.rawValue)' needs a line in [gpio] \(needed.rawValue)",
                                        key: "wake", at: item.location)
                }
                wake.append(method)
            }
        }
        var output: ReceiverOutputMode?
        if let entry = section.entry("output") {
            let mode = try section.enumValue(entry.node, ReceiverOutputMode.self, key: "output")
            if mode != .nmea, !detects, !family.entry.hasBinaryOutput {
                let binary = ReceiverFamily.catalogue.filter(\.hasBinaryOutput).compactMap(\.boardSpellings.first).joined(separator: " or ")
                throw section.error("output '\(mode.rawValue)' needs a receiver with a binary protocol (\(binary)), not \(family.rawValue)",
                                    key: "output", at: entry.node.location)
            }
            output = mode
        }
        var timeOffset = 0.0
        if let entry = try section.number("time_offset") {
            guard entry.value.isFinite, abs(entry.value) < 2 else {
                throw section.error("time_offset \(entry.value) is not a delay in seconds within ±2 (the receiver's sentences after the pulse, 0.0 to about 0.6)",
                                    key: "time_offset", at: entry.location)
            }
            timeOffset = entry.value
        }
        var receiver = ReceiverDescription(uart: uart?.value, baudRate: baudRate, family: family, model: model, wake: wake, output: output)
        receiver.detectsFamily = detects
        // A detected family's default output is chosen on arrival; until then NMEA.
        if detects, output == nil { receiver.output = .nmea }
        receiver.name = try section.string("name")?.value
        receiver.usb = usb
        receiver.timeOffset = timeOffset
        if let entry = section.entry("receiver_config") {
            receiver.configMode = try section.enumValue(entry.node, ReceiverConfigMode.self, key: "receiver_config")
        }
        if let (path, location) = try section.string("leap_seconds") {
            guard path.hasPrefix("/") else {
                throw section.error("'\(path)' is not an absolute path to a leap-seconds.list file", key: "leap_seconds", at: location)
            }
            receiver.leapSecondsFile = path
        }
        receiver.batch = try readBatch(section, family: detects ? nil : family)
        return receiver
    }
}
