import HardwareInterfaces
import NMEA

/// The emulator on a given UTC clock (`fieldlocd --sim-time-offset`): the date and time of day of
/// each epoch from UTC itself, instead of its own calendar (2026-05-01 from noon at its start).
extension ReceiverEmulator {
    /// Runs the receiver's clock on UTC: at `instant` of the manual clock its UTC is `utcNanoseconds`
    /// (nanoseconds since 1970), and it advances with the manual clock from there, dates included.
    /// The next epoch moves to the next whole UTC second, so sentences name whole seconds as a real
    /// receiver's do. Used to run the simulated receiver on the system clock plus an offset
    /// (`fieldlocd --sim-time-offset`); without it the receiver keeps its own calendar (a fixed 2026 date).
    public func setUTC(_ utcNanoseconds: Int64, at instant: MonotonicInstant) {
        state.withLock { s in
            s.utcAnchor = (instant, utcNanoseconds)
            let intoSecond = ((utcNanoseconds % 1_000_000_000) + 1_000_000_000) % 1_000_000_000
            s.nextEpoch = instant.advanced(by: .nanoseconds(1_000_000_000 - intoSecond))
        }
    }

    /// The time of day and date of `instant` on the receiver's UTC clock, or `nil` on its own calendar.
    func utcClock(_ s: State, at instant: MonotonicInstant)
        -> (secondsOfDay: Double, whole: Int, hundredths: Int, days: Int, date: CalendarDate)?
    {
        guard let anchor = s.utcAnchor else { return nil }
        // Hundredths truncated, as receivers print them.
        let utc = anchor.utc + (instant >= anchor.instant ? Int64((instant - anchor.instant).nanosecondsClamped)
                                                           : -Int64((anchor.instant - instant).nanosecondsClamped))
        let milliseconds = utc.floorDiv(1_000_000)
        let day = milliseconds.floorDiv(86_400_000)
        let millisecondOfDay = milliseconds - day * 86_400_000
        return (Double(millisecondOfDay) / 1000, Int(millisecondOfDay / 1000), Int(millisecondOfDay % 1000 / 10), Int(day),
                CalendarDate(daysSinceEpoch: Int(day)))
    }
}

extension Int64 {
    /// Division rounding toward minus infinity.
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor < 0) ? q - 1 : q
    }
}
