import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationConsole
import FieldLocationDaemon
import FieldLocationOutput
import FieldLocationTime
import FieldLocationWire
import Foundation
import HardwareInterfaces
import LinuxHardware
import LocationAPI
import LocationServices
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// `fieldlocd`: one process owns one board and serves gpsd's JSON protocol on a loopback TCP port.
@main
struct FieldLocD: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fieldlocd",
        abstract: "The FieldLocation daemon: owns one board and serves gpsd's JSON protocol (gpspipe, cgps, python3-gps, a relaying gpsd...).",
        discussion: """
            Listens on 127.0.0.1:2947 by default. Binding every interface needs --listen-any, and peers that are \
            not on this host are refused unless --allow-remote is given. Control requests (?DEVICE={...}) are \
            refused unless the connecting process's user (found in the kernel's socket table) is on the access \
            policy's control line; even then only a request that changes nothing is answered, because the engine \
            drives the receiver. SIGTERM or SIGINT stops accepting, closes the clients, and leaves the receiver idle.
            """,
        version: FieldLocationDaemonVersion.string)

    @Option(help: "A built-in board name or a board file.")
    var board = "sim"

    @Option(help: "The address to listen on.")
    var listen = "127.0.0.1"

    @Option(help: "The TCP port (gpsd's is 2947).")
    var port = 2947

    @Flag(name: .customLong("listen-any"), help: "Allow a wildcard --listen address (0.0.0.0, ::): every interface.")
    var listenAny = false

    @Flag(name: .customLong("allow-remote"), help: "Accept peers that are not on this host.")
    var allowRemote = false

    @Option(help: "Speed of a simulated board, or epochs per second of --replay.")
    var speed = 1.0

    @Option(help: "The access policy file (who may watch, at which accuracy, who may send control requests); read again on SIGHUP and when it changes.")
    var policy = "/etc/fieldloc/access.policy"

    @Option(name: .customLong("state-dir"), help: "Folder of stored calibrations and regions (default: $STATE_DIRECTORY, else the CLI's).")
    var stateDirectory: String?

    @Option(help: "Play a recorded NMEA log instead of running a board (for comparisons with gpsd under gpsfake).")
    var replay: String?

    @Flag(name: .customLong("replay-once"), help: "With --replay: play the log once, then shut down (as gpsfake -1).")
    var replayOnce = false

    @Option(name: .customLong("max-clients"), help: "The most clients connected at once.")
    var maxClients = 64

    @Option(name: .customLong("att-interval"), help: "Seconds of board time between ATT reports (0: every compass reading, 10 per second).")
    var attitudeInterval = 1.0

    @Option(name: .customLong("client-socket"), help: "The local client socket for LocationManager programs ('none' to disable).")
    var clientSocket = ClientSocketProtocol.configuredPath

    @Option(name: .customLong("client-socket-group"), help: "Group given the client socket (mode 0660): its members may connect.")
    var clientSocketGroup: String?

    @Option(name: .customLong("release-startup-code"),
            help: "Seconds after start-up when the start-up-only code pages of the executable and its libraries are given back to the kernel (0: never).")
    var releaseStartupCode: Double = 20

    @Option(name: .customLong("chrony-sock"),
            help: "Send the serial-time samples to chrony's SOCK refclock at PATH (chrony.conf: refclock SOCK PATH refid GPS).")
    var chronySocket: String?

    @Option(name: .customLong("chrony-pps-sock"), help: "Send the PPS samples to chrony's SOCK refclock at PATH (refid PPS).")
    var chronyPPSSocket: String?

    @Flag(name: .customLong("ntp-shm"), help: "Write NTP shared-memory units 0 (serial time) and 1 (PPS), as gpsd does.")
    var ntpSharedMemory = false

    @Option(name: .customLong("time-offset"),
            help: "Seconds from the start of a second to the receiver's first byte for it (overrides the board's time_offset).")
    var timeOffset: Double?

    @Option(name: .customLong("nmea-tcp"), help: "Serve NMEA-0183 on TCP HOST:PORT (OpenCPN and SignalK read 127.0.0.1:10110).")
    var nmeaTCP: String?

    @Option(name: .customLong("nmea-udp"), help: "Send NMEA-0183 as UDP datagrams to HOST:PORT (unicast or a broadcast address).")
    var nmeaUDP: String?

    @Flag(name: .customLong("nmea-listen-any"), help: "Allow a wildcard --nmea-tcp address (0.0.0.0, ::): every interface.")
    var nmeaListenAny = false

    @Flag(name: .customLong("nmea-allow-remote"), help: "Accept NMEA TCP peers, and send NMEA UDP to addresses, not on this host.")
    var nmeaAllowRemote = false

    @Option(name: .customLong("nmea-sentences"), help: "The sentences the NMEA outputs send by default (GGA,RMC,HDT,...; '*' for all). A TCP client may send its own line: sentences=GGA,HDT every=N.")
    var nmeaSentences = "*"

    @Option(name: .customLong("nmea-every"), help: "The NMEA outputs send every Nth sentence of each kind by default (10: compass sentences at 1 Hz).")
    var nmeaEvery = 1

    @Option(name: .customLong("receiver-config"),
            help: "passive (never write to the receiver), ram (read, change in RAM, restore on exit) or persist (save and verify); overrides the board's receiver_config.")
    var receiverConfig: String?

    @Option(name: .customLong("sim-time-offset"),
            help: "Simulated board only: run the simulated receiver's clock on the system clock (its default), SECONDS ahead (negative: behind), so its time can feed --chrony-sock / --ntp-shm.")
    var simTimeOffset: Double?

    @Option(name: .customLong("sim-time"),
            help: "Simulated board only: start the simulated receiver's clock at this UTC instant (YYYY-MM-DDTHH:MM:SSZ) instead of the system's time, for tests.")
    var simTime: String?

    @Option(name: .customLong("http"),
            help: "Serve the status page (/), its live stream (/events), /status.json and Prometheus /metrics on HOST:PORT (loopback unless --http-listen-any; remote peers need --allow-remote).")
    var http: String?

    @Flag(name: .customLong("http-listen-any"), help: "Allow a wildcard --http address (0.0.0.0, ::): every interface.")
    var httpListenAny = false

    @Flag(name: .customLong("metrics-position"), help: "Put the position (latitude, longitude, altitude) in /metrics; off by default, since metrics leave the unit.")
    var metricsPosition = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(name: .customLong("ntrip"),
            help: "RTK corrections from an NTRIP caster: ntrip://USER@HOST[:2101]/MOUNT (ntrip1:// for NTRIP 1.0); overrides the board's [ntrip].")
    var ntrip: String?

    @Option(name: .customLong("ntrip-password-file"), help: "A file whose first line is the caster's password (else $FIELDLOC_NTRIP_PASSWORD, else the board's password_file).")
    var ntripPasswordFile: String?

    @Option(name: .customLong("ntrip-gga"), help: "Send the position to the caster: auto (when its source table asks), always or never.")
    var ntripGGA: String?

    @Option(name: .customLong("ntrip-gga-interval"), help: "Seconds between GGA sentences to the caster (default 10).")
    var ntripGGAInterval: Double?

    /// The simulated board's clock the options ask for (``SimulatedSystemTime/choice(simTime:offsetSeconds:speed:)``).
    func simulatedTime() throws(ValidationError) -> SimulatedSystemTime {
        do {
            return try SimulatedSystemTime.choice(simTime: simTime, offsetSeconds: simTimeOffset, speed: speed)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func validate() throws {
        guard speed.isFinite, speed > 0, speed <= 1000 else { throw ValidationError("--speed must be above 0 and at most 1000") }
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be in 1...65535") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level '\(logLevel)' is not a log level") }
        if replayOnce && replay == nil { throw ValidationError("--replay-once needs --replay LOG") }
        guard attitudeInterval.isFinite, attitudeInterval >= 0, attitudeInterval <= 3600 else {
            throw ValidationError("--att-interval must be in 0...3600 seconds")
        }
        guard releaseStartupCode.isFinite, releaseStartupCode >= 0, releaseStartupCode <= 86400 else {
            throw ValidationError("--release-startup-code must be in 0...86400 seconds")
        }
        guard maxClients >= 1 else { throw ValidationError("--max-clients must be at least 1") }
        if let timeOffset, !(timeOffset.isFinite && abs(timeOffset) < 2) {
            throw ValidationError("--time-offset must be within ±2 seconds")
        }
        if let receiverConfig, ReceiverConfigMode(rawValue: receiverConfig) == nil {
            throw ValidationError("--receiver-config must be passive, ram or persist, not '\(receiverConfig)'")
        }
        if (nmeaTCP != nil || nmeaUDP != nil) && replay != nil { throw ValidationError("--nmea-tcp and --nmea-udp need a board, not --replay") }
        _ = try nmeaOutput()
        if http != nil && replay != nil { throw ValidationError("--http needs a board, not --replay") }
        if metricsPosition && http == nil { throw ValidationError("--metrics-position needs --http HOST:PORT") }
        _ = try console()
        _ = try simulatedTime()
        if simTime != nil && servesTime {
            throw ValidationError("--sim-time gives the simulated receiver a date of its own: it cannot feed the system's time service")
        }
    }

    /// The NMEA outputs the flags ask for.
    func nmeaOutput() throws -> NMEAOutputConfiguration {
        var nmea = NMEAOutputConfiguration()
        do {
            if let nmeaTCP { nmea.tcp = try NMEAOutputConfiguration.endpoint(nmeaTCP, what: "--nmea-tcp") }
            if let nmeaUDP { nmea.udp = try NMEAOutputConfiguration.endpoint(nmeaUDP, what: "--nmea-udp") }
            nmea.listenAny = nmeaListenAny
            nmea.allowRemote = nmeaAllowRemote
            nmea.filter = try NMEAOutputFilter.parse("sentences=\(nmeaSentences) every=\(nmeaEvery)")
            try nmea.validate()
        } catch let problem as GPSDServerConfiguration.Problem {
            throw ValidationError(problem.description)
        } catch let problem as NMEAOutputFilter.Problem {
            throw ValidationError("--nmea-sentences/--nmea-every: \(problem.description)")
        }
        return nmea
    }

    /// The HTTP console the flags ask for, or `nil`.
    func console() throws -> ConsoleConfiguration? {
        guard let http else { return nil }
        guard let endpoint = ConsoleConfiguration.endpoint(http) else {
            throw ValidationError("--http '\(http)' is not HOST:PORT (for example 127.0.0.1:8947)")
        }
        var console = ConsoleConfiguration()
        (console.host, console.port) = endpoint
        console.listenAny = httpListenAny
        console.allowRemote = allowRemote
        console.metricsPosition = metricsPosition
        if let problem = console.problem() { throw ValidationError(problem) }
        return console
    }

    /// Whether any time output was asked for.
    var servesTime: Bool { chronySocket != nil || chronyPPSSocket != nil || ntpSharedMemory }

    /// The time service for the asked outputs, or nil. Throws when a sink cannot be created at all
    /// (a path too long, no permission for a shared-memory segment); a missing chronyd is not an error.
    func timeService(board: BoardDescription?, logger: Logger, simulated: (engine: LocationEngine, time: SimulatedSystemTime)? = nil) throws -> TimeService? {
        guard servesTime else { return nil }
        var sinks = TimeService.Sinks()
        do throws(HardwareError) {
            if let chronySocket { sinks.serial.append(try ChronySocketSink(path: chronySocket)) }
            if let chronyPPSSocket { sinks.pulse.append(try ChronySocketSink(path: chronyPPSSocket)) }
            if ntpSharedMemory {
                sinks.serial.append(try NTPSharedMemorySink(unit: 0))
                sinks.pulse.append(try NTPSharedMemorySink(unit: 1))
            }
        } catch {
            throw ValidationError("time service: \(error.description)")
        }
        let offset = timeOffset ?? board?.receiver?.timeOffset ?? 0
        for sink in sinks.serial + sinks.pulse { logger.info("time samples to \(sink.name)") }
        if let simulated {
            // The simulated receiver's bytes arrive at their epoch's instant of the manual clock (no
            // transmission time); that clock is placed on the system clock by the start anchor.
            let clock = simulated.engine.clock
            return TimeService(sinks: sinks, configuration: TimeSampler.Configuration(timeOffset: offset), baudRate: nil,
                               monotonicNow: { clock.now() }, systemNanoseconds: simulated.time.systemNanoseconds,
                               logger: Logger(label: "fieldlocd.time"))
        }
        return TimeService(sinks: sinks, configuration: TimeSampler.Configuration(timeOffset: offset),
                           baudRate: board?.receiver.map { Int($0.baudRate.rawValue) }, logger: Logger(label: "fieldlocd.time"))
    }

    func run() async throws {
        // One network thread serves every socket (gpsd, client socket, NMEA, console).
        GPSDServer.useOneNetworkThread(environment: ProcessInfo.processInfo.environment)
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "fieldlocd")

        var server = GPSDServerConfiguration()
        server.host = listen
        server.port = port
        server.listenAny = listenAny
        server.allowRemote = allowRemote
        server.maxClients = maxClients
        server.attitudeInterval = .nanoseconds(Int64(attitudeInterval * 1e9))
        // Read again on SIGHUP and when the file changes; a bad file keeps the policy in force.
        let policySource: AccessPolicySource
        do { policySource = try AccessPolicySource.load(path: policy) } catch { throw ValidationError(error.description) }
        server.policy = policySource.current
        server.policySource = policySource
        server.holdsReceiver = servesTime
        do { try server.validate() } catch { throw ValidationError(error.description) }
        if !GPSDAddressRules.isWildcard(host: listen) && !["127.0.0.1", "::1", "localhost"].contains(listen) && !allowRemote {
            logger.warning("listening on \(listen) without --allow-remote: peers not on this host will be refused")
        }

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        var clientEngine: LocationEngine?
        let feed: any GPSDFeed
        var timeService: TimeService?
        var consoleParts: (configuration: ConsoleConfiguration, monitor: StatusMonitor)?
        if let replay {
            timeService = try self.timeService(board: nil, logger: logger)
            let replayFeed = ReplayFeed(path: replay, speed: speed, once: replayOnce, logger: Logger(label: "fieldlocd.replay"))
            do { _ = try LogReplay(path: replay).lines(maximumSize: ReplayFeed.maximumLogSize) } catch { throw ValidationError(error.description) }
            feed = replayFeed
            services.append(.init(service: replayFeed,
                                  successTerminationBehavior: replayOnce ? .gracefullyShutdownGroup : .cancelGroup,
                                  failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "replay"))
        } else {
            let (engine, calibrationCreated) = try openEngine(logger: logger)
            if var console = try console() {
                console.policy = policySource.current
                console.policySource = policySource
                let monitor = StatusMonitor(engine: engine, demand: false)
                monitor.calibrationCreated = calibrationCreated
                consoleParts = (console, monitor)
            }
            var simulatedTime: SimulatedSystemTime?
            if engine.board.simulated {
                if servesTime && speed != 1 {
                    throw ValidationError("the time service on a simulated board needs --speed 1 (the receiver's clock must run with the system's)")
                }
                // The receiver's clock: the system's (plus --sim-time-offset) unless --sim-time fixes its start.
                let clock = try self.simulatedTime()
                simulatedTime = clock
                if let simTime {
                    logger.info("simulated receiver's clock from \(simTime)")
                } else {
                    logger.info("simulated receiver on the system clock \(simTimeOffset ?? 0) s ahead")
                }
            } else if simTimeOffset != nil || simTime != nil {
                throw ValidationError("--sim-time and --sim-time-offset are for simulated boards; \(engine.board.name) has a real receiver (--time-offset sets its delay)")
            }
            timeService = try self.timeService(board: engine.board, logger: logger, simulated: simulatedTime.map { (engine, $0) })
            clientEngine = engine
            feed = EngineFeed(engine: engine, logger: Logger(label: "fieldlocd.engine"))
            var started: (@Sendable (MonotonicInstant) -> Void)?
            if let simulatedTime {
                started = { @Sendable instant in simulatedTime.start(engine: engine, at: instant) }
            }
            services.append(.init(service: EngineRunner(engine: engine, speed: speed, logger: Logger(label: "fieldlocd.engine"), started: started),
                                  failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "engine"))
        }
        // Services stop in reverse order: the socket first (clients closed, demand released), then the engine.
        let observers: [@Sendable (EngineObservation) -> Void] = timeService.map { service in [{ service.observe($0) }] } ?? []
        services.append(.init(service: GPSDServer(configuration: server, feed: feed, logger: Logger(label: "fieldlocd.gpsd"), observers: observers),
                              failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "gpsd-socket"))
        // The NMEA-0183 outputs, with a feed (an engine client) of their own.
        let nmea = try nmeaOutput()
        if let engine = clientEngine, nmea.enabled {
            let nmeaFeed = EngineFeed(engine: engine, logger: Logger(label: "fieldlocd.nmea"), clientName: "nmea")
            services.append(.init(service: NMEAOutputServer(configuration: nmea, feed: nmeaFeed, logger: Logger(label: "fieldlocd.nmea")),
                                  failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "nmea"))
        }
        // The local client socket (LocationManager over RemoteLocationProvider); a socket that cannot be
        // created (no /run/fieldloc for a non-root run) is logged and the gpsd socket keeps serving.
        if let engine = clientEngine, clientSocket != "none" {
            var clients = ClientSocketConfiguration()
            clients.path = clientSocket
            clients.socketGroup = clientSocketGroup
            clients.policy = server.policy
            clients.policySource = policySource
            if let problem = clients.problem() { throw ValidationError(problem) }
            services.append(.init(service: ClientSocketServer(engine: engine, configuration: clients, logger: Logger(label: "fieldlocd.clients")),
                                  failureTerminationBehavior: .ignore, serviceName: "client-socket"))
        }
        // The HTTP console (page and metrics); a port that cannot be bound stops the daemon with the reason.
        if let (configuration, monitor) = consoleParts {
            let source = StatusTime.source(of: monitor.engine.board)
            let offset = timeOffset ?? monitor.engine.board.receiver?.timeOffset ?? 0
            let time: (@Sendable () -> StatusTime?)? = timeService.map { service in
                { @Sendable in
                    let status = service.status
                    return StatusTime(source: source, serialOffset: status.lastSerialOffset, pulseOffset: status.lastPulseOffset,
                                      sentenceDelay: status.measuredSentenceDelay, configuredOffset: offset,
                                      serialSamples: status.serialSamples, pulseSamples: status.pulseSamples, refusal: status.lastRefusal)
                }
            }
            let console = ConsoleServer(monitor: monitor, configuration: configuration, logger: Logger(label: "fieldlocd.http"), time: time)
            // Metrics that libraries emit through swift-metrics land in the same registry.
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: console.registry))
            do { try await console.start() } catch { logger.error("\(error)"); throw ExitCode(1) }
            services.append(.init(service: console, failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "http"))
        }
        services.append(.init(service: policySource, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore,
                              serviceName: "access-policy"))
        if releaseStartupCode > 0 {
            services.append(.init(service: StartupCodeRelease(delay: releaseStartupCode, logger: Logger(label: "fieldlocd.memory")),
                                  successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore, serviceName: "memory"))
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], cancellationSignals: [], logger: logger))
        do {
            try await group.run()
        } catch {
            logger.error("\(error)")
            throw ExitCode(1)
        }
        logger.info("stopped")
    }

    private func openEngine(logger: Logger) throws -> (engine: LocationEngine, calibrationCreated: String?) {
        var calibrationCreated: String?
        var description: BoardDescription
        do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
        if let mode = receiverConfig.flatMap(ReceiverConfigMode.init(rawValue:)) {
            description.receiver?.configMode = mode
            for index in description.otherReceivers.indices { description.otherReceivers[index].configMode = mode }
        }
        if let mode = description.receiver?.configMode { logger.info("receiver configuration: \(mode.rawValue)") }
        let environment = ProcessInfo.processInfo.environment
        let directory = stateDirectory ?? environment["STATE_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) }
            ?? CalibrationStore.defaultDirectory()
        let engine: LocationEngine
        do {
            engine = try LocationEngine.open(board: description, stateDirectory: directory, linux: LinuxPlatform())
        } catch {
            throw ValidationError("board \(description.name): \(error.description)")
        }
        if case .realTime = engine.platform.pacing, speed != 1 {
            logger.warning("--speed applies to simulated boards only; \(description.name) runs in real time")
        }
        for service in engine.capabilities.services where !service.isAvailable {
            logger.warning("\(service.service.rawValue) is unavailable: \(service.reason ?? service.device) (re-checked when devices appear)")
        }
        if let magnetometer = description.magnetometer {
            let store = CalibrationStore(directory: directory)
            let path = store.path(board: description.name, sensor: magnetometer.chip.rawValue)
            if let stored = try? store.load(board: description.name, sensor: magnetometer.chip.rawValue),
               let calibration = try? stored.calibration(file: path) {
                engine.calibration = calibration
                calibrationCreated = stored.created
                logger.info("calibration loaded from \(path)")
            } else {
                logger.notice("no stored calibration for \(description.name)/\(magnetometer.chip.rawValue) in \(directory): headings are degraded until `fieldloc calibrate --board \(board) --save`")
            }
        }
        logger.info("board \(description.name): \(description.title)")
        do {
            if let url = ntrip, CorrectionSetup.hasPassword(url) {
                logger.warning("--ntrip carries a password, which any user sees in ps: use --ntrip-password-file or $\(CorrectionSetup.passwordVariable)")
            }
            if let line = try CorrectionSetup.attach(to: engine, url: ntrip, passwordFile: ntripPasswordFile, gga: ntripGGA,
                                                     ggaInterval: ntripGGAInterval, environment: environment) {
                logger.info("\(line)")
            }
        } catch {
            throw ValidationError(error.description)
        }
        return (engine, calibrationCreated)
    }
}

/// Once the daemon has served for `delay` seconds, gives the kernel back the code pages of the
/// executable and its libraries (the Swift runtime, Foundation, ICU) that only start-up used
/// (``ProcessMemory/releaseExecutableCodePages(libraries:)``) and the
/// heap's free pages (``ProcessMemory/releaseFreeHeap()``), and logs the resident set before and
/// after. What the daemon goes on running faults back in.
struct StartupCodeRelease: Service {
    let delay: Double
    let logger: Logger

    func run() async throws {
        let delay = self.delay
        do {
            // The wait ends early on a graceful shutdown (SIGTERM), which must not wait for it.
            try await cancelWhenGracefulShutdown {
                try await Task.sleep(for: .nanoseconds(Int64(delay * 1e9)))
            }
        } catch {
            return  // shut down before the delay ended
        }
        if Task.isCancelled { return }
        let before = ProcessMemory.residentBytes()
        do {
            let release = try ProcessMemory.releaseExecutableCodePages(libraries: true)
            ProcessMemory.releaseFreeHeap()
            let after = ProcessMemory.residentBytes()
            logger.info("released start-up code pages: \(release.mappings) mappings of the executable and its libraries (\(Self.mebibytes(release.bytes)) mapped); resident \(Self.mebibytes(before)) -> \(Self.mebibytes(after))")
        } catch {
            logger.notice("start-up code pages kept: \(error)")
        }
    }

    static func mebibytes(_ bytes: Int?) -> String {
        guard let bytes else { return "unknown" }
        let tenths = (bytes * 10 + (1 << 19)) >> 20
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
