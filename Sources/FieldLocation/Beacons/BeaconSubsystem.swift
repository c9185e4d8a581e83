import Beacons
import BoardConfig
import HardwareInterfaces
import LocationServices
import PowerPolicy

/// What the clients ask of the Bluetooth radio, merged: nothing, presence for beacon regions, or
/// ranging (every advertisement).
enum BeaconDemand: Int, Comparable, Sendable {
    /// No client ranges or monitors beacons: the scan stops.
    case none
    /// Beacon regions only: a low duty cycle is enough to tell presence.
    case monitoring
    /// Ranging: the radio listens all the time.
    case ranging

    static func < (a: BeaconDemand, b: BeaconDemand) -> Bool { a.rawValue < b.rawValue }

    /// The scan for this demand: continuous and passive for ranging; 100 ms of every second
    /// (10 %) for region monitoring, which hears a beacon advertising every 100 ms about once a
    /// second; `nil` stops scanning.
    var parameters: BluetoothScanParameters? {
        switch self {
        case .none: return nil
        case .monitoring: return BluetoothScanParameters(interval: .milliseconds(1000), window: .milliseconds(100))
        case .ranging: return BluetoothScanParameters(interval: .milliseconds(100), window: .milliseconds(100))
        }
    }
}

/// The beacon subsystem: the board's Bluetooth LE scanner (opened on first demand, stopped when
/// no client ranges or monitors beacons), the advertisement parser's counters, and the ranger that
/// turns advertisements into ranged beacons. Touched only under the engine's `runLock`.
final class BeaconSubsystem {
    /// Counts for the status readout.
    struct Counters: Sendable {
        /// Advertisements by outcome (beacon, other device, rejected per reason).
        var adverts = AdvertCounters()
        /// Reports without an RSSI (not ranged).
        var withoutRSSI = 0
        /// Times the scanner failed, and was opened again.
        var failures = 0, reopens = 0
        /// The radio's time listening (`listening`) and not listening while a duty-cycled scan
        /// runs (`duty-off`), charged at ``BeaconSubsystem/scanCurrent``: component `bluetooth`.
        var energy = EnergyLedger()
    }

    /// The radio's receive current while it listens, mA: an estimate (a Raspberry Pi's CYW43455
    /// draws about 10 mA receiving at 3.3 V), used for the energy ledger only.
    static let scanCurrent = 10.0
    /// Through a stack that takes no scan timing (BlueZ over D-Bus), a duty-cycled scan listens for
    /// one tick (1 s) of every this many: 33 %. Region monitoring enters on a beacon heard in 3 of
    /// the last 10 s, so the listening seconds must come at least every third second.
    static let switchedCyclePeriod = 3

    let board: BoardDescription
    let platform: any EnginePlatform
    private(set) var scanner: (any BluetoothLEScanner)?
    private(set) var running: BluetoothScanParameters?
    private(set) var ranger: BeaconRanger
    private(set) var counters = Counters()
    /// Why the scanner is not running although it is wanted, for status readouts.
    private(set) var problem: String?
    private var retryAt: MonotonicInstant?
    private var opened = false
    /// Whether the radio listens now (the scanner's scan is started).
    private(set) var listening = false
    /// Whether the subsystem runs the duty cycle by starting and stopping the scan.
    private(set) var switchedCycle = false
    private var cycleTick = 0
    private var chargedUntil: MonotonicInstant?
    /// Called with every advertising report received, before it is parsed, for recorders.
    var onAdvert: ((BluetoothAdvertisingReport) -> Void)?

    init(board: BoardDescription, platform: any EnginePlatform) {
        self.board = board
        self.platform = platform
        ranger = BeaconRanger(model: Self.rangingModel(for: board))
    }

    /// The default ranging model with the board's site calibration (`beacon_path_loss_exponent`,
    /// `beacon_power_1m`) applied.
    static func rangingModel(for board: BoardDescription) -> RangingModel {
        var model = RangingModel()
        if let n = board.beaconPathLossExponent { model.pathLossExponent = n }
        model.siteMeasuredPower = board.beaconPower1m
        return model
    }

    /// Whether the board names an adapter (the scanner may still fail to open).
    var available: Bool { board.bluetooth != nil }

    /// Seconds at `instant`, the ranger's time base.
    static func seconds(_ instant: MonotonicInstant) -> Double { instant.seconds }

    /// Starts, retunes or stops the scan for `demand`, once a tick. A duty-cycled scan on a
    /// scanner that does not run duty cycles itself (``BluetoothLEScanner/runsDutyCycle``) is
    /// started for one tick of every ``switchedCyclePeriod`` and stopped for the others. Returns
    /// an error when the scan is wanted and cannot run (reported to the beacon clients; retried
    /// every 5 s).
    func apply(_ demand: BeaconDemand, at now: MonotonicInstant) -> LocationError? {
        charge(until: now)
        guard let parameters = demand.parameters else {
            if running != nil {
                try? scanner?.stopScanning()
                running = nil
            }
            listening = false
            switchedCycle = false
            problem = nil
            return nil
        }
        guard running != parameters || switchedCycle else { return nil }
        if let retryAt, now < retryAt { return nil }
        do {
            if scanner == nil {
                scanner = try platform.bluetoothScanner(for: board)
                if opened { counters.reopens += 1 }
                opened = true
            }
            guard let scanner else { return nil }
            let switched = !scanner.runsDutyCycle && parameters.window < parameters.interval
            if switched {
                if !switchedCycle { cycleTick = 0 }
                let on = cycleTick % Self.switchedCyclePeriod == 0
                cycleTick += 1
                if on && !listening {
                    try scanner.startScanning(BluetoothScanParameters(interval: parameters.window, window: parameters.window, active: parameters.active))
                } else if !on && listening {
                    try scanner.stopScanning()
                }
                listening = on
            } else {
                try scanner.startScanning(parameters)
                listening = true
            }
            switchedCycle = switched
            running = parameters
            problem = nil
            retryAt = nil
            return nil
        } catch {
            return fail(error, at: now)
        }
    }

    /// Charges the radio's time since the last charge to the ledger: listening at
    /// ``scanCurrent`` (the scan's duty cycle of it when the radio runs the cycle itself).
    private func charge(until now: MonotonicInstant) {
        defer { chargedUntil = now }
        guard let last = chargedUntil, let running else { return }
        let seconds = (now - last).secondsDouble
        let fraction = listening ? (switchedCycle ? 1 : running.dutyCycle) : 0
        counters.energy.add(.bluetooth, state: "listening", current: Self.scanCurrent, seconds: seconds * fraction)
        counters.energy.add(.bluetooth, state: "duty-off", current: 0, seconds: seconds * (1 - fraction))
    }

    private func fail(_ error: HardwareError, at now: MonotonicInstant) -> LocationError {
        counters.failures += 1
        scanner?.close()
        scanner = nil
        running = nil
        listening = false
        switchedCycle = false
        retryAt = now.advanced(by: .seconds(5))
        problem = error.description
        return .hardware(.other, "Bluetooth: \(error.description)")
    }

    /// Takes every report the scanner holds (without waiting), parses it and ranges the beacons.
    /// Returns an error when the scanner failed (it is closed and opened again later).
    func poll(at now: MonotonicInstant) -> LocationError? {
        guard running != nil, let scanner else { return nil }
        do {
            _ = try scanner.poll(deadline: now) { report in
                onAdvert?(report)
                let result = BeaconParser.parse(report.data)
                counters.adverts.record(result)
                guard case .beacon(let frame) = result, let identity = frame.rangingIdentity else { return }
                guard let rssi = report.rssi else {
                    counters.withoutRSSI += 1
                    return
                }
                ranger.add(BeaconRanger.Key(uuid: identity.uuid, major: identity.major, minor: identity.minor),
                           measuredPower: identity.measuredPower, rssi: rssi, at: Self.seconds(report.timestamp))
            }
            return nil
        } catch {
            return fail(error, at: now)
        }
    }

    /// Forgets beacons silent for long. Once a tick.
    func tick(at now: MonotonicInstant) { ranger.prune(at: Self.seconds(now)) }

    /// Whether the scan runs.
    var scanning: Bool { running != nil }

    /// Stops the scan and releases the adapter (shutdown).
    func shutdown() {
        listening = false
        try? scanner?.stopScanning()
        scanner?.close()
        scanner = nil
        running = nil
    }
}
