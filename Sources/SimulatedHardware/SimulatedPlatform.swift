import Devices
import HardwareInterfaces
import PowerPolicy

/// A plain description of a simulated board: I2C buses and their chips, GPIO chips and their
/// line names, serial ports and the receivers on them. A board file maps onto it.
public struct SimulatedPlatformDescription: Sendable, Hashable {
    /// One chip on a bus.
    public struct Device: Sendable, Hashable {
        /// The chip.
        public var chip: SensorChip
        /// Its 7-bit address.
        public var address: UInt8

        /// Creates a device, at the chip's default address unless given.
        public init(_ chip: SensorChip, address: UInt8? = nil) {
            self.chip = chip
            self.address = address ?? chip.addresses.first ?? 0
        }
    }

    /// One I2C bus.
    public struct Bus: Sendable, Hashable {
        /// The bus number (`/dev/i2c-N`).
        public var number: Int
        /// Its devices.
        public var devices: [Device]

        /// Creates a bus.
        public init(number: Int, devices: [Device]) {
            self.number = number
            self.devices = devices
        }
    }

    /// One GPIO chip.
    public struct GPIOChip: Sendable, Hashable {
        /// Its name (`gpiochip0`).
        public var name: String
        /// Its line names, by offset.
        public var lines: [String]

        /// Creates a GPIO chip.
        public init(name: String, lines: [String]) {
            self.name = name
            self.lines = lines
        }
    }

    /// One serial port, with or without a receiver on it.
    /// A receiver emulator on a port: its family's command set, tracking from the start, moving
    /// from a position at a constant speed and course.
    public struct Receiver: Sendable, Hashable {
        /// The command set it obeys.
        public var family: ReceiverEmulator.Family
        /// Start position, degrees.
        public var latitude: Double, longitude: Double
        /// Speed over ground, m/s, and course, degrees.
        public var speed: Double, course: Double

        /// Creates a receiver description.
        public init(family: ReceiverEmulator.Family = .mediatek, latitude: Double, longitude: Double, speed: Double = 0, course: Double = 0) {
            self.family = family
            self.latitude = latitude
            self.longitude = longitude
            self.speed = speed
            self.course = course
        }
    }

    public struct Serial: Sendable, Hashable {
        /// The port's path (`/dev/ttyAMA0`).
        public var path: String
        /// The receiver's line rate.
        public var baudRate: Int
        /// The receiver, or `nil` for a port with nothing attached.
        public var receiver: Receiver?

        /// Creates a serial port description.
        public init(path: String, baudRate: Int = 9600, receiver: Receiver? = nil) {
            self.path = path
            self.baudRate = baudRate
            self.receiver = receiver
        }
    }

    /// The I2C buses.
    public var buses: [Bus]
    /// The GPIO chips.
    public var gpioChips: [GPIOChip]
    /// The serial ports, most likely receiver port first.
    public var serialPorts: [Serial]

    /// Creates a description.
    public init(buses: [Bus] = [], gpioChips: [GPIOChip] = [], serialPorts: [Serial] = []) {
        self.buses = buses
        self.gpioChips = gpioChips
        self.serialPorts = serialPorts
    }
}

/// A ``HardwarePlatform`` built from a ``SimulatedPlatformDescription`` on a ``ManualClock``:
/// register-map chips on simulated buses, simulated GPIO chips and serial ports with receivers.
/// The test reaches the far side of everything through ``bus(_:)``, ``gpioChip(named:)``,
/// ``serialPort(_:)`` and ``receiver(_:)``.
public final class SimulatedPlatform: HardwarePlatform {
    /// The description it was built from.
    public let board: SimulatedPlatformDescription
    /// The manual clock everything runs on.
    public let manualClock: ManualClock
    /// The clock, for ``HardwarePlatform``.
    public var clock: any MonotonicClock { manualClock }
    private let buses: [Int: SimulatedI2CBus]
    private let chips: [String: SimulatedGPIOChip]
    private let ports: [String: SimulatedSerialPort]
    private let receivers: [String: ReceiverEmulator]

    /// Builds the platform. A bad description (an address outside 0x03-0x77, two devices at one
    /// address, a duplicate bus, chip or port, a line rate that is not standard) throws
    /// ``HardwareError/Kind/invalidArgument`` naming the bus, address, chip or path.
    /// `i2cLogCapacity` bounds each bus's transaction log (``SimulatedI2CBus/logCapacity``).
    public init(_ description: SimulatedPlatformDescription, clock: ManualClock = ManualClock(),
                i2cLogCapacity: Int = SimulatedI2CBus.defaultLogCapacity) throws(HardwareError) {
        board = description
        manualClock = clock
        var buses: [Int: SimulatedI2CBus] = [:]
        for b in description.buses {
            let busName = "sim-i2c-\(b.number)"
            guard buses[b.number] == nil else {
                throw HardwareError(.invalidArgument, device: busName, operation: "build simulated platform", detail: "bus \(b.number) is described twice")
            }
            let bus = SimulatedI2CBus(name: busName, clock: clock, logCapacity: i2cLogCapacity)
            for d in b.devices {
                guard let address = I2CAddress(d.address) else {
                    throw HardwareError(.invalidArgument, device: busName, operation: "attach \(d.chip)",
                                        detail: "address \(hex(d.address)) is outside 0x03-0x77")
                }
                let taken = [address] + d.chip.companions.compactMap { $0.addresses.first.flatMap { I2CAddress($0) } }
                for a in taken where bus.device(at: a) != nil {
                    throw HardwareError(.invalidArgument, device: "\(busName)@\(a)", operation: "attach \(d.chip)",
                                        detail: "another device is already at \(a)")
                }
                d.chip.attachSimulated(at: address, on: bus)
            }
            buses[b.number] = bus
        }
        var chips: [String: SimulatedGPIOChip] = [:]
        for c in description.gpioChips {
            guard chips[c.name] == nil else {
                throw HardwareError(.invalidArgument, device: c.name, operation: "build simulated platform", detail: "GPIO chip described twice")
            }
            chips[c.name] = SimulatedGPIOChip(name: c.name, lineNames: c.lines, clock: clock)
        }
        var ports: [String: SimulatedSerialPort] = [:]
        var receivers: [String: ReceiverEmulator] = [:]
        for s in description.serialPorts {
            guard ports[s.path] == nil else {
                throw HardwareError(.invalidArgument, device: s.path, operation: "build simulated platform", detail: "serial port described twice")
            }
            guard let rate = BaudRate(s.baudRate) else {
                throw HardwareError(.invalidArgument, device: s.path, operation: "build simulated platform",
                                    detail: "\(s.baudRate) baud is not a standard rate")
            }
            let port = SimulatedSerialPort(name: s.path, clock: clock, baudRate: rate)
            if let r = s.receiver {
                let profile = r.family.model.powerProfile
                let track = Trajectory.legs([.init(duration: 6 * 3600, speed: r.speed, course: r.course)], latitude: r.latitude, longitude: r.longitude)
                let receiver = ReceiverEmulator(family: r.family, profile: profile, trajectory: track, start: clock.now(), tracking: true)
                port.attach(receiver)
                receivers[s.path] = receiver
            }
            port.close()
            ports[s.path] = port
        }
        self.buses = buses
        self.chips = chips
        self.ports = ports
        self.receivers = receivers
    }

    // MARK: Test side

    /// The simulated bus `number`.
    public func bus(_ number: Int) -> SimulatedI2CBus? { buses[number] }

    /// The simulated GPIO chip called `name`.
    public func gpioChip(named name: String) -> SimulatedGPIOChip? { chips[name] }

    /// The simulated serial port at `path` (open or not).
    public func serialPort(_ path: String) -> SimulatedSerialPort? { ports[path] }

    /// The receiver on the port at `path`.
    public func receiver(_ path: String) -> ReceiverEmulator? { receivers[path] }

    // MARK: HardwarePlatform

    /// Opens simulated bus `number`.
    public func openI2CBus(_ number: Int) throws(HardwareError) -> any I2CBus {
        guard let bus = buses[number] else {
            throw HardwareError(.notFound, device: "sim-i2c-\(number)", operation: "open",
                                detail: "no such bus; buses: \(availableI2CBuses().map(String.init).joined(separator: ", "))")
        }
        return bus
    }

    /// Opens the simulated port at `path` with exclusive access.
    public func openSerialPort(_ path: String, baudRate: BaudRate) throws(HardwareError) -> any SerialPort {
        guard let port = ports[path] else {
            throw HardwareError(.notFound, device: path, operation: "open", detail: "errno 2: No such file or directory")
        }
        try port.reopen(baudRate: baudRate)
        return port
    }

    /// Requests a line of a simulated chip as an output.
    public func requestOutput(chip: String, line: GPIOLineID, initial: Bool) throws(HardwareError) -> any GPIOLine {
        try gpio(chip).requestOutput(line, initial: initial)
    }

    /// Requests a line of a simulated chip as an input.
    public func requestInput(chip: String, line: GPIOLineID, edges: GPIOEdgeDetection, bias: GPIOBias) throws(HardwareError) -> any GPIOLine {
        try gpio(chip).requestInput(line, edges: edges, bias: bias)
    }

    /// The bus numbers, ascending.
    public func availableI2CBuses() -> [Int] { buses.keys.sorted() }

    /// The serial port paths in the description's order.
    public func candidateSerialPorts() -> [String] { board.serialPorts.map(\.path) }

    private func gpio(_ name: String) throws(HardwareError) -> SimulatedGPIOChip {
        guard let chip = chips[name] else {
            throw HardwareError(.notFound, device: name, operation: "open GPIO chip", detail: "no such chip")
        }
        return chip
    }
}

/// An ICM-20948 and its AK09916, the magnetometer answering only while the ICM's bypass is open.
public func makeICM20948(_ model: ICM20948Model = ICM20948Model(), magnetometer: AK09916Model = AK09916Model())
    -> (icm: SimulatedRegisterDevice<ICM20948Model>, magnetometer: SimulatedRegisterDevice<AK09916Model>) {
    let icm = SimulatedRegisterDevice(model)
    let ak = SimulatedRegisterDevice(magnetometer, presence: { icm.withModel { $0.bypassEnabled } })
    return (icm, ak)
}
