import BoardConfig
import Devices
import FieldLocation
import GPSDProtocol
import LocationAPI
import LocationServices
import Logging
import Synchronization

/// What the server's watchers need from a feed right now.
public struct GPSDDemand: Sendable, Equatable {
    /// At least one client is watching: keep the receiver running.
    public var active: Bool
    /// At least one watcher wants JSON and the board has a compass: produce headings (ATT).
    public var heading: Bool
    /// At least one watcher wants the receiver's sentences or frames (gpsd's `nmea`, `raw:1`; the NMEA
    /// outputs): publish ``EngineObservation/frames(_:)``. Without it no frame is kept.
    public var frames: Bool

    /// No watcher: the feed may idle.
    public static let idle = GPSDDemand(active: false, heading: false)

    /// A demand with the given values.
    public init(active: Bool, heading: Bool, frames: Bool = false) {
        self.active = active
        self.heading = heading
        self.frames = frames
    }
}

/// The one device the server reports (DEVICES, DEVICE, the `device` member of reports).
public struct GPSDDeviceInfo: Sendable, Equatable {
    /// The device path clients see and may filter on (`?WATCH={"device":...}`).
    public var path: String
    /// gpsd's driver name: `u-blox`, `MTK-3301`, `CASIC`, `NMEA0183`.
    public var driver: String
    /// The receiver model, when known.
    public var subtype: String?
    /// Serial speed, for serial devices.
    public var bps: Int?
    /// Whether the feed produces headings (the board has a magnetometer and an accelerometer).
    public var hasCompass: Bool
    /// Whether the device is there now (its port open); a board's other receivers are listed
    /// while absent, with their path only.
    public var present = true

    /// A device description.
    public init(path: String, driver: String, subtype: String? = nil, bps: Int? = nil, hasCompass: Bool = false) {
        self.path = path
        self.driver = driver
        self.subtype = subtype
        self.bps = bps
        self.hasCompass = hasCompass
    }
}

/// A source of what the gpsd server publishes: a board's engine, or a recorded log.
///
/// The server calls ``start(publishing:)`` once when it starts and ``stop()`` when it stops, and
/// ``demandChanged(_:)`` whenever its watchers' needs change (always from one caller at a time).
/// The feed calls `publishing` with the receiver's bytes (and its frames while the demand asks for
/// them), every assembled fix and every heading, from any single thread.
public protocol GPSDFeed: AnyObject, Sendable {
    /// The device reported to clients.
    var device: GPSDDeviceInfo { get }
    /// Every device of the feed now, ``device`` first (a board with several receivers lists each).
    var devices: [GPSDDeviceInfo] { get }
    /// Begins publishing (no demand is implied).
    func start(publishing: @escaping @Sendable (EngineObservation) -> Void)
    /// Stops publishing and drops any demand.
    func stop()
    /// The watchers' needs changed.
    func demandChanged(_ demand: GPSDDemand)
    /// The differential corrections now (TPV `dgpsAge`, `dgpsSta`), when the feed has a correction link.
    var correctionStatus: CorrectionStatus? { get }
}

extension GPSDFeed {
    /// No correction link.
    public var correctionStatus: CorrectionStatus? { nil }
    /// One device.
    public var devices: [GPSDDeviceInfo] { [device] }
}

/// The feed of a board's ``LocationEngine``: the engine's observations are published as they come;
/// while at least one client watches, one engine client holds the demand (the board's `gpsd_clients`
/// level, best accuracy by default, headings when a JSON watcher wants them and the board has a
/// compass), so the power policy keeps the receiver tracking; when the last watcher leaves the
/// engine client is removed and the receiver idles. Under `gpsd_clients = "passive"` the engine
/// client is passive: watchers see the fixes other clients cause and add no demand.
public final class EngineFeed: GPSDFeed {
    /// The engine.
    public let engine: LocationEngine
    /// The engine's corrections (NTRIP), if attached.
    public var correctionStatus: CorrectionStatus? { engine.correctionStatus }
    /// The device reported to clients.
    public let device: GPSDDeviceInfo
    private let logger: Logger
    /// The name of the engine client holding the demand (`gpsd`; the NMEA outputs' own feed: `nmea`).
    public let clientName: String
    private struct State {
        var observer: Int?
        var client: Int?
        var lastError: String?
    }
    private let state = Mutex(State())

    /// A feed over `engine`; `logger` hears the engine's errors (a busy or missing port, sensor failures).
    public init(engine: LocationEngine, logger: Logger = Logger(label: "fieldlocd.engine"), clientName: String = "gpsd") {
        self.engine = engine
        self.clientName = clientName
        self.logger = logger
        device = EngineFeed.deviceInfo(for: engine.board, hasCompass: engine.headingAvailable)
    }

    /// How a board appears in DEVICE reports: its UART (or `sim://NAME` for a simulated board), the
    /// driver gpsd would name for its receiver family, the model and the baud rate.
    public static func deviceInfo(for board: BoardDescription, hasCompass: Bool) -> GPSDDeviceInfo {
        let driver = (board.receiver?.family ?? .genericNMEA).entry.gpsdDriver
        let path = board.simulated ? "sim://\(board.name)" : (board.receiver?.uart ?? "sim://\(board.name)")
        return GPSDDeviceInfo(path: path, driver: driver, subtype: board.receiver?.model,
                              bps: board.receiver.map { Int($0.baudRate.rawValue) }, hasCompass: hasCompass)
    }

    /// Each receiver of the board with the device it is open on (or its board file's port or USB
    /// identity while absent); one receiver: ``device``.
    public var devices: [GPSDDeviceInfo] {
        let board = engine.board
        let sources = engine.receiverSources
        guard !board.otherReceivers.isEmpty else {
            // A family found on arrival names the driver and the model.
            guard board.receiver?.detectsFamily == true, let source = sources.first else { return [device] }
            var one = device
            one.driver = source.gpsdDriver
            one.subtype = source.model
            one.bps = source.baudRate
            return [one]
        }
        return board.receivers.enumerated().map { index, receiver in
            let source = index < sources.count ? sources[index] : nil
            var info = GPSDDeviceInfo(path: source?.device ?? receiver.uart ?? receiver.label, driver: source?.gpsdDriver ?? receiver.family.entry.gpsdDriver,
                                      subtype: source?.model ?? receiver.model, bps: source?.baudRate ?? receiver.baudRate.rawValue,
                                      hasCompass: index == 0 && device.hasCompass)
            info.present = source?.open ?? false
            return info
        }
    }

    /// The id of the engine client holding the watchers' demand, `nil` while nobody watches.
    public var engineClient: Int? { state.withLock { $0.client } }

    public func start(publishing: @escaping @Sendable (EngineObservation) -> Void) {
        let id = engine.observe(publishing)
        let previous = state.withLock { s -> Int? in
            defer { s.observer = id }
            return s.observer
        }
        if let previous { engine.removeObserver(previous) }
    }

    public func stop() {
        let (observer, client) = state.withLock { s -> (Int?, Int?) in
            defer { s.observer = nil; s.client = nil }
            return (s.observer, s.client)
        }
        if let observer { engine.removeObserver(observer) }
        if let client { engine.unregister(client) }
    }

    public func demandChanged(_ demand: GPSDDemand) {
        if let observer = state.withLock({ $0.observer }) { engine.setObserver(observer, wantsFrames: demand.active && demand.frames) }
        guard demand.active else {
            if let client = state.withLock({ s -> Int? in defer { s.client = nil }; return s.client }) {
                engine.unregister(client)
                logger.info("last watcher left: released the receiver")
            }
            return
        }
        // The board's `gpsd_clients`: an accuracy level, or passive (no demand at all).
        let level = engine.board.gpsdClients
        let passive = level == .passive
        let existing = state.withLock { $0.client }
        let id: Int
        if let existing {
            id = existing
        } else {
            let registration = engine.register(name: clientName) { [weak self] event in self?.engineEvent(event) }
            id = registration.id
            for problem in registration.problems { logger.warning("\(problem)") }
            state.withLock { $0.client = id }
            logger.info(passive ? "first watcher: passive (gpsd_clients = \"passive\"), the receiver runs only for other clients"
                        : "first watcher: holding the receiver (\(level.rawValue) accuracy\(demand.heading ? ", headings" : ""))")
        }
        let heading = demand.heading && engine.headingAvailable
        engine.update(id) { services in
            services.updatingLocation = true
            services.passive = passive
            switch level {
            case .passive, .best: services.desiredAccuracy = .best
            case .bestForNavigation: services.desiredAccuracy = .bestForNavigation
            case .nearestTenMeters: services.desiredAccuracy = .nearestTenMeters
            case .hundredMeters: services.desiredAccuracy = .hundredMeters
            case .kilometer: services.desiredAccuracy = .kilometer
            case .threeKilometers: services.desiredAccuracy = .threeKilometers
            }
            services.distanceFilter = nil
            services.pausesAutomatically = false
            services.updatingHeading = heading
            services.headingFilter = nil
        }
    }

    private func engineEvent(_ event: EngineEvent) {
        guard case .error(let error) = event else { return }
        let text = "\(error)"
        let fresh = state.withLock { s -> Bool in
            defer { s.lastError = text }
            return s.lastError != text
        }
        if fresh { logger.warning("engine: \(text)") }
    }
}
