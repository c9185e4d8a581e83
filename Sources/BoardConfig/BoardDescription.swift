import Devices
import HardwareInterfaces

/// One hardware assembly as a board file describes it: which receiver on which UART, which
/// sensors on which I2C bus and how they are mounted, which GPIO lines do what, and what a person
/// must set up on the computer. Produced by ``BoardLoader/load(text:file:)``, fully validated.
public struct BoardDescription: Sendable, Equatable {
    /// The board's short name, equal to its file name without `.toml` (`pi4-neo-m9n-lsm303agr`).
    public var name: String
    /// A human name (`Raspberry Pi 4 + u-blox NEO-M9N + LSM303AGR`).
    public var title: String
    /// Whether the receiver and sensors are simulated (no hardware is opened).
    public var simulated: Bool
    /// The GNSS receiver (the first `[[receiver]]` when the board names several). Always present on
    /// a real board; optional on a simulated one. Its control lines are the `[gpio]` ones.
    public var receiver: ReceiverDescription?
    /// The receivers after the first (`[[receiver]]` tables 2, 3, ...): sources the engine opens
    /// as they appear and chooses from per epoch (docs/RECEIVER-CONFIG.md). Empty for a board with
    /// one `[receiver]`.
    public var otherReceivers: [ReceiverDescription] = []
    /// Every receiver of the board, the first (``receiver``) first.
    public var receivers: [ReceiverDescription] { (receiver.map { [$0] } ?? []) + otherReceivers }
    /// The I2C bus number the sensors are on; present whenever there are sensors.
    public var i2cBus: Int?
    /// The magnetometers and accelerometers, in file order.
    public var sensors: [SensorDescription]
    /// GPIO lines wired to the receiver and sensors, if any.
    public var gpio: GPIODescription?
    /// What a person must do on the computer before the board works, one step per entry.
    public var setupNotes: [String]
    /// The simulation's parameters; present when ``simulated`` is true, unless the board replays
    /// a recording (``replay``).
    public var simulation: SimulationDescription?
    /// A recorded session the board replays instead of simulating (`[replay]`); such a board is
    /// `simulated = true` and has no `[sim]`.
    public var replay: ReplayDescription? = nil
    /// The Bluetooth adapter that scans for beacons (`bluetooth = "hci0"`), if any.
    public var bluetooth: String? = nil
    /// Which Linux stack scans with ``bluetooth`` (`bluetooth_backend`): BlueZ when `bluetoothd`
    /// runs, else the kernel's HCI socket (`auto`, the default), or one of them only.
    public var bluetoothBackend: BluetoothBackend = .auto
    /// A site's path-loss exponent `n` for beacon ranging (`beacon_path_loss_exponent`), as
    /// `fieldloc beacons calibrate` fits it; `nil` keeps the default (2).
    public var beaconPathLossExponent: Double? = nil
    /// A site's RSSI at 1 m for beacon ranging, dBm (`beacon_power_1m`), replacing the power every
    /// beacon advertises; `nil` uses the advertised power.
    public var beaconPower1m: Double? = nil
    /// RTK/DGPS corrections from an NTRIP caster (`[ntrip]`), if configured.
    public var ntrip: NTRIPBoardSettings?
    /// The demand fieldlocd's gpsd and NMEA-TCP watchers add (`gpsd_clients`): ``GPSDClientDemand/best``
    /// by default; ``GPSDClientDemand/passive`` lets them see only the fixes other clients cause.
    public var gpsdClients: GPSDClientDemand = .best

    /// Creates a description. ``BoardLoader`` is the validating way to get one.
    public init(
        name: String, title: String, simulated: Bool, receiver: ReceiverDescription?, i2cBus: Int?,
        sensors: [SensorDescription], gpio: GPIODescription?, setupNotes: [String], simulation: SimulationDescription?
    ) {
        self.name = name
        self.title = title
        self.simulated = simulated
        self.receiver = receiver
        self.i2cBus = i2cBus
        self.sensors = sensors
        self.gpio = gpio
        self.setupNotes = setupNotes
        self.simulation = simulation
    }

    /// The first sensor that measures the magnetic field, if any.
    public var magnetometer: SensorDescription? { sensors.first { $0.role.measuresMagneticField } }

    /// The first sensor that measures acceleration, if any.
    public var accelerometer: SensorDescription? { sensors.first { $0.role.measuresAcceleration } }
}

/// A way to wake the receiver from its low-power state.
public enum WakeMethod: String, Sendable, Hashable, CaseIterable {
    /// Send a byte on the UART (u-blox RX activity, MTK standby).
    case uartByte = "uart-byte"
    /// Pulse the receiver's EXTINT pin (u-blox); needs `[gpio] gnss_extint`.
    case extint
    /// Switch the receiver's supply or enable pin; needs `[gpio] gnss_power_enable`.
    case powerEnable = "power-enable"
}

/// How the engine treats the receiver's own configuration (board key `receiver_config`,
/// `fieldlocd --receiver-config`); docs/RECEIVER-CONFIG.md says what each family reads, writes and restores.
public enum ReceiverConfigMode: String, Sendable, Hashable, CaseIterable {
    /// Never write a byte to the receiver: no identification, no settings, no power commands.
    case passive
    /// Read the settings before changing them, change them in RAM only, and put the read ones back on exit.
    case ram
    /// Change the settings and save them to the receiver's non-volatile memory (flash or BBR),
    /// verified by reading them back; nothing is restored on exit.
    case persist
}

/// The GNSS receiver and its serial link.
public struct ReceiverDescription: Sendable, Equatable {
    /// The name the board gives it (`name`), for status and logs; `nil` when unnamed.
    public var name: String?
    /// The serial device (`/dev/serial0`); absent on a simulated board and for a receiver found
    /// by its USB identity (``usb``).
    public var uart: String?
    /// The USB identity of a USB receiver as udev gives it (`usb_vendor`, `usb_product`,
    /// `usb_serial`): the engine opens the serial node of the device that matches, when one is
    /// plugged in. `nil` for a receiver on a fixed port.
    public var usb: USBSerialMatch?
    /// The receiver's baud rate as it starts up (or as it has been configured to).
    public var baudRate: BaudRate
    /// The command-set family: the board file's, or ``ReceiverFamily/genericNMEA`` until a
    /// receiver whose family is detected (``detectsFamily``) is identified on its arrival.
    public var family: ReceiverFamily
    /// Whether the family is found on the receiver's arrival (`family = "auto"`, or no `family`)
    /// rather than named by the board file; see ``identified(as:model:)``.
    public var detectsFamily = false
    /// The `output` the board file asked for, `nil` when it asked for none (``output`` is then the
    /// family's default, chosen again once a detected family is known).
    public var requestedOutput: ReceiverOutputMode?
    /// The module's name as people buy it (`NEO-M9N`), free text.
    public var model: String?
    /// How to wake it, in order of preference; empty when it cannot be woken (always on).
    public var wake: [WakeMethod]
    /// What the receiver is told to output (`output = nmea | binary | both`); see
    /// ``ReceiverOutputMode/default(family:model:)`` for the default.
    public var output: ReceiverOutputMode
    /// Seconds from the start of a UTC second to the first byte of the receiver's epoch for it
    /// (`time_offset`, gpsd's `fudge time1`, chrony's `offset`); the time service adds it to the
    /// serial time. `fieldlocd` measures it against PPS and reports it.
    public var timeOffset: Double = 0
    /// How the engine treats the receiver's settings (`receiver_config`): ``ReceiverConfigMode/ram`` by default.
    public var configMode: ReceiverConfigMode = .ram
    /// A leap-second list in the IERS/NIST `leap-seconds.list` format (`leap_seconds`, for example
    /// tzdata's), read at start in place of the package's built-in table: the leap seconds used for a
    /// receiver that gives GPS time without them. `nil`: the built-in table.
    public var leapSecondsFile: String?
    /// Fixes the receiver keeps in its own buffer while nobody reads it (`batch`, u-blox M8 data
    /// batching): drained when the engine starts and handed to clients that batch or defer, with
    /// the fixes' own times. `nil`: no receiver-side batching.
    public var batch: Int?

    /// Creates a receiver description; `output` defaults to the family's and model's default.
    public init(uart: String?, baudRate: BaudRate, family: ReceiverFamily, model: String?, wake: [WakeMethod],
                output: ReceiverOutputMode? = nil) {
        self.uart = uart
        self.baudRate = baudRate
        self.family = family
        self.model = model
        self.wake = wake
        self.output = output ?? ReceiverOutputMode.default(family: family, model: model)
        self.requestedOutput = output
    }

    /// This receiver as identified on its arrival: of `family`, its `model` the board's when the
    /// board names one, else the one the receiver gave; the output the board asked for (NMEA where
    /// the family has no binary protocol), else the family's default.
    public func identified(as family: ReceiverFamily, model: String?) -> ReceiverDescription {
        var copy = self
        copy.family = family
        copy.model = self.model ?? model
        if let requested = requestedOutput {
            copy.output = requested != .nmea && !family.entry.hasBinaryOutput ? .nmea : requested
        } else {
            copy.output = ReceiverOutputMode.default(family: family, model: copy.model)
        }
        return copy
    }

    /// The family as a board file writes it: `auto` for a detected one, else its first spelling.
    public var familySpelling: String { detectsFamily ? "auto" : family.entry.boardSpellings.first ?? family.rawValue }
}

extension ReceiverDescription {
    /// How status and logs name the receiver: its ``name``, else its port, else its USB identity.
    public var label: String { name ?? uart ?? usb?.description ?? "receiver" }
}

/// A USB device's identity as udev reports it (`ID_VENDOR_ID`, `ID_MODEL_ID`, `ID_SERIAL_SHORT`;
/// sysfs `idVendor`, `idProduct`, `serial`).
public struct USBSerialMatch: Sendable, Hashable, CustomStringConvertible {
    /// The vendor ID, four lower-case hex digits (`1546` for u-blox).
    public var vendor: String
    /// The product ID, four lower-case hex digits (`01a9` for a u-blox M8/M9 USB port).
    public var product: String
    /// The device's serial number string; `nil` matches any device with the vendor and product.
    public var serial: String?

    /// A match on `vendor`:`product` (and `serial` when given); the IDs are compared lower-cased.
    public init(vendor: String, product: String, serial: String? = nil) {
        self.vendor = vendor.lowercased()
        self.product = product.lowercased()
        self.serial = serial
    }

    /// Whether a device with these sysfs attributes is the one meant.
    public func matches(vendor: String, product: String, serial: String?) -> Bool {
        vendor.lowercased() == self.vendor && product.lowercased() == self.product && (self.serial == nil || self.serial == serial)
    }

    /// `usb:1546:01a9` or `usb:1546:01a9:SERIAL`.
    public var description: String { "usb:\(vendor):\(product)" + (serial.map { ":\($0)" } ?? "") }
}

/// Which protocols the receiver outputs: its NMEA, its binary navigation messages (UBX NAV-PVT and
/// companions, CASIC NAV-PV), or both. The binary messages carry the receiver's own accuracy estimates
/// and time validity, which NMEA does not.
public enum ReceiverOutputMode: String, Sendable, Hashable, CaseIterable {
    case nmea
    case binary
    case both

    /// `both` for u-blox 8 and later (NAV-PVT, NAV-EOE and NAV-SAT exist there; a model name that
    /// names no older generation counts as current), `nmea` for u-blox 6 and 7, CASIC, MediaTek and
    /// generic receivers (CASIC binary is opt-in: `output = both`).
    public static func `default`(family: ReceiverFamily, model: String?) -> ReceiverOutputMode {
        ReceiverModel.lookup(family: family, model: model).entry.binaryOutputByDefault ? .both : .nmea
    }
}

/// A 3x3 rotation taking a vector in the sensor's axes to the body frame (x forward, y right,
/// z down): `body = rows · sensor`. Rows are row-major.
public struct MountMatrix: Sendable, Equatable {
    /// The three rows.
    public var rows: [[Double]]

    /// The identity: the sensor's axes are the body's.
    public static let identity = MountMatrix(uncheckedRows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]])

    /// Wraps rows already known to form a rotation (``BoardLoader`` checks file input).
    public init(uncheckedRows rows: [[Double]]) { self.rows = rows }

    /// `rows · vector`, the sensor reading in the body frame. Missing entries count as zero.
    public func apply(_ vector: (x: Double, y: Double, z: Double)) -> (x: Double, y: Double, z: Double) {
        func row(_ i: Int) -> Double {
            guard i < rows.count, rows[i].count == 3 else { return 0 }
            return rows[i][0] * vector.x + rows[i][1] * vector.y + rows[i][2] * vector.z
        }
        return (row(0), row(1), row(2))
    }

    /// The determinant (+1 for a rotation, -1 for a reflection); 0 if the shape is not 3x3.
    public var determinant: Double {
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 }) else { return 0 }
        let m = rows
        return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }

    /// The largest deviation of `rows · rowsᵀ` from the identity (0 for an orthonormal matrix).
    public var orthonormalityError: Double {
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 }) else { return .infinity }
        var worst = 0.0
        for i in 0..<3 {
            for j in 0..<3 {
                let dot = rows[i][0] * rows[j][0] + rows[i][1] * rows[j][1] + rows[i][2] * rows[j][2]
                worst = max(worst, abs(dot - (i == j ? 1 : 0)))
            }
        }
        return worst
    }
}

/// One sensor chip on the I2C bus.
public struct SensorDescription: Sendable, Equatable {
    /// The chip.
    public var chip: SensorChip
    /// Its address, one of ``SensorChip/addresses``.
    public var address: I2CAddress
    /// The sensor's axes in the body frame.
    public var orientation: MountMatrix
    /// The GPIO line that signals new data, if wired.
    public var dataReady: GPIOFunction?
    /// The gyroscope's full-scale range in degrees per second when the board turns the chip's
    /// gyroscope on (`gyro = true` or a range), else `nil`: the gyroscope stays powered down and
    /// headings come from tilt compensation alone.
    public var gyroscopeRange: Int?
    /// Whether the GNSS course over ground aids the attitude filter's heading while moving fast
    /// (`gnss_course_aid = true`: right for a vehicle, wrong for a walker). Only with a gyroscope.
    public var gnssCourseAid: Bool

    /// Creates a sensor description.
    public init(chip: SensorChip, address: I2CAddress, orientation: MountMatrix, dataReady: GPIOFunction?,
                gyroscopeRange: Int? = nil, gnssCourseAid: Bool = false) {
        self.chip = chip
        self.address = address
        self.orientation = orientation
        self.dataReady = dataReady
        self.gyroscopeRange = gyroscopeRange
        self.gnssCourseAid = gnssCourseAid
    }

    /// What the sensor measures (from its chip).
    public var role: SensorRole { chip.role }
}

/// What a GPIO line is wired to; the raw values are the `[gpio]` keys.
public enum GPIOFunction: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Output: the receiver's supply load switch or enable pin (Adafruit EN).
    case gnssPowerEnable = "gnss_power_enable"
    /// Output: the receiver's reset pin.
    case gnssReset = "gnss_reset"
    /// Input: the receiver's pulse-per-second output.
    case gnssPPS = "gnss_pps"
    /// Output: the receiver's EXTINT (u-blox) or FORCE_ON (MTK) wake pin.
    case gnssExtint = "gnss_extint"
    /// Input: the magnetometer's data-ready pin.
    case magDataReady = "mag_data_ready"
    /// Input: the accelerometer's data-ready / interrupt pin.
    case accelDataReady = "accel_data_ready"
    /// Input: a hardware privacy switch; while asserted the receiver is powered off and clients
    /// see location services disabled.
    case privacySwitch = "privacy_switch"
    /// Output: an in-use light, lit while any client holds a demand for location services.
    case inUseLight = "in_use_light"

    /// Whether the library drives the line (otherwise it reads and waits on it).
    public var isOutput: Bool {
        switch self {
        case .gnssPowerEnable, .gnssReset, .gnssExtint, .inUseLight: return true
        case .gnssPPS, .magDataReady, .accelDataReady, .privacySwitch: return false
        }
    }

    /// Orders functions as the `[gpio]` table lists them.
    public static func < (a: GPIOFunction, b: GPIOFunction) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }
}

/// The GPIO chip and the lines wired to the receiver and sensors.
public struct GPIODescription: Sendable, Equatable {
    /// The chip's name as libgpiod shows it (`gpiochip0`).
    public var chip: String
    /// Each wired function's line, by name (`GPIO17`) or offset.
    public var lines: [GPIOFunction: GPIOLineID]
    /// Functions whose line is active-low (asserted = electrically low).
    public var activeLow: Set<GPIOFunction>
    /// Pull resistors for input lines; functions not listed keep the line's bias as it is.
    public var bias: [GPIOFunction: GPIOBias]
    /// The kernel PPS device of the receiver's pulse (`pps_device = "/dev/pps0"`, from the
    /// `pps-gpio` overlay or `ldattach PPS`), read through the RFC 2783 ioctls instead of
    /// ``GPIOFunction/gnssPPS``'s line (the kernel then owns that line).
    public var ppsDevice: String?

    /// Creates a GPIO description.
    public init(chip: String, lines: [GPIOFunction: GPIOLineID], activeLow: Set<GPIOFunction>, bias: [GPIOFunction: GPIOBias]) {
        self.chip = chip
        self.lines = lines
        self.activeLow = activeLow
        self.bias = bias
    }

    /// The line wired to `function`, if any.
    public func line(_ function: GPIOFunction) -> GPIOLineID? { lines[function] }

    /// The bias to request for `function`'s line (`.asIs` unless the file asks for a pull).
    public func bias(for function: GPIOFunction) -> GPIOBias { bias[function] ?? .asIs }
}

/// A simulated board's scenario.
public enum SimulationScenario: String, Sendable, Hashable, CaseIterable {
    /// Standing still.
    case stationary
    /// Walking pace (about 1.4 m/s).
    case walk
    /// Driving (about 15 m/s).
    case drive
}

/// What a simulated board's gyroscope adds to the true rate.
public enum SimulatedGyroscopeErrors: String, Sendable, Hashable, CaseIterable {
    /// Nothing: the chip reads the true rate (quantised, clipped at its range).
    case ideal
    /// The chip's datasheet-typical zero-rate bias and its temperature drift, noise density and
    /// sensitivity error: a bias the attitude filter has to learn, as on a real unit.
    case typical
}

/// Where and how a simulated board moves.
public struct SimulationDescription: Sendable, Equatable {
    /// Start latitude in degrees (north positive).
    public var latitude: Double
    /// Start longitude in degrees (east positive).
    public var longitude: Double
    /// Start altitude above mean sea level in metres.
    public var altitude: Double
    /// The motion.
    public var scenario: SimulationScenario
    /// The receiver model the simulator imitates (free text, `MT3339`).
    public var receiverModel: String
    /// Bluetooth LE beacons placed around the start position (`[[beacon]]`).
    public var beacons: [SimulatedBeaconDescription] = []
    /// What the simulated gyroscope adds to the true rate (`gyroscope_errors`, default `ideal`).
    public var gyroscopeErrors: SimulatedGyroscopeErrors = .ideal

    /// Creates a simulation description.
    public init(latitude: Double, longitude: Double, altitude: Double, scenario: SimulationScenario, receiverModel: String) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.scenario = scenario
        self.receiverModel = receiverModel
    }
}

/// A recorded session (`fieldloc record`'s two files) that a replay board plays back: the raw
/// receiver bytes at the times they were read, and the headings and PPS edges of the recording.
public struct ReplayDescription: Sendable, Equatable {
    /// The raw receiver log (`fieldloc record --out FILE`), resolved against the board file's folder.
    public var log: String
    /// Its events (`FILE.events.jsonl`): CHUNK lines time the bytes; HEADING and PPS lines are replayed.
    public var events: String
    /// The recording's receivers by name (`receivers`), when it holds several (events format 4):
    /// each plays its own bytes on its own port (``port(of:)``), through the best-source rule.
    /// Empty for a recording of one receiver.
    public var receivers: [String] = []

    /// The port a replayed receiver is read on: `recorded:NAME`.
    public static func port(of receiver: String) -> String { "recorded:" + receiver }

    /// A recording's two files.
    public init(log: String, events: String) {
        self.log = log
        self.events = events
    }
}
