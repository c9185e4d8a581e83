import FieldLocation
import ReceiverProtocols

/// `fieldloc detect`'s report for a person and as one JSON object.
extension DetectReport {
    /// The report as text for a person, with advice where nothing answered.
    public var text: String {
        var out = ""
        if buses.isEmpty {
            out += "I2C: no buses (/dev/i2c-*). Enable I2C: raspi-config nonint do_i2c 0 (or dtparam=i2c_arm=on in config.txt), then modprobe i2c-dev.\n"
        }
        for bus in buses {
            out += "I2C bus \(bus.number):\n"
            if let error = bus.error {
                out += "  not scanned: \(error)\n"
                continue
            }
            if bus.findings.isEmpty {
                out += "  nothing answers at any supported sensor address. Check SDA/SCL, 3.3 V and ground; run i2cdetect -y \(bus.number).\n"
            }
            for finding in bus.findings {
                out += "  \(finding.address)  " + (finding.chip.map { "\($0.rawValue)  (\(finding.note))" } ?? "unknown device  (\(finding.note))") + "\n"
            }
        }
        if ports.isEmpty { out += "Serial: no candidate ports (/dev/serial0, /dev/ttyAMA0, /dev/ttyS0, /dev/ttyUSB*, /dev/ttyACM*).\n" }
        for port in ports {
            out += "Serial \(port.path):\n"
            if let error = port.error {
                out += "  not probed: \(error)\n"
                continue
            }
            guard let result = port.result else { continue }
            if let baud = result.baudRate, let identity = result.identity {
                out += "  receiver at \(baud) baud: \(identity)\n"
                out += "  sentences: \(result.sentenceTypes.joined(separator: " "))\n"
                let caps = identity.family.capabilities
                out += "  capabilities: up to \(caps.maximumRateHz) Hz; power modes \(caps.powerModes.map(\.rawValue).sorted().joined(separator: ", ")); wake by \(caps.wakeMethods.map(\.rawValue).sorted().joined(separator: ", "))\n"
            } else {
                out += "  no receiver found\n"
                for step in result.steps.prefix(12) { out += "    \(step)\n" }
                for advice in result.advice { out += "  - \(advice)\n" }
            }
        }
        return out
    }

    /// The report as one JSON object.
    public var json: String {
        let quote = JSONText.quote
        let busItems = buses.map { bus -> String in
            let findings = bus.findings.map { f in
                "{\"address\":\(quote(f.address.description)),\"chip\":\(f.chip.map { quote($0.rawValue) } ?? "null"),\"note\":\(quote(f.note))}"
            }
            return "{\"bus\":\(bus.number),\"devices\":[\(findings.joined(separator: ","))]"
                + (bus.error.map { ",\"error\":\(quote($0.description))" } ?? "") + "}"
        }
        let portItems = ports.map { port -> String in
            var item = "{\"path\":\(quote(port.path))"
            if let error = port.error { item += ",\"error\":\(quote(error.description))" }
            if let r = port.result {
                item += ",\"baud\":" + (r.baudRate.map(String.init) ?? "null")
                if let identity = r.identity {
                    item += ",\"family\":\(quote(identity.family.rawValue))"
                    if let model = identity.model { item += ",\"model\":\(quote(model))" }
                    if let firmware = identity.firmware { item += ",\"firmware\":\(quote(firmware))" }
                    if let protocolVersion = identity.protocolVersion { item += ",\"protver\":\(quote(protocolVersion))" }
                }
                item += ",\"sentences\":[\(r.sentenceTypes.map(quote).joined(separator: ","))]"
                item += ",\"advice\":[\(r.advice.map(quote).joined(separator: ","))]"
            }
            return item + "}"
        }
        return "{\"i2c\":[\(busItems.joined(separator: ","))],\"serial\":[\(portItems.joined(separator: ","))]}"
    }
}
