import HardwareInterfaces
import PowerPolicy
import ReceiverProtocols

/// Carries out the power policy's decisions on a receiver, through its driver: the only caller
/// of the driver's power and rate commands. It remembers what it did (awake, cyclic, the periodic
/// window) so each decision turns into the fewest commands.
public final class ReceiverExecutor {
    /// The receiver's driver.
    public let driver: any ReceiverDriver
    /// The clock decisions are timed on.
    public let clock: any MonotonicClock
    /// Whether the receiver is awake, as far as the executor has made it.
    public private(set) var awake: Bool
    /// Whether cyclic tracking is on.
    public private(set) var cyclic = false
    /// Commands that failed (kept for the status readout; the executor goes on).
    public private(set) var failures: [ReceiverError] = []
    private var windowStart: MonotonicInstant? = nil
    private var windowHasGoodFix = false
    private var nextWake: MonotonicInstant? = nil
    /// The binary navigation output to switch on once awake (the board's `output`, issue 16); sent
    /// again after each backup, which loses the receiver's RAM configuration.
    public var binaryOutput: BinaryOutputMode = .nmea
    private var binaryOutputSent = false

    /// Creates an executor for a receiver that is `awake` or asleep now.
    public init(driver: any ReceiverDriver, clock: any MonotonicClock, awake: Bool) {
        self.driver = driver
        self.clock = clock
        self.awake = awake
    }

    /// Records a fix of the current wake window; a good one (within the accuracy budget) lets a
    /// periodic schedule sleep again.
    public func noteFix(good: Bool) {
        if good { windowHasGoodFix = true }
    }

    func attempt(_ body: () throws(ReceiverError) -> Void) {
        do { try body() } catch { failures.append(error) }
    }

    func wake() {
        guard !awake else { return }
        attempt { () throws(ReceiverError) in try driver.wake() }
        awake = true
        windowStart = clock.now()
        windowHasGoodFix = false
    }

    func sleep(_ state: SleepState) {
        guard awake else { return }
        if cyclic {
            attempt { () throws(ReceiverError) in try driver.setCyclicTracking(false) }
            cyclic = false
        }
        attempt { () throws(ReceiverError) in
            if state == .standby { try driver.enterStandby() } else { try driver.enterBackup() }
        }
        awake = false
        windowStart = nil
        if state == .backup { binaryOutputSent = false }
    }

    /// Sends the wake sequence again whatever the executor believes (the watchdog's first step
    /// for a receiver that should be talking but is silent).
    public func rewake() {
        attempt { () throws(ReceiverError) in try driver.wake() }
        awake = true
    }

    func setCyclic(_ on: Bool) {
        guard cyclic != on else { return }
        attempt { () throws(ReceiverError) in try driver.setCyclicTracking(on) }
        cyclic = on
    }

    /// Applies `decision`. `lastFix` is when the last fix arrived; `ephemerisFresh` whether the
    /// receiver's ephemerides are younger than the policy's refresh age (a periodic window stays
    /// open until they are).
    public func apply(_ decision: PowerDecision, lastFix: MonotonicInstant?, ephemerisFresh: Bool) {
        let now = clock.now()
        switch decision.receiver {
        case .continuous:
            wake()
            setCyclic(false)
            windowStart = nil
        case .cyclicTracking:
            wake()
            setCyclic(true)
            windowStart = nil
        case .periodic(let period, let onTime, let sleepState):
            let periodDuration = Duration.milliseconds(Int64(period * 1000))
            if awake {
                if windowStart == nil {
                    windowStart = now
                    nextWake = (lastFix ?? now).advanced(by: periodDuration)
                }
                let start = windowStart ?? now
                if (windowHasGoodFix && ephemerisFresh) || now - start > .seconds(onTime + 60) {
                    sleep(sleepState)
                    nextWake = max(nextWake ?? now, start.advanced(by: periodDuration))
                }
            } else if now >= (nextWake ?? now) {
                wake()
                nextWake = now.advanced(by: periodDuration)
            }
        case .idle(let sleepState):
            if decision.ephemerisUpkeep != nil && !ephemerisFresh {
                wake()
            } else if awake {
                sleep(sleepState)
            }
        }
        if awake, !binaryOutputSent, binaryOutput != .nmea {
            binaryOutputSent = true
            attempt { () throws(ReceiverError) in try driver.setBinaryOutput(binaryOutput) }
        }
    }
}
