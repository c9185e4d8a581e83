import BoardConfig
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationAPI
import LinuxHardware
import NMEA
import PowerPolicy
import ReceiverProtocols
import SimulatedHardware

/// A board on real hardware (``LinuxPlatform`` or any other ``HardwarePlatform``) in real time.
public struct HardwareEnginePlatform: EnginePlatform {
    /// The hardware.
    public let hardware: any HardwarePlatform

    /// Where the device nodes are (`/dev`, `/sys`; a test's folders).
    public let folders: DeviceAccess.Folders

    /// Wraps `hardware`, its device nodes in `folders`.
    public init(_ hardware: any HardwarePlatform, folders: DeviceAccess.Folders = DeviceAccess.Folders()) {
        self.hardware = hardware
        self.folders = folders
    }

    public var pacing: EnginePacing { .realTime }
    public var provenance: Provenance { .receiver }
    public var providesReceiver: Bool { false }
    /// The receiver's `uart`, or the node its USB identity finds now (``USBSerialDevices``).
    public func receiverPort(for board: BoardDescription) -> String { USBSerialDevices.port(of: board.receiver, folders: folders) }
    public func receiverLines(for board: BoardDescription) throws(HardwareError) -> ReceiverLines {
        try ReceiverBringUp.lines(for: board, platform: hardware)
    }
    public func measuredReceiverEnergy() -> EnergyLedger? { nil }
    public func utcSeconds(at instant: MonotonicInstant) -> Double { Date().timeIntervalSince1970 }
    /// The kernel's word (``SystemWallClock/synchronised()``).
    public func synchronisedTime(at instant: MonotonicInstant) -> (utcSeconds: Double, maximumError: Double)? {
        SystemWallClock.synchronised()
    }
    /// Each service from its device node, as it is now (``DeviceAccess``).
    public func capabilities(for board: BoardDescription) -> DeviceCapabilities { DeviceAccess.capabilities(for: board, folders: folders) }
    /// An inotify watch on the folders of the board's device nodes (``DeviceWatcher``).
    public func watchDevices(for board: BoardDescription, onChange: @escaping @Sendable () -> Void) -> (any DeviceWatch)? {
        let paths = DeviceAccess.watchedPaths(for: board, folders: folders)
        return paths.isEmpty ? nil : DeviceWatcher(paths: paths, onChange: onChange)
    }
    /// The host's network.
    public var network: (any NetworkConnector)? { LinuxNetwork() }
    public func bluetoothScanner(for board: BoardDescription) throws(HardwareError) -> any BluetoothLEScanner {
        guard let adapter = board.bluetooth else {
            throw HardwareError(.notFound, device: "bluetooth", operation: "open", detail: "the board file names no adapter (bluetooth = \"hci0\")")
        }
        return try Self.openLinuxBluetoothScanner(adapter: adapter, backend: board.bluetoothBackend, clock: hardware.clock)
    }

    /// Opens `adapter` (`hci0`), its reports timed on `clock`, through the board's
    /// `bluetooth_backend`: `auto` takes BlueZ over D-Bus when the system bus answers and
    /// `org.bluez` has an owner (bluetoothd runs and owns the radio), else LinuxHardware's
    /// HCI-socket scanner; `bluez` and `hci` take only that one. Errors name the adapter and what to
    /// do (group `bluetooth`, capabilities, rfkill, adapter down or powered off).
    static func openLinuxBluetoothScanner(adapter: String, backend: BluetoothBackend = .auto, clock: any MonotonicClock) throws(HardwareError) -> any BluetoothLEScanner {
        switch backend {
        case .hci:
            return try LinuxBluetoothScanner(adapter: adapter, clock: clock)
        case .bluez:
            return try BlueZScanner(adapter: adapter, clock: clock)
        case .auto:
            // The probe waits on the system clock: a manual clock would never reach its deadline.
            guard BlueZScanner.serviceRuns(clock: SystemMonotonicClock()) else {
                return try LinuxBluetoothScanner(adapter: adapter, clock: clock)
            }
            do {
                return try BlueZScanner(adapter: adapter, clock: clock)
            } catch {
                // bluetoothd runs but will not hand over the adapter: say which call failed, then
                // try the kernel's socket (which needs CAP_NET_RAW and CAP_NET_ADMIN).
                FileHandle.standardError.write(Data("Bluetooth: BlueZ failed (\(error.description)); falling back to the HCI socket for \(adapter) (bluetooth_backend = \"auto\")\n".utf8))
                return try LinuxBluetoothScanner(adapter: adapter, clock: clock)
            }
        }
    }
}

/// A simulated board: its ``SimulatedPlatform`` on a manual clock, and the receiver emulator behind
/// ``BoardHardware/simulatedPortName`` when the caller has it (its power line and energy ledger).
public struct SimulatedEnginePlatform: EnginePlatform {
    /// The simulated hardware.
    public let platform: SimulatedPlatform
    /// The emulated receiver, if known.
    public let receiver: ReceiverEmulator?
    /// The simulated calendar: seconds since 1970 UTC at instant zero of the manual clock (the
    /// emulator dates its sentences 2026-05-01).
    public var utcAtZero: Double = 1_777_593_600
    /// Whether the simulated system clock counts as synchronised (to 10 ms), so that receiver
    /// aiding has a time; off by default: the simulated calendar is not a synchronised clock.
    public var systemClockSynchronised = false

    /// The simulated Bluetooth radio, when the board has beacons in its world.
    public let beaconScanner: SimulatedBeaconScanner?

    /// Wraps a simulated platform and, when known, its receiver and its Bluetooth radio.
    public init(platform: SimulatedPlatform, receiver: ReceiverEmulator? = nil, beaconScanner: SimulatedBeaconScanner? = nil) {
        self.platform = platform
        self.receiver = receiver
        self.beaconScanner = beaconScanner
    }

    public var hardware: any HardwarePlatform { platform }
    public var pacing: EnginePacing { .manual }
    public var provenance: Provenance { .simulator }
    public var providesReceiver: Bool { true }
    public func receiverPort(for board: BoardDescription) -> String { BoardHardware.simulatedPortName }
    public func receiverLines(for board: BoardDescription) throws(HardwareError) -> ReceiverLines {
        guard let receiver else { return try ReceiverBringUp.lines(for: board, platform: platform) }
        return ReceiverLines(powerEnable: receiver.powerLine(clock: platform.clock))
    }
    public func measuredReceiverEnergy() -> EnergyLedger? { receiver?.ledger }
    /// The emulated receiver's next transmission (its next epoch, a reply or its wake-up); not
    /// known without the emulator.
    public func nextScheduledEvent(after instant: MonotonicInstant) -> MonotonicInstant? {
        guard let receiver else { return instant }
        return receiver.nextTransmission(after: instant)
    }
    public func utcSeconds(at instant: MonotonicInstant) -> Double { utcAtZero + instant.seconds }
    /// The simulated calendar, to 10 ms, when ``systemClockSynchronised``.
    public func synchronisedTime(at instant: MonotonicInstant) -> (utcSeconds: Double, maximumError: Double)? {
        systemClockSynchronised ? (utcSeconds(at: instant), 0.01) : nil
    }
    /// The host's network: a simulated receiver takes real corrections (from a local caster in tests).
    public var network: (any NetworkConnector)? { LinuxNetwork() }
    public func bluetoothScanner(for board: BoardDescription) throws(HardwareError) -> any BluetoothLEScanner {
        guard let beaconScanner else {
            throw HardwareError(.notFound, device: board.bluetooth ?? "bluetooth", operation: "open",
                                detail: "the simulated board has no Bluetooth adapter (bluetooth = \"hci0\" and [[beacon]] entries)")
        }
        return beaconScanner
    }
}

extension BoardHardware {
    /// The engine platform for hardware a caller already has: a ``SimulatedPlatform`` runs
    /// simulated (manual clock), anything else in real time.
    public static func enginePlatform(_ hardware: any HardwarePlatform) -> any EnginePlatform {
        if let simulated = hardware as? SimulatedPlatform { return SimulatedEnginePlatform(platform: simulated) }
        return HardwareEnginePlatform(hardware)
    }

    /// The engine platform a board file asks for: its simulated board (platform and receiver) for
    /// `simulated = true`, else `linux`. The one place the board's `simulated` flag is read.
    public static func enginePlatform(for board: BoardDescription, linux: @autoclosure () -> any HardwarePlatform)
        throws(HardwareError) -> any EnginePlatform
    {
        guard board.simulated else { return HardwareEnginePlatform(linux()) }
        if board.replay != nil { return try ReplayEnginePlatform(board: board) }
        let sim = try simulatedBoard(for: board)
        return SimulatedEnginePlatform(platform: sim.platform, receiver: sim.receiver, beaconScanner: sim.beaconScanner)
    }
}
