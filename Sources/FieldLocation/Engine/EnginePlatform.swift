import BoardConfig
import Foundation
import HardwareInterfaces
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
    /// Why this process may not use `board`'s devices (missing device nodes or permissions), or
    /// `nil`: an in-process manager's authorisation.
    func accessProblem(for board: BoardDescription) -> String?
    /// Headings that come from a recording instead of sensors (a replay board), or `nil`.
    var recordedHeadings: RecordedHeadingSource? { get }
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

extension EnginePlatform {
    /// No recorded headings: headings come from the board's sensors.
    public var recordedHeadings: RecordedHeadingSource? { nil }
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
