import DBusWire
import Glibc
import HardwareInterfaces

/// A client connection to a D-Bus bus over its Unix socket: SASL `AUTH EXTERNAL`, `Hello`, method
/// calls that wait for their reply with a deadline, and the signals that arrive meanwhile, queued.
///
/// Not thread-safe: its owner (``BlueZScanner``) serializes the calls.
final class DBusConnection {
    /// The bus's address as given (`unix:path=…`), for messages.
    let address: String
    let clock: any MonotonicClock
    private(set) var fd: Int32
    private var reader = DBusMessageReader()
    private var serial: UInt32 = 0
    /// Signals received while waiting for replies, oldest first (at most ``signalLimit``).
    var signals: [DBusMessage] = []
    /// Signals dropped because the queue was full.
    private(set) var droppedSignals = 0
    let signalLimit = 4096
    /// The unique name the bus gave us (`:1.42`).
    private(set) var uniqueName = ""

    /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
    static var systemBusAddress: String {
        if let text = getenv("DBUS_SYSTEM_BUS_ADDRESS"), let value = String(validatingCString: text), !value.isEmpty { return value }
        return "unix:path=/run/dbus/system_bus_socket"
    }

    /// Connects, authenticates and says Hello, all before `deadline`.
    init(address: String, clock: any MonotonicClock, deadline: MonotonicInstant) throws(HardwareError) {
        self.address = address
        self.clock = clock
        fd = try Self.connect(address)
        do throws(HardwareError) {
            try authenticate(deadline: deadline)
            let reply = try call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                 member: "Hello", deadline: deadline)
            uniqueName = reply.body.first?.stringValue ?? ""
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    func failure(_ kind: HardwareError.Kind, _ operation: String, _ detail: String, hint: String? = nil) -> HardwareError {
        HardwareError(kind, device: "D-Bus \(address)", operation: operation, detail: detail, hint: hint)
    }

    /// Opens a nonblocking stream socket to the first `unix:path=` or `unix:abstract=` address.
    private static func connect(_ address: String) throws(HardwareError) -> Int32 {
        let device = "D-Bus \(address)"
        var path: String?
        var abstract = false
        for candidate in address.split(separator: ";") where candidate.hasPrefix("unix:") {
            for pair in candidate.dropFirst(5).split(separator: ",") {
                if pair.hasPrefix("path=") { path = unescape(pair.dropFirst(5)) }
                if pair.hasPrefix("abstract=") { path = unescape(pair.dropFirst(9)); abstract = true }
            }
            if path != nil { break }
        }
        guard let path, var socketAddress = UnixSockets.address(abstract ? "@" + path : path) else {
            throw HardwareError(.invalidArgument, device: device, operation: "connect", detail: "no unix:path= or unix:abstract= address of a usable length",
                                hint: "set DBUS_SYSTEM_BUS_ADDRESS to unix:path=/run/dbus/system_bus_socket")
        }
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        if abstract {
            // An abstract name: a leading zero byte, and the address is only as long as the name.
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0[0] = 0 }
            length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + path.utf8.count)
        }
        let (fd, code) = Sys.call { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0) }
        guard fd >= 0 else { throw Sys.error(code, device: device, operation: "socket") }
        let (result, connectCode) = Sys.call {
            withUnsafePointer(to: &socketAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) } }
        }
        if result != 0 {
            Glibc.close(fd)
            let missing = connectCode == ENOENT || connectCode == ECONNREFUSED
            throw HardwareError(missing ? .notFound : hardwareErrorKind(errno: connectCode), device: device, operation: "connect",
                                detail: errnoDetail(connectCode),
                                hint: missing ? "no D-Bus daemon listens there: is dbus running (systemctl status dbus)?" : nil)
        }
        return fd
    }

    /// `%xx` escapes of a D-Bus address value.
    private static func unescape(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Bytes

    private func send(_ bytes: [UInt8], deadline: MonotonicInstant, operation: String) throws(HardwareError) {
        var sent = 0
        while sent < bytes.count {
            let (count, code) = bytes.withUnsafeBytes { raw in
                Sys.call { Glibc.send(fd, raw.baseAddress.map { $0 + sent }, raw.count - sent, Int32(MSG_NOSIGNAL)) }
            }
            if count > 0 { sent += count; continue }
            if count < 0 && code != EAGAIN && code != EWOULDBLOCK {
                throw failure(code == EPIPE || code == ECONNRESET ? .deviceGone : hardwareErrorKind(errno: code), operation, errnoDetail(code))
            }
            let (events, pollCode) = Sys.poll(fd, events: Int16(POLLOUT), deadline: deadline, clock: clock)
            if pollCode != 0 { throw failure(hardwareErrorKind(errno: pollCode), operation, errnoDetail(pollCode)) }
            if events == 0 { throw failure(.timeout, operation, "the bus took no more bytes before the deadline") }
        }
    }

    /// Reads what is waiting, or waits for bytes until `deadline`. Returns the bytes (empty at the deadline).
    private func receive(deadline: MonotonicInstant, operation: String) throws(HardwareError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let (count, code) = buffer.withUnsafeMutableBytes { raw in Sys.call { Glibc.recv(fd, raw.baseAddress, raw.count, 0) } }
            if count > 0 { return Array(buffer[0..<count]) }
            if count == 0 { throw failure(.deviceGone, operation, "the bus closed the connection", hint: "is dbus (or bluetoothd) restarting?") }
            if code != EAGAIN && code != EWOULDBLOCK {
                throw failure(code == ECONNRESET ? .deviceGone : hardwareErrorKind(errno: code), operation, errnoDetail(code))
            }
            let (events, pollCode) = Sys.poll(fd, events: Int16(POLLIN), deadline: deadline, clock: clock)
            if pollCode != 0 { throw failure(hardwareErrorKind(errno: pollCode), operation, errnoDetail(pollCode)) }
            if events == 0 { return [] }
        }
    }

    private func authenticate(deadline: MonotonicInstant) throws(HardwareError) {
        try send(DBusAuth.authExternal(uid: geteuid()), deadline: deadline, operation: "authenticate")
        var lines: [UInt8] = []
        while true {
            let bytes = try receive(deadline: deadline, operation: "authenticate")
            if bytes.isEmpty { throw failure(.timeout, "authenticate", "no answer to AUTH EXTERNAL before the deadline") }
            lines += bytes
            let reply: DBusAuth.Reply?
            do { reply = try DBusAuth.reply(from: &lines) } catch { throw failure(.bus, "authenticate", error.description) }
            switch reply {
            case nil: continue
            case .ok:
                // Bytes after OK would be a server speaking before BEGIN: there are none in the protocol.
                try send(DBusAuth.begin, deadline: deadline, operation: "authenticate")
                return
            case .rejected(let mechanisms):
                throw failure(.permissionDenied, "authenticate", "the bus refused AUTH EXTERNAL (it offers \(mechanisms.joined(separator: " ")))")
            case .other(let line):
                throw failure(.bus, "authenticate", "unexpected answer '\(line)'")
            }
        }
    }

    // MARK: Messages

    /// Reads and decodes the messages waiting, or waits for some until `deadline`; signals are queued,
    /// replies returned.
    func readMessages(deadline: MonotonicInstant, operation: String) throws(HardwareError) -> [DBusMessage] {
        let bytes = try receive(deadline: deadline, operation: operation)
        reader.append(bytes)
        var out: [DBusMessage] = []
        do {
            while let message = try reader.next() { out.append(message) }
        } catch {
            throw failure(.bus, operation, "malformed message from the bus: \(error)")
        }
        return out
    }

    /// Keeps a signal, dropping the oldest when the queue is full.
    func queue(_ signal: DBusMessage) {
        if signals.count >= signalLimit {
            signals.removeFirst()
            droppedSignals += 1
        }
        signals.append(signal)
    }

    /// Calls a method and waits for its reply until `deadline`. An error reply throws its
    /// ``DBusCallError/hardwareError(operation:path:)`` unless its name is `tolerated` (then it is
    /// returned); signals that arrive meanwhile are queued.
    func call(
        destination: String, path: String, interface: String, member: String, body: [DBusValue] = [], deadline: MonotonicInstant,
        tolerating tolerated: Set<String> = []
    ) throws(HardwareError) -> DBusMessage {
        serial = serial == UInt32.max ? 1 : serial + 1
        let mine = serial
        let message = DBusMessage.methodCall(serial: mine, destination: destination, path: path, interface: interface, member: member, body: body)
        let operation = "\(interface).\(member)"
        try send(message.encoded(), deadline: deadline, operation: operation)
        while true {
            let messages = try readMessages(deadline: deadline, operation: operation)
            if messages.isEmpty && clock.now() >= deadline {
                throw failure(.timeout, operation, "no reply before the deadline", hint: destination == "org.bluez" ? "is bluetoothd hung?" : nil)
            }
            var reply: DBusMessage?
            for received in messages {
                if received.replySerial == mine, received.kind == .methodReturn || received.kind == .error {
                    reply = received
                } else if received.kind == .signal {
                    queue(received)
                }
            }
            if let reply {
                if reply.kind == .error, !tolerated.contains(reply.errorName ?? "") {
                    throw DBusCallError(name: reply.errorName ?? "", message: reply.body.first?.stringValue ?? "").hardwareError(operation: operation, path: path)
                }
                return reply
            }
        }
    }
}

/// A D-Bus error reply: its name and message, and what it means for the scanner.
struct DBusCallError {
    var name: String
    var message: String

    func hardwareError(operation: String, path: String) -> HardwareError {
        let detail = "\(name): \(message)"
        let device = path.hasPrefix("/org/bluez/") ? String(path.dropFirst("/org/bluez/".count)) : "org.bluez"
        switch name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return HardwareError(.notFound, device: device, operation: operation, detail: detail,
                                 hint: "bluetoothd is not running: sudo systemctl enable --now bluetooth (or set bluetooth_backend = \"hci\")")
        case "org.bluez.Error.NotReady":
            return HardwareError(.other, device: device, operation: operation, detail: detail + " (the adapter is powered off)",
                                 hint: "power it on: bluetoothctl power on (and check rfkill list)")
        case "org.bluez.Error.NotAuthorized", "org.freedesktop.DBus.Error.AccessDenied", "org.bluez.Error.NotPermitted":
            return HardwareError(.permissionDenied, device: device, operation: operation, detail: detail,
                                 hint: "D-Bus policy refused it: add the user to group bluetooth (sudo usermod -aG bluetooth $USER) and log in again")
        case "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.UnknownMethod":
            return HardwareError(.notFound, device: device, operation: operation, detail: detail,
                                 hint: "BlueZ has no adapter \(device): see bluetoothctl list")
        case "org.bluez.Error.InProgress":
            return HardwareError(.busy, device: device, operation: operation, detail: detail)
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
            return HardwareError(.timeout, device: device, operation: operation, detail: detail, hint: "is bluetoothd hung?")
        default:
            return HardwareError(.other, device: device, operation: operation, detail: detail)
        }
    }
}
