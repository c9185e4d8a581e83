/// A service of the board that needs a device of its own.
public enum DeviceService: String, Sendable, Hashable, CaseIterable {
    /// Locations: the receiver's serial port.
    case location
    /// Headings: the I2C bus of the magnetometer and accelerometer.
    case heading
    /// Time from the receiver's pulse: the PPS device or the GPIO chip with the PPS line.
    case time
    /// Beacon ranging and monitoring: the Bluetooth adapter.
    case beacons
}

/// Whether one service of the board can run on the hardware as it is now, and when not, which
/// device it lacks and why. A missing or inaccessible device makes that service unavailable, not
/// the client unauthorised: authorisation is the access policy's alone.
public struct ServiceAvailability: Sendable, Hashable, CustomStringConvertible {
    /// Why a device cannot be used.
    public enum Problem: String, Sendable, Hashable {
        /// The device node does not exist (a USB receiver not plugged in, a wrong path).
        case missing
        /// The node exists but this process may not read and write it (the group that grants it is named in the reason).
        case permission
        /// The node does not exist because the kernel interface is not enabled (a module or
        /// device-tree overlay not loaded, e.g. I2C not enabled in a Raspberry Pi's config.txt).
        case notEnabled = "not-enabled"
    }

    /// The service.
    public var service: DeviceService
    /// The device node (or adapter) the service needs, as the board file names it.
    public var device: String
    /// Why the device cannot be used; `nil` when the service is available.
    public var problem: Problem?
    /// The explanation, naming the device (and the group or the setting that would fix it); `nil` when available.
    public var reason: String?

    /// Whether the service can run.
    public var isAvailable: Bool { problem == nil }

    /// A service's availability.
    public init(service: DeviceService, device: String, problem: Problem? = nil, reason: String? = nil) {
        self.service = service
        self.device = device
        self.problem = problem
        self.reason = reason
    }

    /// `location: available (/dev/serial0)` or `heading: unavailable: /dev/i2c-1 …`.
    public var description: String {
        guard let problem else { return "\(service.rawValue): available (\(device))" }
        return "\(service.rawValue): unavailable (\(problem.rawValue)): \(reason ?? device)"
    }
}

/// The services a board has, each with its availability on the hardware as it is now. A service
/// the board does not have (no sensors, no Bluetooth adapter) is not listed.
public struct DeviceCapabilities: Sendable, Hashable {
    /// One entry per service the board has, in ``DeviceService`` order.
    public var services: [ServiceAvailability]

    /// Capabilities from a list of services.
    public init(_ services: [ServiceAvailability] = []) {
        self.services = services.sorted {
            (DeviceService.allCases.firstIndex(of: $0.service) ?? 0) < (DeviceService.allCases.firstIndex(of: $1.service) ?? 0)
        }
    }

    /// The entry of `service`, `nil` when the board does not have it.
    public subscript(service: DeviceService) -> ServiceAvailability? { services.first { $0.service == service } }

    /// Whether `service` is on the board and can run now.
    public func isAvailable(_ service: DeviceService) -> Bool { self[service]?.isAvailable ?? false }

    /// Why `service` cannot run: the board lacks it, or its device's reason; `nil` when it can.
    public func problem(_ service: DeviceService, board: String) -> String? {
        guard let entry = self[service] else { return "the board \(board) has no \(service.rawValue) service" }
        return entry.isAvailable ? nil : (entry.reason ?? "\(entry.device) cannot be used")
    }
}
