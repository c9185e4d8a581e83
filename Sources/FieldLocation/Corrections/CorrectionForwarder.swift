import HardwareInterfaces
import LocationServices
import NMEA
import NTRIP
import Synchronization

/// Moves corrections from an ``NTRIPClient``'s queue into the receiver's UART without ever
/// blocking the engine: each step writes what the port accepts at once (its deadline is now), keeps
/// the rest of a half-written frame for the next step, and leaves the queue to bound the backlog
/// (frames that do not fit are dropped and counted). A sleeping receiver gets nothing (any byte
/// would wake it); what came meanwhile is discarded, since stale corrections are of no use.
public final class CorrectionForwarder: Sendable {
    struct State {
        var pending: [UInt8] = []
        var lastWrittenAt: MonotonicInstant?
        var bytesWritten = 0
        var discarded = 0
        var solution = CorrectionStatus.Solution.none
    }

    /// The client whose frames go to the receiver.
    public let client: NTRIPClient
    private let state = Mutex(State())

    /// A forwarder for `client`'s queue.
    public init(client: NTRIPClient) { self.client = client }

    /// Writes queued frames to `port` at `now`, as much as it takes at once.
    func forward(to port: (any SerialPort)?, receiverAwake: Bool, at now: MonotonicInstant) {
        state.withLock { s in
            guard let port, receiverAwake else {
                while client.queue.pop() != nil { s.discarded += 1 }
                s.pending = []
                return
            }
            while true {
                if s.pending.isEmpty {
                    guard let frame = client.queue.pop() else { return }
                    s.pending = frame
                }
                let pending = s.pending
                let result = pending.withUnsafeBytes { buffer in
                    Result { () throws(HardwareError) -> Int in try port.write(buffer, deadline: now) }
                }
                // A failed write is the receiver subsystem's to report (its next read fails too).
                guard case .success(let written) = result, written > 0 else { return }
                s.bytesWritten += written
                s.lastWrittenAt = now
                s.pending.removeFirst(min(written, s.pending.count))
            }
        }
    }

    /// A fix arrived: its solution is kept and its position goes to the caster with the next GGA.
    func note(_ fix: Fix) {
        let solution: CorrectionStatus.Solution
        switch fix.quality {
        case .differential: solution = .dgps
        case .rtkFloat: solution = .rtkFloat
        case .rtkFixed: solution = .rtkFixed
        default: solution = .none
        }
        state.withLock { $0.solution = solution }
        guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude else { return }
        let seconds = fix.timeOfDay.map { Double($0.hour) * 3600 + Double($0.minute) * 60 + Double($0.second) + Double($0.nanosecond) / 1e9 }
            ?? fix.time.map { $0.secondsSinceEpoch.truncatingRemainder(dividingBy: 86_400) } ?? 0
        client.updatePosition(GGAReport(latitude: latitude, longitude: longitude, altitude: fix.altitudeMSL ?? 0,
                                        geoidSeparation: fix.geoidSeparation ?? 0, secondsOfDay: seconds,
                                        quality: max(1, fix.quality.rawValue), satellites: fix.satellitesUsed ?? 0, hdop: fix.hdop ?? 1))
    }

    /// The corrections' status at `now` (the engine's clock).
    public func status(at now: MonotonicInstant) -> CorrectionStatus {
        let s = state.withLock { $0 }
        let c = client.status
        var description = c.link.description
        if let retry = c.retryIn { description += ", retrying in \(Int(retry.rounded(.up))) s" }
        return CorrectionStatus(
            solution: s.solution, source: client.configuration.displayName, link: c.link.name, linkDescription: description,
            age: s.lastWrittenAt.map { (now - $0).secondsDouble }, station: c.station,
            messageTypes: c.messageTypes.keys.sorted().map(Int.init), frames: c.frames, crcFailures: c.crcFailures,
            truncated: c.truncated, dropped: client.queue.dropped, reconnects: max(0, c.connections - 1), ggaSent: c.ggaSent)
    }

    /// Bytes written to the receiver so far.
    public var bytesWritten: Int { state.withLock { $0.bytesWritten } }
}
