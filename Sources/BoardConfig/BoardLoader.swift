import Devices
import HardwareInterfaces

/// Reads a board file's text into a validated ``BoardDescription``.
///
/// Every check names the file, line, column and key: unknown keys are errors (with a "did you
/// mean" for near misses), missing required keys and wrong types are errors, and cross-checks
/// (one address per sensor, data-ready lines that exist, a UART on real boards, wake methods with
/// their lines) run after the tables are read. The loader does no I/O: callers pass the text.
public enum BoardLoader {
    /// How close to orthonormal (and to determinant +1) an orientation matrix must be.
    public static let orientationTolerance = 1e-6

    /// The keys allowed at the top level of a board file.
    public static let topLevelKeys = ["name", "title", "simulated", "receiver", "i2c", "sensor", "gpio", "setup", "sim", "replay", "bluetooth", "bluetooth_backend", "beacon_path_loss_exponent", "beacon_power_1m", "beacon", "ntrip", "gpsd_clients"]
    /// The keys allowed in `[receiver]`.
    public static let receiverKeys = ["name", "uart", "usb_vendor", "usb_product", "usb_serial", "baud", "family", "model", "wake", "output",
                                      "time_offset", "receiver_config", "leap_seconds", "batch"]
    /// The keys allowed in `[i2c]`.
    public static let i2cKeys = ["bus"]
    /// The keys allowed in each `[[sensor]]`.
    public static let sensorKeys = ["chip", "address", "orientation", "data_ready", "gyro", "gnss_course_aid"]
    /// The keys allowed in `[gpio]`: the chip, the line keys, and the per-line attribute lists.
    public static let gpioKeys = ["chip"] + GPIOFunction.allCases.map(\.rawValue) + ["active_low", "pull_up", "pull_down", "pps_device"]
    /// The keys allowed in `[setup]`.
    public static let setupKeys = ["notes"]
    /// The keys allowed in `[sim]`.
    public static let simKeys = ["latitude", "longitude", "altitude", "scenario", "receiver_model", "gyroscope_errors"]

    /// Parses and validates `text`, reporting errors against `file` (for example `Boards/sim.toml`).
    ///
    /// When `file` ends in `.toml`, the board's `name` must equal the file's base name.
    public static func load(text: String, file: String) throws(BoardError) -> BoardDescription {
        let document = try TOML.parse(text: text, file: file)
        let top = Section(table: document, title: "the top level", location: SourceLocation(line: 1, column: 1), file: file)
        if document.entries.isEmpty {
            throw BoardError(
                file: file, location: SourceLocation(line: 1, column: 1),
                message: "the file is empty; a board file needs at least name, title and simulated")
        }
        try top.checkKeys(topLevelKeys)

        let (name, nameLocation) = try top.requiredString("name", what: "the board's short name, e.g. \"pi4-neo-m9n-lsm303agr\"")
        try validateName(name, at: nameLocation, file: file)
        let title = try top.requiredString("title", what: "a human name for the board").value
        let simulated = try top.requiredBool("simulated", what: "true for simulated hardware, false for a real board").value

        let receiverSections = try receiverTables(top, file: file)
        let i2cSection = try top.table("i2c", file: file)
        let sensorSections = try top.arrayOfTables("sensor", file: file)
        let gpioSection = try top.table("gpio", file: file)
        let setupSection = try top.table("setup", file: file)
        let simSection = try top.table("sim", file: file)
        let replaySection = try top.table("replay", file: file)
        let ntripSection = try top.table("ntrip", file: file)

        let gpio = try gpioSection.map { section throws(BoardError) in try readGPIO(section) }
        let receivers = try readReceivers(receiverSections, simulated: simulated, gpio: gpio)
        let receiver = receivers.first
        if !simulated && receiver == nil {
            throw BoardError(
                file: file, location: top.entry("simulated")?.node.location, key: "receiver",
                message: "a real board (simulated = false) needs a [receiver] table with uart and baud (and family, or it is detected)")
        }

        var i2cBus: Int?
        if let i2cSection {
            try i2cSection.checkKeys(i2cKeys)
            let (bus, location) = try i2cSection.requiredInteger("bus", what: "the I2C bus number, 1 on a Raspberry Pi")
            guard (0...255).contains(bus) else {
                throw i2cSection.error("I2C bus \(bus) is out of range (0...255)", key: "bus", at: location)
            }
            i2cBus = bus
        }

        var sensors: [SensorDescription] = []
        var addresses: [UInt8: SourceLocation] = [:]
        for section in sensorSections {
            let (sensor, addressLocation) = try readSensor(section, gpio: gpio)
            if let first = addresses[sensor.address.rawValue] {
                throw section.error(
                    "two sensors at address \(sensor.address) on one bus (the other is at \(first))",
                    key: "address", at: addressLocation)
            }
            addresses[sensor.address.rawValue] = addressLocation
            sensors.append(sensor)
        }
        if !sensors.isEmpty, i2cBus == nil {
            throw BoardError(
                file: file, location: sensorSections.first?.location, key: "i2c",
                message: "[[sensor]] entries need an [i2c] table with the bus number")
        }
        // A chip hidden behind a host's bypass (the AK09916 in an ICM-20948) needs its host on the board.
        if let hidden = sensorSections.indices.first(where: { i in sensors[i].chip.entry.host.map { host in !sensors.contains { $0.chip == host } } ?? false }),
           let host = sensors[hidden].chip.entry.host {
            throw sensorSections[hidden].error(
                "the \(sensors[hidden].chip) answers only through an \(host)'s I2C bypass; add a [[sensor]] with chip = \"\(host.rawValue)\"",
                key: "chip", at: sensorSections[hidden].entry("chip")?.node.location)
        }

        var notes: [String] = []
        if let setupSection {
            try setupSection.checkKeys(setupKeys)
            notes = try setupSection.stringList("notes") ?? []
        }

        var simulation: SimulationDescription?
        if let simSection {
            guard simulated else {
                throw simSection.error("[sim] is only allowed when simulated = true", key: "sim", at: simSection.location)
            }
            simulation = try readSimulation(simSection)
        } else if simulated && replaySection == nil {
            throw BoardError(
                file: file, location: top.entry("simulated")?.node.location, key: "sim",
                message: "a simulated board needs a [sim] table with at least latitude and longitude")
        }

        let beacons = try readBeacons(try top.arrayOfTables("beacon", file: file), simulated: simulated)
        simulation?.beacons = beacons
        var board = BoardDescription(
            name: name, title: title, simulated: simulated, receiver: receiver, i2cBus: i2cBus,
            sensors: sensors, gpio: gpio, setupNotes: notes, simulation: simulation)
        board.otherReceivers = Array(receivers.dropFirst())
        board.bluetooth = try readBluetooth(top)
        try readBeaconSettings(top, into: &board)
        if let replaySection {
            let replay = try readReplay(replaySection, board: board, file: file)
            board.replay = replay
            let replayed = replayReceivers(replay)
            if !replayed.isEmpty {
                board.receiver = replayed.first
                board.otherReceivers = Array(replayed.dropFirst())
            }
        }
        board.ntrip = try ntripSection.map { section throws(BoardError) in try readNTRIP(section) }
        board.gpsdClients = try readGPSDClients(top)
        return board
    }

    // MARK: Sections

    private static func validateName(_ name: String, at location: SourceLocation, file: String) throws(BoardError) {
        let allowed = !name.isEmpty && name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
        guard allowed else {
            throw BoardError(file: file, location: location, key: "name",
                             message: "'\(name)' is not a board name (use lower-case letters, digits and '-')")
        }
        guard file.hasSuffix(".toml") else { return }
        let base = String(file.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(file)).dropLast(5)
        guard base == name else {
            throw BoardError(file: file, location: location, key: "name",
                             message: "'\(name)' does not match the file name; it must be '\(base)'")
        }
    }

    private static func readSensor(_ section: Section, gpio: GPIODescription?) throws(BoardError) -> (SensorDescription, SourceLocation) {
        try section.checkKeys(sensorKeys)
        let chip = try section.requiredName("chip", what: "the sensor chip", names: SensorChip.boardNames, lookup: SensorChip.init(boardSpelling:))
        let (rawAddress, addressLocation) = try section.requiredInteger("address", what: "the chip's I2C address, e.g. 0x1e")
        let allowed = chip.addresses
        guard let byte = UInt8(exactly: rawAddress), allowed.contains(byte), let address = I2CAddress(byte) else {
            let list = allowed.map { hex($0) }.joined(separator: " or ")
            let shown = UInt8(exactly: rawAddress).map { hex($0) } ?? String(rawAddress)
            throw section.error("\(chip.rawValue) cannot be at address \(shown); it answers at \(list)",
                                key: "address", at: addressLocation)
        }
        let orientation = try readOrientation(section)
        var dataReady: GPIOFunction?
        if let entry = section.entry("data_ready") {
            let function = try section.enumValue(entry.node, GPIOFunction.self, key: "data_ready")
            guard let gpio, gpio.line(function) != nil else {
                throw section.error("'\(function.rawValue)' names no line: add \(function.rawValue) to [gpio]",
                                    key: "data_ready", at: entry.node.location)
            }
            guard !function.isOutput else {
                throw section.error("'\(function.rawValue)' is an output line, not a data-ready input",
                                    key: "data_ready", at: entry.node.location)
            }
            dataReady = function
        }
        let gyroscope = try readGyroscope(section, chip: chip)
        return (SensorDescription(chip: chip, address: address, orientation: orientation, dataReady: dataReady,
                                  gyroscopeRange: gyroscope.range, gnssCourseAid: gyroscope.courseAid), addressLocation)
    }

    private static func readOrientation(_ section: Section) throws(BoardError) -> MountMatrix {
        guard let entry = section.entry("orientation") else {
            throw section.error(
                "missing required key in \(section.title): the 3x3 matrix from sensor axes to the body frame "
                    + "(x forward, y right, z down), e.g. [[1, 0, 0], [0, 1, 0], [0, 0, 1]]",
                key: "orientation", at: section.location)
        }
        let shapeError = section.error("expected a 3x3 matrix of numbers, e.g. [[1, 0, 0], [0, 1, 0], [0, 0, 1]]",
                                       key: "orientation", at: entry.node.location)
        guard case .array(let rowNodes) = entry.node.value, rowNodes.count == 3 else { throw shapeError }
        var rows: [[Double]] = []
        for rowNode in rowNodes {
            guard case .array(let cells) = rowNode.value, cells.count == 3 else { throw shapeError }
            var row: [Double] = []
            for cell in cells {
                switch cell.value {
                case .integer(let value): row.append(Double(value))
                case .float(let value): row.append(value)
                default:
                    throw section.error("matrix entries must be numbers, found \(cell.value.typeName)",
                                        key: "orientation", at: cell.location)
                }
            }
            rows.append(row)
        }
        let matrix = MountMatrix(uncheckedRows: rows)
        let deviation = matrix.orthonormalityError
        guard deviation <= orientationTolerance else {
            throw section.error(
                "the matrix is not orthonormal (rows must be unit length and perpendicular; off by \(deviation)); "
                    + "each row should be a body axis written in sensor axes",
                key: "orientation", at: entry.node.location)
        }
        let determinant = matrix.determinant
        guard abs(determinant - 1) <= orientationTolerance else {
            throw section.error(
                "the matrix has determinant \(determinant), not +1: it is a reflection (a mirrored axis), "
                    + "not a rotation; negate one row",
                key: "orientation", at: entry.node.location)
        }
        return matrix
    }

    private static func readGPIO(_ section: Section) throws(BoardError) -> GPIODescription {
        try section.checkKeys(gpioKeys)
        let chip = try section.requiredString("chip", what: "the GPIO chip as libgpiod names it, e.g. \"gpiochip0\"").value
        var lines: [GPIOFunction: GPIOLineID] = [:]
        var seen: [GPIOLineID: GPIOFunction] = [:]
        for function in GPIOFunction.allCases {
            guard let entry = section.entry(function.rawValue) else { continue }
            let line: GPIOLineID
            switch entry.node.value {
            case .string(let name) where !name.isEmpty: line = .name(name)
            case .integer(let offset) where (0...4095).contains(offset): line = .offset(offset)
            case .integer(let offset):
                throw section.error("line offset \(offset) is out of range (0...4095)", key: function.rawValue, at: entry.node.location)
            default:
                throw section.error("expected a line name (\"GPIO17\") or offset, found \(describe(entry.node.value))",
                                    key: function.rawValue, at: entry.node.location)
            }
            if let other = seen[line] {
                throw section.error("\(line) is already used by '\(other.rawValue)'", key: function.rawValue, at: entry.node.location)
            }
            seen[line] = function
            lines[function] = line
        }
        var activeLow: Set<GPIOFunction> = []
        var bias: [GPIOFunction: GPIOBias] = [:]
        for (key, pull) in [("active_low", GPIOBias?.none), ("pull_up", .pullUp), ("pull_down", .pullDown)] {
            guard let entry = section.entry(key) else { continue }
            guard case .array(let items) = entry.node.value else {
                throw section.error("expected an array of line keys, e.g. [\"gnss_reset\"], found \(entry.node.value.typeName)",
                                    key: key, at: entry.node.location)
            }
            for item in items {
                let function = try section.enumValue(item, GPIOFunction.self, key: key)
                guard lines[function] != nil else {
                    throw section.error("'\(function.rawValue)' names no line in [gpio]", key: key, at: item.location)
                }
                if let pull {
                    guard !function.isOutput else {
                        throw section.error("'\(function.rawValue)' is an output; pulls apply to inputs", key: key, at: item.location)
                    }
                    if bias[function] != nil {
                        throw section.error("'\(function.rawValue)' already has a pull", key: key, at: item.location)
                    }
                    bias[function] = pull
                } else {
                    if activeLow.contains(function) {
                        throw section.error("'\(function.rawValue)' is listed twice", key: key, at: item.location)
                    }
                    activeLow.insert(function)
                }
            }
        }
        var description = GPIODescription(chip: chip, lines: lines, activeLow: activeLow, bias: bias)
        if let device = try section.string("pps_device") {
            guard device.value.hasPrefix("/dev/"), device.value.count > 5 else {
                throw section.error("pps_device '\(device.value)' is not a device path such as \"/dev/pps0\"", key: "pps_device", at: device.location)
            }
            if lines[.gnssPPS] != nil {
                throw section.error("pps_device and gnss_pps name two PPS sources: with the pps-gpio overlay the kernel owns the line, so keep pps_device only",
                                    key: "pps_device", at: device.location)
            }
            description.ppsDevice = device.value
        }
        return description
    }

    static func describe(_ value: TOMLValue) -> String {
        if case .string(let s) = value, s.isEmpty { return "an empty string" }
        return value.typeName
    }
}

/// One table of a board file with typed, error-reporting accessors.
struct Section {
    let table: TOMLTable
    /// How messages name the table: `the top level`, `[receiver]`, `[[sensor]] #2`.
    let title: String
    /// The table's header (1:1 for the top level).
    let location: SourceLocation
    let file: String

    func entry(_ key: String) -> TOMLTable.Entry? { table.entry(key) }

    func error(_ message: String, key: String?, at location: SourceLocation?) -> BoardError {
        BoardError(file: file, location: location ?? self.location, key: key, message: message)
    }

    /// Unknown keys are errors, with a suggestion when a known key is close.
    func checkKeys(_ known: [String]) throws(BoardError) {
        for entry in table.entries where !known.contains(entry.key) {
            throw error("unknown key in \(title)\(Spelling.didYouMean(entry.key, among: known)); allowed: \(known.joined(separator: ", "))",
                        key: entry.key, at: entry.keyLocation)
        }
    }

    func missing(_ key: String, what: String) -> BoardError {
        error("missing required key in \(title) (\(what))", key: key, at: location)
    }

    func wrongType(_ key: String, expected: String, node: TOMLNode) -> BoardError {
        error("expected \(expected), found \(BoardLoader.describe(node.value))", key: key, at: node.location)
    }

    func string(_ key: String) throws(BoardError) -> (value: String, location: SourceLocation)? {
        guard let entry = entry(key) else { return nil }
        guard case .string(let value) = entry.node.value else { throw wrongType(key, expected: "a string", node: entry.node) }
        guard !value.isEmpty else { throw error("must not be empty", key: key, at: entry.node.location) }
        return (value, entry.node.location)
    }

    func requiredString(_ key: String, what: String) throws(BoardError) -> (value: String, location: SourceLocation) {
        guard let result = try string(key) else { throw missing(key, what: what) }
        return result
    }

    func requiredBool(_ key: String, what: String) throws(BoardError) -> (value: Bool, location: SourceLocation) {
        guard let entry = entry(key) else { throw missing(key, what: what) }
        guard case .boolean(let value) = entry.node.value else { throw wrongType(key, expected: "true or false", node: entry.node) }
        return (value, entry.node.location)
    }

    func requiredInteger(_ key: String, what: String) throws(BoardError) -> (value: Int, location: SourceLocation) {
        guard let entry = entry(key) else { throw missing(key, what: what) }
        guard case .integer(let value) = entry.node.value else { throw wrongType(key, expected: "an integer", node: entry.node) }
        return (value, entry.node.location)
    }

    func number(_ key: String) throws(BoardError) -> (value: Double, location: SourceLocation)? {
        guard let entry = entry(key) else { return nil }
        switch entry.node.value {
        case .integer(let value): return (Double(value), entry.node.location)
        case .float(let value): return (value, entry.node.location)
        default: throw wrongType(key, expected: "a number", node: entry.node)
        }
    }

    func requiredNumber(_ key: String, what: String) throws(BoardError) -> (value: Double, location: SourceLocation) {
        guard let result = try number(key) else { throw missing(key, what: what) }
        return result
    }

    func stringList(_ key: String) throws(BoardError) -> [String]? {
        guard let entry = entry(key) else { return nil }
        guard case .array(let items) = entry.node.value else { throw wrongType(key, expected: "an array of strings", node: entry.node) }
        var strings: [String] = []
        for item in items {
            guard case .string(let value) = item.value else { throw wrongType(key, expected: "a string", node: item) }
            strings.append(value)
        }
        return strings
    }

    func enumValue<E: RawRepresentable & CaseIterable>(_ node: TOMLNode, _ type: E.Type, key: String) throws(BoardError) -> E
    where E.RawValue == String {
        try namedValue(node, key: key, names: E.allCases.map(\.rawValue), lookup: E.init(rawValue:))
    }

    func requiredEnum<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type, what: String) throws(BoardError) -> E
    where E.RawValue == String {
        guard let entry = entry(key) else {
            throw missing(key, what: "\(what): one of \(E.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return try enumValue(entry.node, type, key: key)
    }

    /// The sub-table `key` (written `[key]`), or nil when absent.
    func table(_ key: String, file: String) throws(BoardError) -> Section? {
        guard let entry = entry(key) else { return nil }
        switch entry.node.value {
        case .table(let inner):
            return Section(table: inner, title: "[\(key)]", location: entry.keyLocation, file: file)
        case .array(let elements) where elements.contains(where: \.isTable):
            throw error("write [\(key)] once, not [[\(key)]]", key: key, at: entry.keyLocation)
        default:
            throw error("expected a [\(key)] table, found \(entry.node.value.typeName)", key: key, at: entry.keyLocation)
        }
    }

    /// The tables of `[[key]]`, or none when absent.
    func arrayOfTables(_ key: String, file: String) throws(BoardError) -> [Section] {
        guard let entry = entry(key) else { return [] }
        let wrong = error("expected one [[\(key)]] table per item, found \(entry.node.value.typeName)", key: key, at: entry.keyLocation)
        guard case .array(let elements) = entry.node.value else { throw wrong }
        var sections: [Section] = []
        for (index, element) in elements.enumerated() {
            guard case .table(let inner) = element.value else { throw wrong }
            sections.append(Section(table: inner, title: "[[\(key)]] #\(index + 1)", location: element.location, file: file))
        }
        return sections
    }
}
