import DBusWire
import Glibc
import HardwareInterfaces
import Synchronization

/// A Bluetooth LE scanner through BlueZ's D-Bus API, for boards where `bluetoothd` runs (every
/// Raspberry Pi OS): it asks the adapter (`org.bluez.Adapter1` on `/org/bluez/hciN`) for LE
/// discovery with duplicate data, and turns each `org.bluez.Device1` update that carries an RSSI
/// into a ``BluetoothAdvertisingReport`` whose data is rebuilt from the device's ManufacturerData,
/// ServiceData and TxPower (see ``BlueZDevices``).
///
/// BlueZ owns the radio's scan parameters: the interval, window and active flag of
/// ``BluetoothScanParameters`` are not passed on. Needs no capability, only the D-Bus policy
/// (on Raspberry Pi OS: membership of group `bluetooth`). Every wait has a deadline on ``clock``.
///
/// ```swift
/// let scanner = try BlueZScanner(adapter: "hci0")
/// try scanner.startScanning(BluetoothScanParameters())
/// _ = try scanner.poll(deadline: scanner.clock.deadline(after: .seconds(1))) { report in print(report.address, report.rssi ?? 0) }
/// ```
public final class BlueZScanner: BluetoothLEScanner, @unchecked Sendable {
    /// The adapter's name, `hci0`.
    public let name: String
    /// The clock of deadlines and report timestamps.
    public let clock: any MonotonicClock
    /// The bus's address.
    public let busAddress: String
    /// How long one method call may wait for its reply.
    public let callTimeout: Duration

    private let adapterPath: String
    private struct State {
        var connection: DBusConnection?
        var scanning = false
        var devices: BlueZDevices
    }
    private let state: Mutex<State>

    /// The system bus's address: `DBUS_SYSTEM_BUS_ADDRESS`, else `unix:path=/run/dbus/system_bus_socket`.
    public static var systemBusAddress: String { DBusConnection.systemBusAddress }

    /// Whether the bus at `busAddress` answers and `org.bluez` has an owner (bluetoothd runs),
    /// asked within `timeout`.
    public static func serviceRuns(busAddress: String = systemBusAddress, clock: any MonotonicClock = SystemMonotonicClock(),
                                   timeout: Duration = .seconds(1)) -> Bool {
        let deadline = clock.now().advanced(by: timeout)
        guard let connection = try? DBusConnection(address: busAddress, clock: clock, deadline: deadline) else { return false }
        defer { connection.close() }
        return (try? nameHasOwner(connection, deadline: deadline)) == true
    }

    private static func nameHasOwner(_ connection: DBusConnection, deadline: MonotonicInstant) throws(HardwareError) -> Bool {
        let reply = try connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                        member: "NameHasOwner", body: [.string("org.bluez")], deadline: deadline)
        return reply.body.first == .boolean(true)
    }

    /// Connects to the bus, checks that bluetoothd runs and has the adapter, and subscribes to its
    /// device signals.
    ///
    /// - Parameters:
    ///   - adapter: `hci` and the adapter's index, as the board file's `bluetooth` key names it.
    ///   - clock: the clock of deadlines and timestamps.
    ///   - busAddress: the bus (`unix:path=…`); `nil` for the system bus.
    ///   - callTimeout: how long each method call may wait.
    /// - Throws: ``HardwareError``: `invalidArgument` for a name that is not `hciN`, `notFound` when
    ///   no bus answers, bluetoothd does not run or has no such adapter, `permissionDenied` when the
    ///   bus's policy refuses, `other` when the adapter is powered off; each with a hint.
    public init(adapter: String = "hci0", clock: any MonotonicClock = SystemMonotonicClock(), busAddress: String? = nil,
                callTimeout: Duration = .seconds(2)) throws(HardwareError) {
        guard HCISocket.deviceIndex(adapter) != nil else {
            throw HardwareError(.invalidArgument, device: adapter, operation: "open Bluetooth adapter through BlueZ",
                                detail: "not an adapter name", hint: "name the adapter as BlueZ does: hci0, hci1, …")
        }
        let address = busAddress ?? DBusConnection.systemBusAddress
        let path = "/org/bluez/" + adapter
        let deadline = clock.now().advanced(by: callTimeout)
        let connection = try DBusConnection(address: address, clock: clock, deadline: deadline)
        var devices = BlueZDevices(adapterPath: path)
        do throws(HardwareError) {
            guard try Self.nameHasOwner(connection, deadline: deadline) else {
                throw HardwareError(.notFound, device: adapter, operation: "open Bluetooth adapter through BlueZ",
                                    detail: "org.bluez has no owner on the bus \(address)",
                                    hint: "bluetoothd is not running: sudo systemctl enable --now bluetooth (or use the HCI socket: bluetooth_backend = \"hci\")")
            }
            for rule in [
                "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='org.bluez.Device1'",
                "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'",
                "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved'",
            ] {
                _ = try connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                        member: "AddMatch", body: [.string(rule)], deadline: deadline)
            }
            let objects = try connection.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                                              member: "GetManagedObjects", deadline: deadline)
            let managed = objects.body.first ?? .array(element: .variant, [])
            var adapters: [String] = []
            var powered: Bool?
            for (objectPath, interfaces) in managed.dictionaryEntries ?? [] {
                for (interface, properties) in interfaces.dictionaryEntries ?? [] where interface.stringValue == "org.bluez.Adapter1" {
                    let text = objectPath.stringValue ?? ""
                    adapters.append(String(text.split(separator: "/").last ?? ""))
                    guard text == path else { continue }
                    powered = false
                    for (key, value) in properties.dictionaryEntries ?? [] where key.stringValue == "Powered" {
                        powered = value.unwrapped == .boolean(true)
                    }
                }
            }
            guard let powered else {
                throw HardwareError(.notFound, device: adapter, operation: "open Bluetooth adapter through BlueZ",
                                    detail: "BlueZ has no adapter \(path) (it has: \(adapters.isEmpty ? "none" : adapters.sorted().joined(separator: ", ")))",
                                    hint: "name one of BlueZ's adapters in the board file (bluetoothctl list)")
            }
            guard powered else {
                throw HardwareError(.other, device: adapter, operation: "open Bluetooth adapter through BlueZ", detail: "the adapter is powered off",
                                    hint: "power it on: bluetoothctl power on (and check rfkill list)")
            }
            devices.seed(managedObjects: managed)
        } catch {
            connection.close()
            throw error
        }
        self.name = adapter
        self.clock = clock
        self.busAddress = address
        self.callTimeout = callTimeout
        self.adapterPath = path
        state = Mutex(State(connection: connection, devices: devices))
    }

    deinit { close() }

    /// Whether a discovery started here is running.
    public var isScanning: Bool { state.withLock { $0.scanning } }

    /// `false`: BlueZ's `Adapter1.SetDiscoveryFilter` takes no scan interval or window (its
    /// filter keys are UUIDs, RSSI, Pathloss, Transport, DuplicateData, Discoverable, Pattern), so
    /// a duty cycle is run by starting and stopping discovery (see `BeaconSubsystem`).
    public var runsDutyCycle: Bool { false }

    /// Sets the discovery filter (`Transport` `le`, `DuplicateData` true, so every advertisement
    /// updates RSSI) and starts discovery; a running discovery is left running.
    public func startScanning(_ parameters: BluetoothScanParameters) throws(HardwareError) {
        try withConnection("start scanning") { (connection, s) throws(HardwareError) in
            guard !s.scanning else { return }
            let deadline = clock.now().advanced(by: callTimeout)
            let filter = DBusValue.stringVariantDictionary([("Transport", .string("le")), ("DuplicateData", .boolean(true))])
            _ = try connection.call(destination: "org.bluez", path: adapterPath, interface: "org.bluez.Adapter1", member: "SetDiscoveryFilter",
                                    body: [filter], deadline: deadline)
            _ = try connection.call(destination: "org.bluez", path: adapterPath, interface: "org.bluez.Adapter1", member: "StartDiscovery",
                                    deadline: deadline, tolerating: ["org.bluez.Error.InProgress"])
            s.scanning = true
        }
    }

    /// Stops discovery; harmless when none runs.
    public func stopScanning() throws(HardwareError) {
        try withConnection("stop scanning") { (connection, s) throws(HardwareError) in
            guard s.scanning else { return }
            s.scanning = false
            _ = try connection.call(destination: "org.bluez", path: adapterPath, interface: "org.bluez.Adapter1", member: "StopDiscovery",
                                    deadline: clock.now().advanced(by: callTimeout),
                                    tolerating: ["org.bluez.Error.Failed", "org.bluez.Error.NotReady", "org.bluez.Error.NotAuthorized"])
        }
    }

    /// Waits until a device update with an RSSI arrives or `deadline` passes, then hands over every
    /// one received so far. A bus that goes away throws ``HardwareError/Kind/deviceGone``.
    public func poll(
        deadline: MonotonicInstant, _ handler: (borrowing BluetoothAdvertisingReport) -> Void
    ) throws(HardwareError) -> Int {
        var sightings: [(BlueZDevices.Sighting, MonotonicInstant)] = []
        try withConnection("poll") { (connection, s) throws(HardwareError) in
            while true {
                let now = clock.now()
                for signal in connection.signals {
                    if let sighting = s.devices.handle(signal) { sightings.append((sighting, now)) }
                }
                connection.signals.removeAll()
                if !sightings.isEmpty || now >= deadline { return }
                for message in try connection.readMessages(deadline: deadline, operation: "poll") where message.kind == .signal {
                    connection.queue(message)
                }
                if connection.signals.isEmpty && clock.now() >= deadline { return }
            }
        }
        for (sighting, timestamp) in sightings {
            sighting.data.withUnsafeBytes { data in
                handler(BluetoothAdvertisingReport(address: sighting.address, rssi: sighting.rssi, timestamp: timestamp, data: data))
            }
        }
        return sightings.count
    }

    /// Stops a running discovery (best effort, within ``callTimeout``) and closes the connection.
    public func close() {
        try? stopScanning()
        state.withLock { s in
            s.connection?.close()
            s.connection = nil
            s.scanning = false
        }
    }

    /// Runs `body` with the open connection, serialized with every other call.
    private func withConnection(
        _ operation: String, _ body: (DBusConnection, inout State) throws(HardwareError) -> Void
    ) throws(HardwareError) {
        try state.withLock { (s: inout State) throws(HardwareError) in
            guard let connection = s.connection else { throw HardwareError(.closed, device: name, operation: operation) }
            try body(connection, &s)
        }
    }
}
