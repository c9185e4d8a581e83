import LocationAPI


/// The row `fieldloc record` writes for each heading on a board with a gyroscope (kept apart from
/// HeadingFiles.swift, which the calibration fuzzer compiles without the engine's types).
extension HeadingCSV {
    /// One row of ``recordedHeader`` from a heading of the attitude filter, `seconds` after the
    /// recording's start: the calibrated field (µT), the specific force (g) and the measured rates
    /// (degrees per second), body FRD, and the fix's speed and course, as the filter received them
    /// (speed and course blank without a fix). `nil` for a heading without the filter's attitude (a
    /// board without a gyroscope).
    public static func recordedRow(_ h: HeadingUpdate, seconds: Double) -> String? {
        guard let w = h.attitude?.rotationRate else { return nil }
        let cells = [FixText.fixed(seconds, 6), FixText.fixed(h.accelerationX, 6), FixText.fixed(h.accelerationY, 6),
                     FixText.fixed(h.accelerationZ, 6), FixText.fixed(h.x, 5), FixText.fixed(h.y, 5), FixText.fixed(h.z, 5),
                     FixText.fixed(w.x, 5), FixText.fixed(w.y, 5), FixText.fixed(w.z, 5),
                     h.attitude?.groundSpeed.map(RecordingEvents.exact) ?? "",
                     h.attitude?.groundCourse.map(RecordingEvents.exact) ?? ""]
        return cells.joined(separator: ",")
    }
}
