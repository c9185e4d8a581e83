import HardwareInterfaces

/// Which devices the checks use and what stands behind them, read from environment variables so
/// the same checks run in the QEMU guest and on a Raspberry Pi.
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `FIELDLOC_HIL_I2C_BUS` | `1` | `/dev/i2c-N` with the LSM303AGR |
/// | `FIELDLOC_HIL_ACCEL_ADDR` | `0x19` | accelerometer die |
/// | `FIELDLOC_HIL_MAG_ADDR` | `0x1e` | magnetometer die |
/// | `FIELDLOC_HIL_ABSENT_ADDR` | `0x2a` | an address nothing answers on that bus |
/// | `FIELDLOC_HIL_MISSING_BUS` | `63` | a bus number with no `/dev/i2c-N` |
/// | `FIELDLOC_HIL_GPIOCHIP` | `gpiochip0` | chip with the GNSS lines |
/// | `FIELDLOC_HIL_ENABLE_LINE` | `gnss-enable` | the receiver's enable output (name or offset) |
/// | `FIELDLOC_HIL_PPS_LINE` | `gnss-pps` | the receiver's PPS input (name or offset) |
/// | `FIELDLOC_HIL_TTY` | `/dev/serial0` | the receiver's UART |
/// | `FIELDLOC_HIL_BAUD` | `9600` | its rate |
/// | `FIELDLOC_HIL_PRIVACY_LINE` | `privacy-switch` | the privacy switch input (active low) |
/// | `FIELDLOC_HIL_LIGHT_LINE` | `in-use-light` | the in-use light output |
/// | `FIELDLOC_HIL_GPIO_OBSERVER` | unset | folder with `<line>/value` and `<line>/pull` (gpio-sim); set = simulated lines |
/// | `FIELDLOC_HIL_STUB_FIXTURE` | `0` | `1`: the I2C registers hold ``StubFixture``'s values (i2c-stub) |
/// | `FIELDLOC_HIL_GNSS_FIXTURE` | `0` | `1`: the receiver is the host simulator (fixed position) |
/// | `FIELDLOC_HIL_PMTK` | `0` | `1`: the receiver acknowledges `$PMTK220` (MediaTek) |
/// | `FIELDLOC_HIL_PPS` | `0` | `1`: a real PPS pulses on the PPS line (receiver has a fix) |
/// | `FIELDLOC_HIL_STILL` | `1` | `1`: the board lies still (accelerometer reads about 1 g) |
/// | `FIELDLOC_HIL_USB_TTY` | unset | a USB serial adapter wired to the host simulator, which can unplug it (QEMU guest) |
/// | `FIELDLOC_HIL_PPS_DEVICE` | unset | a kernel PPS device (`/dev/pps0`) |
/// | `FIELDLOC_HIL_PPS_TRIGGER_PORT` | unset | the I/O port whose write makes that source pulse (QEMU's parallel control register, 0x37a) |
public struct HILConfiguration: Sendable, Equatable {
    /// The I2C bus number.
    public var i2cBus: Int
    /// The LSM303AGR accelerometer die.
    public var accelerometerAddress: I2CAddress
    /// The LSM303AGR magnetometer die.
    public var magnetometerAddress: I2CAddress
    /// An address no device answers on ``i2cBus``.
    public var absentAddress: I2CAddress
    /// A bus number that does not exist.
    public var missingBus: Int
    /// The GPIO chip, for example `gpiochip0`.
    public var gpioChip: String
    /// The receiver's enable line.
    public var enableLine: GPIOLineID
    /// The receiver's PPS line.
    public var ppsLine: GPIOLineID
    /// The privacy switch's input line (`FIELDLOC_HIL_PRIVACY_LINE`).
    public var privacyLine: GPIOLineID = .name("privacy-switch")
    /// The in-use light's output line (`FIELDLOC_HIL_LIGHT_LINE`).
    public var lightLine: GPIOLineID = .name("in-use-light")
    /// The receiver's serial port.
    public var gnssTTY: String
    /// The receiver's rate.
    public var gnssBaudRate: BaudRate
    /// Where the simulated lines' `value` and `pull` attributes are, by line name; `nil` on real hardware.
    public var gpioObserver: String?
    /// Whether the I2C registers were preloaded with ``StubFixture``.
    public var stubFixture: Bool
    /// Whether the receiver is the host simulator with its fixed position.
    public var gnssFixture: Bool
    /// Whether the receiver acknowledges `$PMTK` commands.
    public var acknowledgesPMTK: Bool
    /// Whether a real PPS signal is present.
    public var realPPS: Bool
    /// Whether the board lies still.
    public var still: Bool
    /// A USB serial adapter wired to the host simulator, which unplugs and replugs it on request.
    public var usbTTY: String?
    /// A kernel PPS device (`/dev/ppsN`).
    public var ppsDevice: String?
    /// The I/O port (through `/dev/port`) whose write makes ``ppsDevice`` pulse; `nil`: pulses come by themselves.
    public var ppsTriggerPort: Int?

    /// Creates a configuration with the Raspberry Pi defaults of the table above.
    public init(
        i2cBus: Int = 1,
        accelerometerAddress: I2CAddress = HILConfiguration.lsm303agrAccelerometer,
        magnetometerAddress: I2CAddress = HILConfiguration.lsm303agrMagnetometer,
        absentAddress: I2CAddress = HILConfiguration.defaultAbsentAddress,
        missingBus: Int = 63,
        gpioChip: String = "gpiochip0",
        enableLine: GPIOLineID = .name("gnss-enable"),
        ppsLine: GPIOLineID = .name("gnss-pps"),
        gnssTTY: String = "/dev/serial0",
        gnssBaudRate: BaudRate = .b9600,
        gpioObserver: String? = nil,
        stubFixture: Bool = false,
        gnssFixture: Bool = false,
        acknowledgesPMTK: Bool = false,
        realPPS: Bool = false,
        still: Bool = true
    ) {
        self.i2cBus = i2cBus
        self.accelerometerAddress = accelerometerAddress
        self.magnetometerAddress = magnetometerAddress
        self.absentAddress = absentAddress
        self.missingBus = missingBus
        self.gpioChip = gpioChip
        self.enableLine = enableLine
        self.ppsLine = ppsLine
        self.gnssTTY = gnssTTY
        self.gnssBaudRate = gnssBaudRate
        self.gpioObserver = gpioObserver
        self.stubFixture = stubFixture
        self.gnssFixture = gnssFixture
        self.acknowledgesPMTK = acknowledgesPMTK
        self.realPPS = realPPS
        self.still = still
    }

    /// Reads the variables of the table above through `environment` (for example `getenv`);
    /// unset variables keep their defaults. A malformed value throws an error naming the variable.
    public init(environment: (String) -> String?) throws(HILConfigurationError) {
        self.init()
        func value(_ key: String) -> String? {
            guard let text = environment(key)?.trimmingSpaces, !text.isEmpty else { return nil }
            return text
        }
        func integer(_ key: String, _ range: ClosedRange<Int>) throws(HILConfigurationError) -> Int? {
            guard let text = value(key) else { return nil }
            guard let number = parseInteger(text), range.contains(number) else {
                throw HILConfigurationError(variable: key, value: text,
                                            expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        }
        func address(_ key: String) throws(HILConfigurationError) -> I2CAddress? {
            guard let number = try integer(key, 0x03...0x77) else { return nil }
            return I2CAddress(number)
        }
        func flag(_ key: String) throws(HILConfigurationError) -> Bool? {
            guard let text = value(key) else { return nil }
            switch text {
            case "1", "yes", "true": return true
            case "0", "no", "false": return false
            default: throw HILConfigurationError(variable: key, value: text, expected: "1 or 0")
            }
        }
        func line(_ key: String) throws(HILConfigurationError) -> GPIOLineID? {
            guard let text = value(key) else { return nil }
            if let offset = parseInteger(text) {
                guard offset >= 0 else {
                    throw HILConfigurationError(variable: key, value: text, expected: "a line name or an offset >= 0")
                }
                return .offset(offset)
            }
            return .name(text)
        }

        if let v = try integer("FIELDLOC_HIL_I2C_BUS", 0...1023) { i2cBus = v }
        if let v = try address("FIELDLOC_HIL_ACCEL_ADDR") { accelerometerAddress = v }
        if let v = try address("FIELDLOC_HIL_MAG_ADDR") { magnetometerAddress = v }
        if let v = try address("FIELDLOC_HIL_ABSENT_ADDR") { absentAddress = v }
        if let v = try integer("FIELDLOC_HIL_MISSING_BUS", 0...1023) { missingBus = v }
        if let v = value("FIELDLOC_HIL_GPIOCHIP") { gpioChip = v }
        if let v = try line("FIELDLOC_HIL_ENABLE_LINE") { enableLine = v }
        if let v = try line("FIELDLOC_HIL_PPS_LINE") { ppsLine = v }
        if let v = try line("FIELDLOC_HIL_PRIVACY_LINE") { privacyLine = v }
        if let v = try line("FIELDLOC_HIL_LIGHT_LINE") { lightLine = v }
        if let v = value("FIELDLOC_HIL_TTY") { gnssTTY = v }
        if let text = value("FIELDLOC_HIL_BAUD") {
            guard let number = parseInteger(text), let rate = BaudRate(number) else {
                throw HILConfigurationError(variable: "FIELDLOC_HIL_BAUD", value: text,
                                            expected: "one of \(BaudRate.standard.map(String.init).joined(separator: ", "))")
            }
            gnssBaudRate = rate
        }
        gpioObserver = value("FIELDLOC_HIL_GPIO_OBSERVER")
        if let v = try flag("FIELDLOC_HIL_STUB_FIXTURE") { stubFixture = v }
        if let v = try flag("FIELDLOC_HIL_GNSS_FIXTURE") { gnssFixture = v }
        if let v = try flag("FIELDLOC_HIL_PMTK") { acknowledgesPMTK = v }
        if let v = try flag("FIELDLOC_HIL_PPS") { realPPS = v }
        if let v = try flag("FIELDLOC_HIL_STILL") { still = v }
        usbTTY = value("FIELDLOC_HIL_USB_TTY")
        ppsDevice = value("FIELDLOC_HIL_PPS_DEVICE")
        ppsTriggerPort = try integer("FIELDLOC_HIL_PPS_TRIGGER_PORT", 0...0xffff)
        if missingBus == i2cBus {
            throw HILConfigurationError(variable: "FIELDLOC_HIL_MISSING_BUS", value: String(missingBus),
                                        expected: "a bus other than FIELDLOC_HIL_I2C_BUS")
        }
    }

    /// The variable names ``init(environment:)`` reads.
    public static let variables = [
        "FIELDLOC_HIL_I2C_BUS", "FIELDLOC_HIL_ACCEL_ADDR", "FIELDLOC_HIL_MAG_ADDR", "FIELDLOC_HIL_ABSENT_ADDR",
        "FIELDLOC_HIL_MISSING_BUS", "FIELDLOC_HIL_GPIOCHIP", "FIELDLOC_HIL_ENABLE_LINE", "FIELDLOC_HIL_PPS_LINE",
        "FIELDLOC_HIL_TTY", "FIELDLOC_HIL_BAUD", "FIELDLOC_HIL_GPIO_OBSERVER", "FIELDLOC_HIL_STUB_FIXTURE",
        "FIELDLOC_HIL_GNSS_FIXTURE", "FIELDLOC_HIL_PMTK", "FIELDLOC_HIL_PPS", "FIELDLOC_HIL_STILL",
        "FIELDLOC_HIL_USB_TTY", "FIELDLOC_HIL_PPS_DEVICE", "FIELDLOC_HIL_PPS_TRIGGER_PORT",
    ]
}

/// A malformed environment variable.
public struct HILConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The variable's name.
    public var variable: String
    /// Its value.
    public var value: String
    /// What it should be.
    public var expected: String

    /// Creates an error.
    public init(variable: String, value: String, expected: String) {
        self.variable = variable
        self.value = value
        self.expected = expected
    }

    /// `FIELDLOC_HIL_BAUD=9601: expected one of 4800, ...`.
    public var description: String { "\(variable)=\(value): expected \(expected)" }
}

extension HILConfiguration {
    // Literals inside 0x03...0x77, so the unwraps cannot fail (as `BaudRate.b9600` does).
    /// 0x19, the LSM303AGR accelerometer die.
    public static let lsm303agrAccelerometer = I2CAddress(UInt8(0x19))!
    /// 0x1e, the LSM303AGR magnetometer die.
    public static let lsm303agrMagnetometer = I2CAddress(UInt8(0x1E))!
    /// 0x2a, an address no chip of this project uses.
    public static let defaultAbsentAddress = I2CAddress(UInt8(0x2A))!
}

/// Parses `42`, `0x2a` or `0X2A`; `nil` for anything else.
func parseInteger(_ text: String) -> Int? {
    if text.hasPrefix("0x") || text.hasPrefix("0X") { return Int(text.dropFirst(2), radix: 16) }
    return Int(text)
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\n" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\n" { scalars.removeLast() }
        return String(scalars)
    }
}
