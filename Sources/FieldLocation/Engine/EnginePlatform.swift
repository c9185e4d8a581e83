import BoardConfig
import Foundation
import HardwareInterfaces
import LocationAPI
import NMEA
import PowerPolicy
import ReceiverProtocols

/// How the engine's clock passes when it runs by itself (``LocationEngine/run(speed:)``).
public enum EnginePacing: Sendable {
    /// The clock is real time: the engine waits on the hardware as its data comes.
    case realTime
    /// A manual clock (a simulated or replay board's) that the engine's sleeps advance, paced to the wall clock.
    case manual
}

/// What an engine runs on, chosen by its caller: the hardware, how time passes, and the few things
/// a real board and a simulated one do differently. The engine and its subsystems ask their
/// platform; none of them asks whether the board is simulated.
public protocol EnginePlatform: Sendable {
    /// The buses, serial ports, GPIO lines and clock.
    var hardware: any HardwarePlatform { get }
    /// How ``LocationEngine/run(speed:)`` moves the clock.
    var pacing: EnginePacing { get }
    /// Stamped on every fix the engine assembles.
    var provenance: Provenance { get }
    /// Whether there is a receiver even where the board file names none (a simulated one).
    var providesReceiver: Bool { get }
    /// The serial port of `board`'s receiver.
    func receiverPort(for board: BoardDescription) -> String
    /// The receiver's control lines (power enable, EXTINT or FORCE_ON, reset).
    func receiverLines(for board: BoardDescription) throws(HardwareError) -> ReceiverLines
    /// The receiver's charge as the platform measures it; `nil` lets the engine estimate it from
    /// the policy's modes and the receiver profile's currents.
    func measuredReceiverEnergy() -> EnergyLedger?
    /// Seconds since 1970-01-01 UTC at `instant` of the platform's clock, for work that needs a
    /// date before a fix gives one (the magnetic model's epoch).
    func utcSeconds(at instant: MonotonicInstant) -> Double
    /// UTC at `instant` and the clock's error bound (seconds), only when the system clock is
    /// synchronised (an NTP, chrony or PTP daemon, or the time service, says so); `nil` when it is
    /// not or the platform cannot tell. Receiver aiding sends a time only from here.
    func synchronisedTime(at instant: MonotonicInstant) -> (utcSeconds: Double, maximumError: Double)?
    /// Each service of `board` with whether its device can be used now (missing node, no
    /// permission, kernel interface not enabled), for every client; authorisation is not affected.
    func capabilities(for board: BoardDescription) -> DeviceCapabilities
    /// Starts watching the devices of `board`'s services; `onChange` is called (on any thread)
    /// when one may have appeared, gone or changed permissions. `nil` where devices do not change.
    func watchDevices(for board: BoardDescription, onChange: @escaping @Sendable () -> Void) -> (any DeviceWatch)?
    /// Headings that come from a recording instead of sensors (a replay board), or `nil`.
    var recordedHeadings: RecordedHeadingSource? { get }
    /// Raw sensor samples that come from a recording instead of the board's chips (a replay
    /// board whose recording has them), or `nil`: the sensor subsystem processes them as it does
    /// live readings.
    var recordedSensorSamples: RecordedSensorSamples? { get }
    /// Opens the Bluetooth LE scanner of `board`'s adapter (`bluetooth = "hci0"`) on the
    /// platform's clock; throws ``HardwareError/Kind/unsupported`` where the platform has none.
    func bluetoothScanner(for board: BoardDescription) throws(HardwareError) -> any BluetoothLEScanner
    /// The network NTRIP corrections come over, or `nil` where the platform has none (a replay).
    var network: (any NetworkConnector)? { get }
    /// On a manual clock: the first instant after `instant` at which the platform's hardware does
    /// something by itself (a simulated receiver's next transmission), or `nil` when nothing is
    /// scheduled. ``LocationEngine/run(speed:)`` sleeps until then (or the engine's own next
    /// deadline) instead of waking at a fixed pace. Returning `instant` means "not known": the
    /// loop keeps its shortest pace.
    func nextScheduledEvent(after instant: MonotonicInstant) -> MonotonicInstant?
}

/// A running watch of device nodes (``EnginePlatform/watchDevices(for:onChange:)``).
public protocol DeviceWatch: AnyObject, Sendable {
    /// Stops watching.
    func cancel()
}

extension EnginePlatform {
    /// Every service the board (or the platform, for a simulated receiver) has, all available:
    /// platforms without device nodes.
    public func capabilities(for board: BoardDescription) -> DeviceCapabilities {
        DeviceCapabilities.all(of: board, receiver: providesReceiver, recordedHeadings: recordedHeadings != nil)
    }
    /// Nothing to watch.
    public func watchDevices(for board: BoardDescription, onChange: @escaping @Sendable () -> Void) -> (any DeviceWatch)? { nil }
    /// Not known: no aiding time.
    public func synchronisedTime(at instant: MonotonicInstant) -> (utcSeconds: Double, maximumError: Double)? { nil }
    /// No recorded headings: headings come from the board's sensors.
    public var recordedHeadings: RecordedHeadingSource? { nil }
    /// No recorded samples: the sensor subsystem reads the board's chips.
    public var recordedSensorSamples: RecordedSensorSamples? { nil }
    /// No network: platforms that do not say otherwise cannot fetch corrections.
    public var network: (any NetworkConnector)? { nil }
    /// Not known: a manual-clock platform that does not say otherwise is paced at the shortest step.
    public func nextScheduledEvent(after instant: MonotonicInstant) -> MonotonicInstant? { instant }
    /// No scanner: platforms that do not say otherwise have no Bluetooth.
    public func bluetoothScanner(for board: BoardDescription) throws(HardwareError) -> any BluetoothLEScanner {
        throw HardwareError(.unsupported, device: board.bluetooth ?? "bluetooth", operation: "open",
                            detail: "this platform has no Bluetooth LE scanner")
    }
}

extension DeviceCapabilities {
    /// Every service `board` has, available: locations with a receiver (or one the platform
    /// `receiver` provides), headings with a magnetometer and accelerometer (or recorded ones),
    /// time with a PPS line or device, beacons with a Bluetooth adapter.
    public static func all(of board: BoardDescription, receiver: Bool, recordedHeadings: Bool) -> DeviceCapabilities {
        var out: [ServiceAvailability] = []
        if board.receiver != nil || receiver {
            out.append(ServiceAvailability(service: .location, device: board.receiver?.uart ?? "simulated receiver"))
        }
        if (board.magnetometer != nil && board.accelerometer != nil) || recordedHeadings {
            out.append(ServiceAvailability(service: .heading, device: board.i2cBus.map { "i2c-\($0)" } ?? "recorded headings"))
        }
        if let gpio = board.gpio, gpio.ppsDevice != nil || gpio.line(.gnssPPS) != nil {
            out.append(ServiceAvailability(service: .time, device: gpio.ppsDevice ?? gpio.chip))
        }
        if let adapter = board.bluetooth { out.append(ServiceAvailability(service: .beacons, device: adapter)) }
        return DeviceCapabilities(out)
    }
}
