import Beacons
import HardwareInterfaces
import RealModule
import Synchronization

/// A beacon placed in the simulated world.
public struct SimulatedBeacon: Sendable, Hashable {
    /// Its identity.
    public var uuid: BeaconUUID, major: UInt16, minor: UInt16
    /// Where it is, degrees.
    public var latitude: Double, longitude: Double
    /// Its calibrated power at 1 m (the iBeacon measured power it advertises), dBm.
    public var measuredPower: Int
    /// Time between its advertisements.
    public var interval: Duration
    /// Whether it advertises as an AltBeacon rather than an iBeacon.
    public var altBeacon: Bool

    /// A beacon.
    public init(uuid: BeaconUUID, major: UInt16, minor: UInt16, latitude: Double, longitude: Double,
                measuredPower: Int = -59, interval: Duration = .milliseconds(100), altBeacon: Bool = false) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.latitude = latitude
        self.longitude = longitude
        self.measuredPower = measuredPower
        self.interval = interval
        self.altBeacon = altBeacon
    }
}

/// How the simulated radio channel treats the signal: the log-distance path loss, log-normal
/// shadowing and Rayleigh fading, and the receiver's sensitivity.
public struct SimulatedRadioChannel: Sendable, Hashable {
    /// The path-loss exponent (2 in free space, 2-3 indoors).
    public var pathLossExponent = 2.0
    /// Standard deviation of the log-normal shadowing, dB.
    public var shadowingSigma = 2.0
    /// Whether each advert also fades (Rayleigh: exponentially distributed power, scaled so that
    /// the mean RSSI in dB at 1 m stays the beacon's measured power, as beacons are calibrated by
    /// averaging RSSI readings).
    public var rayleigh = true
    /// Adverts weaker than this are not received, dBm (a phone-class receiver with margin: beacons
    /// at −59 dBm are heard to about 35 m before fading).
    public var sensitivity = -90.0
    /// Metres the receiver is below (or above) the beacons: the smallest possible distance.
    public var heightDifference = 0.0

    /// The default channel.
    public init() {}
}

/// A Bluetooth LE radio in the simulated world: it hears the ``SimulatedBeacon``s from where a
/// trajectory puts the unit, each advertisement at its beacon's interval (with the ±10 ms random
/// delay of the specification), with an RSSI from the path-loss model and fading of
/// ``SimulatedRadioChannel``, seeded. A scan with a duty cycle below 1 hears that fraction of
/// the adverts. ``poll(deadline:_:)`` advances the manual clock to the next advert or the deadline.
public final class SimulatedBeaconScanner: BluetoothLEScanner {
    struct State {
        var scanning: BluetoothScanParameters?
        var closed = false
        var gone = false
        var random: SplitMix64
        var next: [MonotonicInstant]
        var delivered = 0
    }

    public let name: String
    public var clock: any MonotonicClock { manualClock }
    /// The manual clock.
    public let manualClock: ManualClock
    /// The beacons.
    public let beacons: [SimulatedBeacon]
    /// The channel.
    public let channel: SimulatedRadioChannel
    private let adverts: [[UInt8]]
    private let position: @Sendable (MonotonicInstant) -> (latitude: Double, longitude: Double)
    private let state: Mutex<State>

    /// A radio named `name` on `clock` hearing `beacons`, the unit at `position(instant)`.
    public init(name: String = "sim-hci0", clock: ManualClock, beacons: [SimulatedBeacon], channel: SimulatedRadioChannel = SimulatedRadioChannel(),
                seed: UInt64 = 19, position: @escaping @Sendable (MonotonicInstant) -> (latitude: Double, longitude: Double)) {
        self.name = name
        manualClock = clock
        self.beacons = beacons
        self.channel = channel
        self.position = position
        adverts = beacons.map { b in
            b.altBeacon
                ? BeaconAdvert.altBeacon(manufacturer: 0x0118, uuid: b.uuid, major: b.major, minor: b.minor, referenceRSSI: Int8(clamping: b.measuredPower))
                : BeaconAdvert.iBeacon(uuid: b.uuid, major: b.major, minor: b.minor, measuredPower: Int8(clamping: b.measuredPower))
        }
        let now = clock.now()
        var random = SplitMix64(seed: seed)
        let next = beacons.map { b in
            let seconds = Double(b.interval.components.seconds) + Double(b.interval.components.attoseconds) * 1e-18
            return now.advanced(by: .nanoseconds(Int64(random.uniform() * seconds * 1e9)))
        }
        state = Mutex(State(random: random, next: next))
    }

    /// A radio following `trajectory`, which starts at `start` on `clock`.
    public convenience init(name: String = "sim-hci0", clock: ManualClock, beacons: [SimulatedBeacon], trajectory: Trajectory,
                            start: MonotonicInstant, channel: SimulatedRadioChannel = SimulatedRadioChannel(), seed: UInt64 = 19) {
        self.init(name: name, clock: clock, beacons: beacons, channel: channel, seed: seed) { instant in
            let point = trajectory.at(instant.seconds - start.seconds)
            return (point.latitude, point.longitude)
        }
    }

    public var isScanning: Bool { state.withLock { $0.scanning != nil } }
    /// The running scan's parameters.
    public var parameters: BluetoothScanParameters? { state.withLock { $0.scanning } }
    /// Reports handed out so far.
    public var delivered: Int { state.withLock { $0.delivered } }

    /// The adapter vanishes: every later call throws ``HardwareError/Kind/deviceGone``.
    public func unplug() { state.withLock { $0.gone = true } }

    public func startScanning(_ parameters: BluetoothScanParameters) throws(HardwareError) {
        try state.withLock { s throws(HardwareError) in
            try check(s)
            if s.scanning == nil {
                // Adverts sent while not scanning are not heard.
                let now = manualClock.now()
                for index in s.next.indices where s.next[index] < now { s.next[index] = now }
            }
            s.scanning = parameters
        }
    }

    public func stopScanning() throws(HardwareError) {
        try state.withLock { s throws(HardwareError) in
            try check(s)
            s.scanning = nil
        }
    }

    public func close() { state.withLock { $0.closed = true; $0.scanning = nil } }

    private func check(_ s: State) throws(HardwareError) {
        if s.closed { throw HardwareError(.closed, device: name, operation: "scan", detail: "the scanner is closed") }
        if s.gone { throw HardwareError(.deviceGone, device: name, operation: "scan", detail: "the adapter vanished") }
    }

    /// The distance in metres from the unit at `instant` to `beacon`.
    public func distance(to beacon: SimulatedBeacon, at instant: MonotonicInstant) -> Double {
        let p = position(instant)
        let north = (beacon.latitude - p.latitude) * 111_320
        let east = (beacon.longitude - p.longitude) * 111_320 * Double.cos(p.latitude * .pi / 180)
        return (north * north + east * east + channel.heightDifference * channel.heightDifference).squareRoot()
    }

    public func poll(deadline: MonotonicInstant, _ handler: (borrowing BluetoothAdvertisingReport) -> Void) throws(HardwareError) -> Int {
        var handled = 0
        while true {
            let now = manualClock.now()
            var received: [(MonotonicInstant, Int, Int)] = []
            var earliest = MonotonicInstant.distantFuture
            try state.withLock { s throws(HardwareError) in
                try check(s)
                guard let parameters = s.scanning else { return }
                for index in beacons.indices {
                    while s.next[index] <= now {
                        let at = s.next[index]
                        let jitter = Duration.milliseconds(Int64(s.random.uniform() * 10))
                        s.next[index] = at.advanced(by: beacons[index].interval + jitter)
                        guard s.random.uniform() < parameters.dutyCycle else { continue }
                        let rssi = rssi(of: beacons[index], at: at, random: &s.random)
                        guard rssi >= channel.sensitivity else { continue }
                        received.append((at, index, Int(rssi.rounded())))
                    }
                    earliest = min(earliest, s.next[index])
                }
                s.delivered += received.count
            }
            received.sort { $0.0 < $1.0 }
            for (at, index, rssi) in received {
                adverts[index].withUnsafeBytes { bytes in
                    let b = beacons[index]
                    let address = BluetoothAddress(rawValue: 0xC0_00_00_00_00_00 | UInt64(b.major) << 16 | UInt64(b.minor), isRandom: true)
                    handler(BluetoothAdvertisingReport(address: address, rssi: rssi, timestamp: at, data: bytes))
                }
            }
            handled += received.count
            if handled > 0 || now >= deadline { return handled }
            let wake = min(earliest, deadline)
            // Not scanning, or nothing to hear: the wait ends at the deadline (never at the distant future).
            if wake == .distantFuture { return handled }
            manualClock.advance(to: wake)
        }
    }

    /// The mean of 10·log10 of an exponentially distributed power, negated (Euler's γ · 10 / ln 10), dB.
    static let rayleighMeanDecibels = 0.5772156649015329 * 10 / 2.302585092994046

    private func rssi(of beacon: SimulatedBeacon, at instant: MonotonicInstant, random: inout SplitMix64) -> Double {
        let d = max(distance(to: beacon, at: instant), 0.05)
        var value = Double(beacon.measuredPower) - 10 * channel.pathLossExponent * Double.log10(d)
        value += channel.shadowingSigma * random.gaussian()
        if channel.rayleigh {
            // 10·log10 of an Exp(1) power has mean −10γ/ln 10 = −2.507 dB: add it back.
            value += 10 * Double.log10(max(-Double.log(max(random.uniform(), 1e-12)), 1e-6)) + Self.rayleighMeanDecibels
        }
        return value
    }
}
