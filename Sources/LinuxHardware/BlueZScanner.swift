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
/// A restart of `bluetoothd` or the removal of the adapter is not an error: the scanner forgets
/// every device it knew (no stale beacon survives the outage), reports nothing while the adapter is
/// gone, and when `org.bluez` has an owner again (`NameOwnerChanged`) or the adapter comes back
/// (`InterfacesAdded`, `Powered`), it sets the discovery filter and starts discovery again by
/// itself, retrying every ``retryInterval``. ``availability`` tells the outages and recoveries.
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

    /// How often a recovery is tried again while `org.bluez` has an owner but the adapter cannot scan yet.
    public let retryInterval: Duration = .milliseconds(250)
    /// How long a recovery accepts StartDiscovery refused as in progress before it power-cycles the adapter.
    public let powerCycleAfter: Duration = .seconds(1)

    /// The adapter's outages and recoveries as the scanner saw them.
    public struct Availability: Sendable, Equatable {
        /// Whether BlueZ has the adapter, powered, and (when a scan is wanted) discovering for us.
        public var adapterAvailable = true
        /// How many times the adapter went away: `bluetoothd` left the bus, the adapter was removed or powered off.
        public var outages = 0
        /// How many times discovery was started again after an outage.
        public var recoveries = 0
        /// What the scanner saw in the last outage, in order: `bluetoothd left the bus`, `BlueZ removed
        /// the adapter`, `the adapter was powered off`, joined by `, then `.
        public var lastOutageReason: String?
        /// From the last outage to discovery running again.
        public var lastRecoveryTime: Duration?
        /// The last failed recovery attempt (the call and BlueZ's answer), kept until one succeeds.
        public var lastRecoveryFailure: String?
        /// StartDiscovery calls of recoveries that bluetoothd refused with `org.bluez.Error.InProgress`:
        /// after a crash the kernel still runs the discovery the old bluetoothd started, and refuses
        /// a new one until it ends (up to 10.24 s later).
        public var refusedStarts = 0
        /// Times a recovery powered the adapter off and on (Adapter1.Powered) to end such a discovery,
        /// after ``BlueZScanner/powerCycleAfter`` of refusals: BlueZ has no call that stops a
        /// discovery no client of its own started.
        public var powerCycles = 0
    }

    private let adapterPath: String
    private struct State {
        var connection: DBusConnection?
        /// A scan is wanted (startScanning without stopScanning).
        var scanning = false
        /// Discovery was started on the current bluetoothd and adapter.
        var discovering = false
        var devices: BlueZDevices
        var availability = Availability()
        var outageStart: MonotonicInstant?
        /// `org.bluez` has an owner, as far as NameOwnerChanged told.
        var serviceOwned = true
        /// When to try a recovery next; `nil` when none is due.
        var nextAttempt: MonotonicInstant?
        /// The first StartDiscovery refused as in progress in this outage.
        var firstRefusal: MonotonicInstant?
        /// This outage's power cycle was done.
        var powerCycled = false
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
                "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='org.bluez.Adapter1'",
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'",
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

    /// Whether a discovery started here is wanted (it runs, or starts again when the adapter comes back).
    public var isScanning: Bool { state.withLock { $0.scanning } }

    /// The adapter's outages and recoveries so far.
    public var availability: Availability { state.withLock { $0.availability } }

    /// `false`: BlueZ's `Adapter1.SetDiscoveryFilter` takes no scan interval or window (its
    /// filter keys are UUIDs, RSSI, Pathloss, Transport, DuplicateData, Discoverable, Pattern), so
    /// a duty cycle is run by starting and stopping discovery (see `BeaconSubsystem`).
    public var runsDutyCycle: Bool { false }

    /// Sets the discovery filter (`Transport` `le`, `DuplicateData` true, so every advertisement
    /// updates RSSI) and starts discovery; a running discovery is left running. While the adapter
    /// is away (see ``availability``), the wish is kept and discovery starts when it comes back.
    public func startScanning(_ parameters: BluetoothScanParameters) throws(HardwareError) {
        try withConnection("start scanning") { (connection, s) throws(HardwareError) in
            guard !s.scanning else { return }
            guard s.availability.adapterAvailable else {
                s.scanning = true
                s.nextAttempt = s.serviceOwned ? clock.now() : nil
                return
            }
            try startDiscovery(connection, deadline: clock.now().advanced(by: callTimeout))
            s.scanning = true
            s.discovering = true
        }
    }

    /// SetDiscoveryFilter, then StartDiscovery (already running is fine unless `strict`: a new
    /// bluetoothd has no discovery of ours, so its InProgress means the kernel's is left over).
    private func startDiscovery(_ connection: DBusConnection, deadline: MonotonicInstant, strict: Bool = false) throws(HardwareError) {
        let filter = DBusValue.stringVariantDictionary([("Transport", .string("le")), ("DuplicateData", .boolean(true))])
        _ = try connection.call(destination: "org.bluez", path: adapterPath, interface: "org.bluez.Adapter1", member: "SetDiscoveryFilter",
                                body: [filter], deadline: deadline)
        _ = try connection.call(destination: "org.bluez", path: adapterPath, interface: "org.bluez.Adapter1", member: "StartDiscovery",
                                deadline: deadline, tolerating: strict ? [] : ["org.bluez.Error.InProgress"])
    }

    /// Stops discovery; harmless when none runs.
    public func stopScanning() throws(HardwareError) {
        try withConnection("stop scanning") { (connection, s) throws(HardwareError) in
            guard s.scanning else { return }
            s.scanning = false
            s.nextAttempt = nil
            guard s.discovering else { return }
            s.discovering = false
            _ = try connection.call(destination: "org.bluez", path: adapterPath, interface: "org.bluez.Adapter1", member: "StopDiscovery",
                                    deadline: clock.now().advanced(by: callTimeout),
                                    tolerating: ["org.bluez.Error.Failed", "org.bluez.Error.NotReady", "org.bluez.Error.NotAuthorized"])
        }
    }

    /// Waits until a device update with an RSSI arrives or `deadline` passes, then hands over every
    /// one received so far. Meanwhile it follows `bluetoothd` and the adapter: an outage forgets the
    /// devices, a return starts discovery again (see ``availability``). A bus that goes away throws
    /// ``HardwareError/Kind/deviceGone``.
    public func poll(
        deadline: MonotonicInstant, _ handler: (borrowing BluetoothAdvertisingReport) -> Void
    ) throws(HardwareError) -> Int {
        var sightings: [(BlueZDevices.Sighting, MonotonicInstant)] = []
        try withConnection("poll") { (connection, s) throws(HardwareError) in
            while true {
                let now = clock.now()
                let signals = connection.signals
                connection.signals.removeAll()
                for signal in signals {
                    followAdapter(signal, at: now, &s)
                    guard s.availability.adapterAvailable else { continue }
                    if let sighting = s.devices.handle(signal) { sightings.append((sighting, now)) }
                }
                if let due = s.nextAttempt, due <= now { recover(connection, at: now, &s) }
                if !sightings.isEmpty || now >= deadline { return }
                let wake = min(deadline, s.nextAttempt ?? deadline)
                for message in try connection.readMessages(deadline: wake, operation: "poll") where message.kind == .signal {
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

    /// Reads what a signal says about `bluetoothd` and the adapter: an owner that leaves, an adapter
    /// removed or powered off is an outage; a new owner, the adapter added or powered on makes a
    /// recovery due.
    private func followAdapter(_ signal: DBusMessage, at now: MonotonicInstant, _ s: inout State) {
        switch (signal.interface, signal.member) {
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            guard signal.body.count >= 3, signal.body[0].stringValue == "org.bluez" else { return }
            // An old owner that goes, even straight to a new one, took its devices and discovery along.
            if !(signal.body[1].stringValue ?? "").isEmpty { outage("bluetoothd left the bus", at: now, &s) }
            s.serviceOwned = !(signal.body[2].stringValue ?? "").isEmpty
            if s.serviceOwned { s.nextAttempt = now }
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved"):
            guard case .objectPath(let path)? = signal.body.first, path == adapterPath, signal.body.count >= 2,
                  case .array(_, let interfaces) = signal.body[1], interfaces.contains(where: { $0.stringValue == "org.bluez.Adapter1" }) else { return }
            outage("BlueZ removed the adapter", at: now, &s)
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesAdded"):
            guard case .objectPath(let path)? = signal.body.first, path == adapterPath else { return }
            if !s.availability.adapterAvailable { s.nextAttempt = now }
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            guard signal.path == adapterPath, signal.body.count >= 2, signal.body[0].stringValue == "org.bluez.Adapter1" else { return }
            for (key, value) in signal.body[1].dictionaryEntries ?? [] where key.stringValue == "Powered" {
                if value.unwrapped == .boolean(true) {
                    if !s.availability.adapterAvailable { s.nextAttempt = now }
                } else {
                    outage("the adapter was powered off", at: now, &s)
                }
            }
        default:
            return
        }
    }

    /// The adapter is gone: forget every device (a new bluetoothd or adapter starts empty, and no
    /// old advertisement may come back as new), wait for it to return.
    private func outage(_ reason: String, at now: MonotonicInstant, _ s: inout State) {
        s.devices = BlueZDevices(adapterPath: adapterPath, limit: s.devices.limit)
        s.discovering = false
        if s.availability.adapterAvailable {
            s.availability.adapterAvailable = false
            s.availability.outages += 1
            s.outageStart = now
            s.firstRefusal = nil
            s.powerCycled = false
            s.availability.lastOutageReason = reason
        } else if let told = s.availability.lastOutageReason, !told.hasSuffix(reason) {
            s.availability.lastOutageReason = told + ", then " + reason
        }
        s.nextAttempt = nil
    }

    /// One recovery attempt: the adapter must be back and powered; then discovery starts again when a
    /// scan is wanted. A failure is kept in ``Availability/lastRecoveryFailure`` and tried again
    /// after ``retryInterval`` while `org.bluez` has an owner.
    private func recover(_ connection: DBusConnection, at now: MonotonicInstant, _ s: inout State) {
        s.nextAttempt = nil
        let deadline = now.advanced(by: callTimeout)
        do throws(HardwareError) {
            let objects = try connection.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                                              member: "GetManagedObjects", deadline: deadline)
            let managed = objects.body.first ?? .array(element: .variant, [])
            var powered: Bool?
            for (objectPath, interfaces) in managed.dictionaryEntries ?? [] where objectPath.stringValue == adapterPath {
                for (interface, properties) in interfaces.dictionaryEntries ?? [] where interface.stringValue == "org.bluez.Adapter1" {
                    powered = (properties.dictionaryEntries ?? []).contains { $0.key.stringValue == "Powered" && $0.value.unwrapped == .boolean(true) }
                }
            }
            guard let powered else {
                throw HardwareError(.notFound, device: name, operation: "GetManagedObjects", detail: "BlueZ has no adapter \(adapterPath) yet")
            }
            guard powered else {
                throw HardwareError(.other, device: name, operation: "GetManagedObjects", detail: "the adapter is powered off")
            }
            if s.scanning {
                do throws(HardwareError) {
                    try startDiscovery(connection, deadline: deadline, strict: true)
                } catch let error where error.kind == .busy {
                    s.availability.refusedStarts += 1
                    let first = s.firstRefusal ?? now
                    s.firstRefusal = first
                    if !s.powerCycled, now - first >= powerCycleAfter {
                        s.powerCycled = true
                        s.availability.powerCycles += 1
                        for on in [false, true] {
                            _ = try connection.call(destination: "org.bluez", path: adapterPath, interface: "org.freedesktop.DBus.Properties", member: "Set",
                                                    body: [.string("org.bluez.Adapter1"), .string("Powered"), .variant(.boolean(on))], deadline: deadline)
                        }
                    }
                    throw error
                }
            }
            s.discovering = s.scanning
            if !s.availability.adapterAvailable {
                s.availability.adapterAvailable = true
                s.availability.recoveries += 1
                s.availability.lastRecoveryTime = s.outageStart.map { clock.now() - $0 }
            }
            s.availability.lastRecoveryFailure = nil
        } catch {
            s.availability.lastRecoveryFailure = "\(error.operation): \(error.detail)"
            if s.serviceOwned { s.nextAttempt = clock.now().advanced(by: retryInterval) }
        }
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
