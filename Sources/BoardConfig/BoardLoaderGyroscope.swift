import Devices

extension BoardLoader {
    /// Reads a `[[sensor]]`'s `gyro` and `gnss_course_aid` keys: `gyro = true` turns the chip's
    /// gyroscope on at ``SensorChip/defaultGyroscopeRange``, `gyro = 1000` at that range (one the
    /// chip offers), `gyro = false` or no key leaves it off. `gnss_course_aid` needs `gyro`.
    static func readGyroscope(_ section: Section, chip: SensorChip) throws(BoardError) -> (range: Int?, courseAid: Bool) {
        var range: Int?
        if let entry = section.entry("gyro") {
            let ranges = chip.gyroscopeRanges
            guard !ranges.isEmpty else {
                let combos = SensorChip.catalogue.filter(\.hasGyroscope).compactMap(\.boardSpellings.first).joined(separator: " and ")
                throw section.error("\(chip.rawValue) has no gyroscope (\(combos) do)", key: "gyro",
                                    at: entry.node.location)
            }
            let list = ranges.map(String.init).joined(separator: ", ")
            switch entry.node.value {
            case .boolean(let on):
                range = on ? SensorChip.defaultGyroscopeRange : nil
            case .integer(let value):
                guard ranges.contains(value) else {
                    throw section.error("\(value) dps is not a \(chip.rawValue) gyroscope range (\(list))", key: "gyro",
                                        at: entry.node.location)
                }
                range = value
            default:
                throw section.error("expected true, false or a range in degrees per second (\(list)), found \(describe(entry.node.value))",
                                    key: "gyro", at: entry.node.location)
            }
        }
        var courseAid = false
        if let entry = section.entry("gnss_course_aid") {
            guard case .boolean(let on) = entry.node.value else {
                throw section.error("expected true or false, found \(describe(entry.node.value))", key: "gnss_course_aid",
                                    at: entry.node.location)
            }
            if on && range == nil {
                throw section.error("the GNSS course aids the attitude filter, which needs the gyroscope: add gyro = true",
                                    key: "gnss_course_aid", at: entry.node.location)
            }
            courseAid = on
        }
        return (range, courseAid)
    }
}
