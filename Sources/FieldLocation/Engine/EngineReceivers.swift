import BoardConfig
import Devices
import HardwareInterfaces
import LocationServices
import NMEA

/// One receiver of the board as the engine sees it now (``LocationEngine/receiverSources``).
public struct ReceiverSourceStatus: Sendable, Equatable {
    /// How the board names it: its `name`, else its port, else its USB identity.
    public var label: String
    /// The device its port is (or was last) open on; `nil` before it was ever opened.
    public var device: String?
    /// Whether its port is open now.
    public var open: Bool
    /// Whether its fixes are the ones delivered now (the best-source rule's choice).
    public var chosen: Bool
    /// Why its port cannot be used now, when it cannot.
    public var problem: String?
    /// Its family (`ublox`, `mtk`, `casic`, `generic-nmea`): the board's, or the one found on its
    /// arrival (`auto` until it arrived, when the board leaves it to detection); and its model,
    /// the board's or the one it gave (`MAX-M10S`, `u-blox M8`), when known.
    public var family: String
    public var model: String?
    /// The driver gpsd would name for it (`u-blox`, `MTK-3301`, `CASIC`, `NMEA0183`).
    public var gpsdDriver: String = "NMEA0183"
    /// How its family was found on its last arrival (the reply or sentences), or why it was not;
    /// `nil` when the board names the family.
    public var identification: String?
    /// Its own power decision's mode now (`cyclic tracking 1 Hz`, `periodic every 60 s (4 s on,
    /// backup between)`, with `asleep now` while it sleeps), `runs as it is (not commanded)` for a
    /// receiver the engine does not command; `nil` while its port is closed.
    public var powerState: String?
    /// Its charge so far, mAh: estimated from its own decisions and its model's figures while its
    /// port was open (see ``LocationEngine/energyUsed`` for the board's total).
    public var charge: Double = 0
    /// The line rate it was opened at.
    public var baudRate: Int
    /// The fix type of its last fix with a position (``LocationFixType``), when it gave one.
    public var lastFixType: LocationFixType?
    /// The horizontal accuracy (68 %, metres) of that fix, when known.
    public var lastAccuracy: Double?
    /// The USB identity the board finds it by (`usb:1546:01a9:F9P-1`), for a USB receiver.
    public var usb: String?
    /// Seconds from that fix to the step the status was taken at; `nil` before its first fix
    /// with a position, and after its port failed (it competes again with its next fix).
    public var lastFixAge: Double?
    /// Whether it competes in the best-source rule now: its port is open and its last fix is no
    /// older than 1.5 of its epochs. A chosen receiver that is not live has fallen silent and is
    /// replaced by the next live receiver's fix.
    public var live = false

    /// A status with the given values.
    public init(label: String, device: String?, open: Bool, chosen: Bool, problem: String? = nil, family: String, model: String? = nil,
                baudRate: Int, lastFixType: LocationFixType? = nil, lastAccuracy: Double? = nil, usb: String? = nil,
                lastFixAge: Double? = nil, live: Bool = false) {
        self.label = label
        self.device = device
        self.open = open
        self.chosen = chosen
        self.problem = problem
        self.family = family
        self.model = model
        self.baudRate = baudRate
        self.lastFixType = lastFixType
        self.lastAccuracy = lastAccuracy
        self.usb = usb
        self.lastFixAge = lastFixAge
        self.live = live
    }
}

/// Several receivers: each is read in turn, each fix is named by its device, and the best-source
/// rule (``ReceiverSelection``) decides whose fixes are delivered. Under `runLock`.
extension LocationEngine {
    /// Each receiver of the board as of the last step, the first first (one entry for a board
    /// with one receiver).
    public var receiverSources: [ReceiverSourceStatus] { published.withLock { $0.state.receiverSources } }

    /// How long one wait for a receiver's bytes lasts when the board has several (the others
    /// are then read without waiting): the delay a fix of another receiver can wait at most.
    static let receiverReadSlice = Duration.milliseconds(20)

    /// Reads the receivers until `deadline` (one receiver: one read that waits until then; several:
    /// each without waiting, the last waiting at most ``receiverReadSlice``), and handles what came.
    func readReceivers(until deadline: MonotonicInstant) {
        let recording = receivers.count > 1 && registry.wantsRawInputs
        for (index, receiver) in receivers.enumerated() {
            let last = index == receivers.count - 1
            if recording { notePortState(index) }
            let until = receivers.count == 1 ? deadline : (last ? min(deadline, clock.now().advanced(by: Self.receiverReadSlice)) : clock.now())
            let bytes = receiver.read(until: until, report: reportToAll)
            // A port that failed is no longer a source: another live one's next fix is delivered.
            if receiver.port == nil { dropSource(index) }
            if recording {
                notePortState(index)
                if !bytes.isEmpty && !privacy.engaged { registry.notify(.receiverBytes(receiver: index, bytes)) }
            }
            process(bytes, from: index)
        }
    }

    /// Tells the raw-input observers (a recording) when receiver `index`'s port opened or failed
    /// since they were last told.
    private func notePortState(_ index: Int) {
        let open = receivers[index].port != nil
        guard receivers[index].observedOpen != open else { return }
        receivers[index].observedOpen = open
        registry.notify(.receiverPort(receiver: index, open: open))
    }

    /// Forgets receiver `index` as a source (its port went away).
    private func dropSource(_ index: Int) {
        guard receivers.count > 1, selection.candidates[index] != nil else { return }
        selection.drop(index)
    }

    /// Runs one receiver's bytes through its decoder; its bytes and frames reach the observers only
    /// while it is the chosen receiver (observers see one receiver's stream at a time).
    private func process(_ bytes: [UInt8], from index: Int) {
        timing.drain()
        if bytes.isEmpty { return }
        let now = clock.now()
        let source = receivers[index]
        let chosen = index == (selection.chosen ?? 0)
        if !privacy.engaged && chosen { registry.notify(.bytes(bytes)) }
        source.collectsFrames = chosen && registry.wantsFrames
        let (fixes, frames) = source.decode(bytes, at: now)
        publishCounters()
        if !frames.isEmpty, !privacy.engaged, chosen { registry.notify(.frames(frames)) }
        for fix in fixes { handle(fix, from: index) }
    }

    /// Whether receiver `index`'s fix is delivered: always with one receiver; with several, a fix
    /// with a position when the rule chooses its receiver (a fix not chosen still counts in its
    /// receiver's own history), and a fix without one when its receiver is the chosen one (its
    /// epochs without a fix reach the observers until another receiver takes over).
    func chooses(_ fix: Fix, from index: Int, at now: MonotonicInstant) -> Bool {
        guard receivers.count > 1 else { return true }
        guard var location = Location(fix, receivedAt: now) else { return index == (selection.chosen ?? 0) }
        location.source = receivers[index].devicePath
        if selection.offer(index, location, at: now) { return true }
        let own = receivers[index].policy
        receivers[index].noteFix(location, fix, at: now, upkeepDuration: own.upkeepDuration, hotStartLimit: own.hotStartLimit)
        return false
    }

    /// The receivers' status for ``receiverSources``.
    func sourceStatus() -> [ReceiverSourceStatus] {
        let now = clock.now()
        return receivers.enumerated().map { index, receiver in
            let description = receiver.receiverDescription
            let candidate = selection.candidates[index]
            let waiting = description?.detectsFamily == true && receiver.identified == nil
            var status = ReceiverSourceStatus(label: receiver.label, device: receiver.devicePath, open: receiver.port != nil,
                                              chosen: receivers.count == 1 || index == selection.chosen, problem: receiver.portProblem,
                                              family: waiting ? "auto" : description?.family.rawValue ?? "generic-nmea",
                                              model: description?.model,
                                              baudRate: receiver.port?.baudRate.rawValue ?? description?.baudRate.rawValue ?? 9600,
                                              lastFixType: candidate?.fixType, lastAccuracy: candidate?.accuracy,
                                              usb: description?.usb?.description, lastFixAge: candidate.map { (now - $0.at).secondsDouble },
                                              live: receiver.port != nil && selection.isLive(index, at: now))
            status.gpsdDriver = (description?.family ?? .genericNMEA).entry.gpsdDriver
            status.identification = receiver.identification?.description
            status.powerState = receiver.powerState
            status.charge = index < energy.receiverLedgers.count ? energy.receiverLedgers[index].charge(.receiver) : 0
            return status
        }
    }
}
