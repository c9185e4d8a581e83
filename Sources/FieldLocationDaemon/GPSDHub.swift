import FieldLocation
import FieldLocationTime
import GPSDProtocol
import HardwareInterfaces
import LinuxHardware
import LocationAPI
import LocationServices
import Logging
import NIOCore
import NMEA
import Synchronization

/// Counters of the gpsd server, for tests, logs and the reliability figures.
public struct GPSDServerStatistics: Sendable, Equatable {
    /// Clients connected now.
    public var connected = 0
    /// Clients watching now (`enable` true).
    public var watching = 0
    /// Connections accepted since the start.
    public var accepted = 0
    /// Connections refused because the client limit was reached.
    public var refusedFull = 0
    /// Connections refused because the peer is not on this host (and remote peers are not allowed).
    public var refusedRemote = 0
    /// Clients dropped because their unread output exceeded the limit.
    public var droppedSlowReaders = 0
    /// Request lines refused for their length.
    public var linesTooLong = 0
    /// Control requests (`?DEVICE={...}`) refused.
    public var controlRefused = 0

    /// All zero.
    public init() {}
}

/// The state the server's connections share: who is connected and how each watches, the last fix
/// for POLL, and the demand put on the feed. Reports are formatted once per observation and the same
/// bytes are handed to every client that wants them, on that client's event loop.
final class GPSDHub: Sendable {
    /// What the hub keeps about a client: its watch, and whether its positions are coarsened.
    struct Watch: Sendable {
        var policy = GPSDWatchPolicy()
        var reduced = false
    }
    typealias Client = ConnectionTable<GPSDConnectionHandler, Watch>.Entry

    struct State {
        var clients = ConnectionTable<GPSDConnectionHandler, Watch>()
        var lastFix: Fix?
        var lastFixTime: (utc: UTCTime, at: MonotonicInstant)?
        var activated: UTCTime?
        var lastAttitudeAt: MonotonicInstant?
        var sawData = false
        /// The system time when the current epoch's first byte arrived (the chunk's arrival less
        /// its transmission time at the device's rate): the `clock` of the epoch's TOFF, as the
        /// time service stamps the serial sample it sends chrony.
        var epochStart: UTCTime?
        /// The driver learned from the fixes: gpsd switches a device to its binary driver (`u-blox`,
        /// `CASIC`) on the first binary packet it decodes, whatever the device was opened as.
        var learnedDriver: String?
        var statistics = GPSDServerStatistics()
    }

    let configuration: GPSDServerConfiguration
    let feed: any GPSDFeed
    let device: GPSDDeviceInfo
    /// Whether the feed has several devices (a board with several receivers): then each fix's own
    /// device (``Fix/device``) names its reports; with one, ``device``'s path does.
    let severalDevices: Bool
    let logger: Logger
    private let state = Mutex(State())
    /// Serialises publishing (every client sees the observations in the engine's order); holds the
    /// bytes an epoch's reports are written into, reused from epoch to epoch.
    private let publisher = Mutex([UInt8]())
    /// Serialises demand changes; holds the demand last given to the feed.
    private let demand = Mutex(GPSDDemand.idle)
    private let allocator = ByteBufferAllocator()

    init(configuration: GPSDServerConfiguration, feed: any GPSDFeed, logger: Logger) {
        self.configuration = configuration
        self.feed = feed
        self.device = feed.device
        severalDevices = feed.devices.count > 1
        self.logger = logger
        configuration.policySource?.observe { [weak self] _ in self?.policyChanged() }
    }

    /// A reloaded access policy: every connection judges its watch again, on its own event loop.
    func policyChanged() {
        let entries = state.withLock { Array($0.clients.entries.values) }
        for entry in entries { entry.execute { $0.policyChanged() } }
    }

    var statistics: GPSDServerStatistics {
        state.withLock { s in
            var out = s.statistics
            out.connected = s.clients.count
            out.watching = s.clients.entries.values.filter(\.policy.enable).count
            return out
        }
    }

    func count(_ change: (inout GPSDServerStatistics) -> Void) { state.withLock { change(&$0.statistics) } }

    // MARK: connections

    /// Registers a connection; `nil` when the server is full or stopping.
    func admit(loop: any EventLoop, handler: NIOLoopBound<GPSDConnectionHandler>) -> Int? {
        state.withLock { s in
            guard let id = s.clients.admit(limit: configuration.maxClients, loop: loop, handler: handler, member: Watch()) else {
                s.statistics.refusedFull += 1
                return nil
            }
            s.statistics.accepted += 1
            return id
        }
    }

    /// A client's new watch policy (and whether its positions are coarsened).
    func setPolicy(_ id: Int, _ policy: GPSDWatchPolicy, reduced: Bool) {
        state.withLock { s in
            s.clients[id]?.policy = policy
            s.clients[id]?.reduced = reduced
        }
        reconcileDemand()
    }

    /// A connection went away.
    func remove(_ id: Int) {
        state.withLock { $0.clients.remove(id) }
        reconcileDemand()
    }

    /// Stops admitting and closes every connection.
    func closeAll() {
        ConnectionTable.close(state.withLock { $0.clients.closeAll() }, reason: "server stopping")
    }

    var clientCount: Int { state.withLock { $0.clients.count } }

    /// Gives the feed the demand of the current watchers, when it changed.
    func reconcileDemand() {
        let paths = [device.path] + feed.devices.map(\.path)
        demand.withLock { applied in
            let wanted = state.withLock { s -> GPSDDemand in
                let watchers = s.clients.entries.values.filter { c in paths.contains { c.policy.watches(device: $0) } }
                return GPSDDemand(active: configuration.holdsReceiver || !watchers.isEmpty, heading: device.hasCompass && watchers.contains { $0.policy.json },
                                  frames: watchers.contains { GPSDHub.wantsFrames($0.policy) })
            }
            guard wanted != applied else { return }
            feed.demandChanged(wanted)
            applied = wanted
            state.withLock { s in
                if wanted.active {
                    if s.activated == nil { s.activated = GPSDHub.utcNow() }
                } else {
                    s.activated = nil
                }
            }
        }
    }

    // MARK: reports

    /// The device as DEVICE reports show it: only its path while nobody watches (as gpsd before it
    /// opens a device), with driver, activation time and serial settings while active.
    func deviceReport() -> GPSDDevice { deviceReport(feed.devices.first ?? device, primary: true) }

    /// Every device of the feed (``GPSDFeed/devices``) as DEVICES lists them: each present one as
    /// active while the server is; an absent receiver with its path only.
    func deviceReports() -> [GPSDDevice] {
        let all = feed.devices
        guard all.count > 1 else { return [deviceReport(all.first ?? device, primary: true)] }
        return all.enumerated().map { index, info in deviceReport(info, primary: index == 0) }
    }

    /// The path of the device `fix` came from (``Fix/receiverIndex`` among the feed's devices), else ``device``'s.
    func path(of fix: Fix) -> String {
        guard let index = fix.receiverIndex else { return device.path }
        let all = feed.devices
        return index >= 0 && index < all.count ? all[index].path : device.path
    }

    /// Whether `path` is one of the feed's devices (``GPSDFeed/devices``).
    func knows(device path: String) -> Bool { path == device.path || feed.devices.contains { $0.path == path } }

    private func deviceReport(_ info: GPSDDeviceInfo, primary: Bool) -> GPSDDevice {
        let (activated, sawData, learned) = state.withLock { ($0.activated, $0.sawData, $0.learnedDriver) }
        guard let activated, info.present else { return GPSDDevice(path: info.path) }
        let serial = info.bps != nil
        return GPSDDevice(path: info.path, driver: (primary ? learned : nil) ?? info.driver, subtype: info.subtype, activated: activated,
                          flags: sawData ? 1 : nil, native: 0, bps: info.bps, parity: serial ? GPSDParity.none : nil,
                          stopbits: serial ? 1 : nil, cycle: 1)
    }

    /// The POLL report for a client with `policy`: the last fix when it watches our device.
    func pollReport(policy: GPSDWatchPolicy, reduced: Bool) -> String {
        let last = state.withLock { $0.lastFix }
        var entries: [GPSDPollEntry] = []
        let source = severalDevices ? last.map(path(of:)) ?? device.path : device.path
        if policy.watches(device: source) {
            let fix = last ?? Fix()
            entries.append(GPSDPollEntry(device: source, fix: reduced ? fix.reduced() : fix, extras: GPSDHub.extras(fix, corrections: feed.correctionStatus)))
        }
        return GPSDReport.poll(time: GPSDHub.utcNow(), devices: entries)
    }

    // MARK: publishing

    /// Publishes one observation to every watcher that wants it.
    func publish(_ observation: EngineObservation) {
        publisher.withLock { scratch in
            switch observation {
            case .bytes(let chunk): publishBytes(chunk)
            case .frames(let frames): publishFrames(frames)
            case .fix(let fix, let at): publishFix(fix, at: at, scratch: &scratch)
            case .heading(let heading): publishHeading(heading)
            case .pps(let sample): publishPPS(sample)
            case .sensorSample, .advert, .receiverBytes, .receiverPort: break  // Raw inputs are for recorders.
            }
        }
    }

    /// The clients watching `path` (the primary device when `nil`).
    private func watchers(of path: String? = nil, _ update: (inout State) -> Void = { _ in }) -> [Client] {
        let path = path ?? device.path
        return state.withLock { s in
            update(&s)
            return s.clients.entries.values.filter { $0.policy.watches(device: path) }
        }
    }

    /// Whether a watch takes the receiver's frames: `raw:1` (sentences, binary frames in hex) or
    /// `nmea` without `raw` (sentences).
    static func wantsFrames(_ policy: GPSDWatchPolicy) -> Bool { policy.raw == 1 || (policy.raw == 0 && policy.nmea) }

    /// The bytes as read, for `raw:2` watchers; and the time the epoch began.
    private func publishBytes(_ chunk: [UInt8]) {
        let bps = device.bps
        // Only the epoch's first chunk reads the clock; the watcher list is built only for `raw:2`.
        let watching = state.withLock { s -> [Client] in
            s.sawData = true
            if s.epochStart == nil { s.epochStart = GPSDHub.firstByteTime(of: chunk.count, receivedAt: GPSDHub.utcNow(), bps: bps) }
            guard s.clients.entries.values.contains(where: { $0.policy.raw >= 2 }) else { return [] }
            return s.clients.entries.values.filter { $0.policy.raw >= 2 && $0.policy.watches(device: device.path) }
        }
        guard !watching.isEmpty else { return }
        let buffer = allocator.buffer(bytes: chunk)
        deliver(watching.map { ($0, buffer) })
    }

    /// The frames as the engine's framer split them: `raw:1` watchers get sentences as they are and
    /// UBX and RTCM3 frames as hex dumps; `nmea` watchers the sentences.
    private func publishFrames(_ frames: [RawFrame]) {
        let watching = watchers().filter { GPSDHub.wantsFrames($0.policy) }
        guard !watching.isEmpty else { return }
        var raw1: ByteBuffer?
        var nmea: ByteBuffer?
        var batch: [(Client, ByteBuffer)] = []
        for client in watching {
            let buffer: ByteBuffer?
            if client.policy.raw == 1 {
                if raw1 == nil {
                    var out = allocator.buffer(capacity: frames.reduce(0) { $0 + $1.bytes.count * 2 })
                    for frame in frames {
                        switch frame.kind {
                        case .sentence: out.writeBytes(frame.bytes)
                        case .ubx, .rtcm3: out.writeBytes(GPSDHub.hexLine(frame.bytes))
                        case .casic: break
                        }
                    }
                    raw1 = out
                }
                buffer = raw1
            } else {
                if nmea == nil {
                    var out = allocator.buffer(capacity: frames.reduce(0) { $0 + $1.bytes.count })
                    for frame in frames where frame.kind == .sentence { out.writeBytes(frame.bytes) }
                    nmea = out
                }
                buffer = nmea
            }
            if let buffer, buffer.readableBytes > 0 { batch.append((client, buffer)) }
        }
        deliver(batch)
    }

    /// gpsd's hex dump of a binary packet for `raw:1` watchers: lowercase hex digits, then CR LF.
    static func hexLine(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2 + 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        out.append(0x0D)
        out.append(0x0A)
        return out
    }

    private func publishFix(_ fix: Fix, at: MonotonicInstant, scratch: inout [UInt8]) {
        var switched = false
        var epochStart: UTCTime?
        // The fix names its receiver (a board with several): TPV's device, and the watchers of it.
        let source = severalDevices ? path(of: fix) : device.path
        let watching = watchers(of: source) { s in
            epochStart = s.epochStart
            s.epochStart = nil
            s.lastFix = fix
            if let time = fix.time { s.lastFixTime = (time, at) }
            if let binary = fix.binaryProtocol, source == device.path {
                let name = GPSDDevice.driverName(for: binary)
                if name != (s.learnedDriver ?? device.driver) {
                    s.learnedDriver = name
                    switched = true
                }
            }
        }
        guard !watching.isEmpty else { return }
        var batch: [(Client, ByteBuffer)] = []
        batch.reserveCapacity(watching.count)
        if switched {
            // As gpsd announces a driver switch: a DEVICE report to every JSON watcher.
            let report = allocator.buffer(string: GPSDReport.device(deviceReport()) + GPSDReport.lineTerminator)
            for client in watching where client.policy.json { batch.append((client, report)) }
        }
        var full: ByteBuffer?
        var coarse: ByteBuffer?
        var toff: ByteBuffer?
        let sky = !fix.satellites.array.isEmpty || fix.hdop != nil || fix.pdop != nil
        let corrections = feed.correctionStatus
        // TPV and SKY written once into the reused bytes, then copied once into the buffer every
        // watcher shares.
        func reports(_ fix: Fix) -> ByteBuffer {
            GPSDReport.epochReports(fix, device: source, extras: GPSDHub.extras(fix, corrections: corrections), sky: sky, into: &scratch)
            return allocator.buffer(bytes: scratch)
        }
        for client in watching {
            if client.policy.json {
                if client.reduced {
                    if coarse == nil { coarse = reports(fix.reduced()) }
                    if let coarse { batch.append((client, coarse)) }
                } else {
                    if full == nil { full = reports(fix) }
                    if let full { batch.append((client, full)) }
                }
            }
            if client.policy.pps, let time = fix.time {
                if toff == nil {
                    let offset = GPSDClockOffset(device: source, real: time, clock: epochStart ?? GPSDHub.utcNow())
                    toff = allocator.buffer(string: GPSDReport.toff(offset) + GPSDReport.lineTerminator)
                }
                if let toff { batch.append((client, toff)) }
            }
        }
        deliver(batch)
    }

    /// A PPS report for `pps` watchers: the UTC second the pulse starts, and the system clock at
    /// the edge (now, less the engine's time from the edge to the fix that paired with it).
    private func publishPPS(_ sample: PPSSample) {
        let watching = watchers().filter { $0.policy.pps }
        guard !watching.isEmpty else { return }
        // The edge on the system clock as the engine placed it (the same value the time service
        // sends chrony); on a simulated clock, now less the engine's time from the edge to the fix.
        let clock: UTCTime
        if let system = sample.edgeSystemNanoseconds {
            clock = UTCTime(nanosecondsSinceEpoch: system)
        } else {
            let now = GPSDHub.utcNow()
            let lag = Int64(max(0, (sample.nmeaArrival - sample.edge).nanosecondsClamped))
            clock = UTCTime(nanosecondsSinceEpoch: now.nanosecondsSinceEpoch - lag)
        }
        let real = UTCTime(nanosecondsSinceEpoch: sample.utcSecond * 1_000_000_000)
        let report = allocator.buffer(string: GPSDReport.pps(GPSDClockOffset(device: device.path, real: real, clock: clock, precision: -20))
                                      + GPSDReport.lineTerminator)
        deliver(watching.map { ($0, report) })
    }

    private func publishHeading(_ heading: HeadingUpdate) {
        var anchor: (utc: UTCTime, at: MonotonicInstant)?
        var due = true
        let interval = configuration.attitudeInterval
        let watching = watchers { s in
            anchor = s.lastFixTime
            // Headings come at 10 Hz; ATT goes out at most once per interval (a little early is fine:
            // readings are not exactly periodic).
            if let last = s.lastAttitudeAt, heading.takenAt > last,
               last.duration(to: heading.takenAt) < interval * 0.9 {
                due = false
            } else {
                s.lastAttitudeAt = heading.takenAt
            }
        }.filter(\.policy.json)
        guard due, !watching.isEmpty else { return }
        var time: UTCTime?
        if let anchor, heading.takenAt >= anchor.at {
            let elapsed = heading.takenAt.nanoseconds - anchor.at.nanoseconds
            if elapsed < 10_000_000_000 { time = UTCTime(nanosecondsSinceEpoch: anchor.utc.nanosecondsSinceEpoch + Int64(elapsed)) }
        }
        let line = GPSDReport.att(GPSDHub.attitude(heading, device: device.path, time: time)) + GPSDReport.lineTerminator
        let buffer = allocator.buffer(string: line)
        deliver(watching.map { ($0, buffer) })
    }

    /// Hands each buffer to its client on the client's event loop, with one task per event loop
    /// rather than one per client, so that an epoch written to many watchers wakes each network
    /// thread once. Each client gets its buffers in the order given.
    private func deliver(_ batch: [(Client, ByteBuffer)]) {
        if batch.count == 1, let (client, buffer) = batch.first {
            client.execute { $0.deliver(buffer) }
            return
        }
        var byLoop: [ObjectIdentifier: (loop: any EventLoop, items: [(NIOLoopBound<GPSDConnectionHandler>, ByteBuffer)])] = [:]
        for (client, buffer) in batch {
            byLoop[ObjectIdentifier(client.loop), default: (client.loop, [])].items.append((client.handler, buffer))
        }
        for (_, group) in byLoop {
            let items = group.items
            group.loop.execute {
                for (handler, buffer) in items { handler.value.deliver(buffer) }
            }
        }
    }

    // MARK: conversions

    /// TPV values a fix does not carry: the time error `ept`, and the corrections' age and reference
    /// station when an NTRIP client feeds the receiver.
    ///
    /// `ept` is the fix's measured time accuracy (``Location/timeAccuracy(of:)``: the receiver's
    /// tAcc, else the time pulse's accuracy when a PPS edge marked the fix's second, else GST's
    /// residuals over the speed of light) when there is one. Otherwise it is gpsd's
    /// own default, ``gpsdDefaultTimeError``: gpsd's error model (`gpsd_error_model()` in
    /// libgpsd_core.c) puts 5 ms in `ept` whenever the fix has a time and its driver set no time
    /// error, which is the case for every NMEA receiver. gpsd's u-blox driver leaves NAV-PVT's tAcc
    /// out of `ept`, so on a u-blox log this `ept` is the smaller, measured figure where gpsd says 0.005.
    static func extras(_ fix: Fix, corrections: CorrectionStatus? = nil) -> GPSDTPVExtras {
        let measured = Location.timeAccuracy(of: fix)?.seconds
        var extras = GPSDTPVExtras(timeError: fix.time == nil ? nil : measured ?? gpsdDefaultTimeError)
        extras.dgpsAge = corrections?.age
        extras.dgpsStation = corrections?.station
        return extras
    }

    /// gpsd's time error for a fix whose driver states none (NMEA receivers), seconds.
    static let gpsdDefaultTimeError = 0.005

    /// Standard gravity, m/s² per g.
    static let standardGravity = 9.80665

    /// An ATT report's values from a heading: true and magnetic heading, `mag_st` (`C` while the
    /// calibration is poor, else `N`), pitch, roll, the measured dip (the heading engine's), the field in µT and the specific
    /// force in m/s² (body axes x forward, y right, z down; a level unit at rest reads `acc_z` -9.8).
    /// On a board with a gyroscope the headings, pitch and roll are the attitude filter's, and
    /// `gyro_x/y/z` carry the measured body rates in degrees per second.
    static func attitude(_ heading: HeadingUpdate, device: String, time: UTCTime?) -> AttitudeInput {
        let m = (heading.x, heading.y, heading.z)
        let a = (heading.accelerationX, heading.accelerationY, heading.accelerationZ)
        let fieldLength = (m.0 * m.0 + m.1 * m.1 + m.2 * m.2).squareRoot()
        let gravityLength = (a.0 * a.0 + a.1 * a.1 + a.2 * a.2).squareRoot()
        let poor = heading.flags.contains("poor-calibration")
        let g = standardGravity
        return AttitudeInput(
            device: device, time: time, heading: heading.trueHeading, magneticHeading: heading.magneticHeading,
            magnetometerStatus: poor ? .calibrationAlarm : .normal, pitch: heading.pitch, roll: heading.roll, dip: heading.inclination,
            magneticX: m.0, magneticY: m.1, magneticZ: m.2, magneticLength: fieldLength,
            accelerationX: a.0 * g, accelerationY: a.1 * g, accelerationZ: a.2 * g, accelerationLength: gravityLength * g,
            gyroX: heading.attitude?.rotationRate.x, gyroY: heading.attitude?.rotationRate.y,
            gyroZ: heading.attitude?.rotationRate.z)
    }

    /// The wall clock as UTC.
    static func utcNow() -> UTCTime { UTCTime(nanosecondsSinceEpoch: SystemWallClock.nanosecondsSinceEpoch()) }

    /// When the first of `count` bytes read at `receivedAt` arrived: 10 bits a byte (start, 8 data,
    /// stop) at `bps`; without a rate (a replay, a socket), `receivedAt`.
    static func firstByteTime(of count: Int, receivedAt: UTCTime, bps: Int?) -> UTCTime {
        UTCTime(nanosecondsSinceEpoch: receivedAt.nanosecondsSinceEpoch - TimeService.transmissionNanoseconds(of: count, bps: bps))
    }
}
