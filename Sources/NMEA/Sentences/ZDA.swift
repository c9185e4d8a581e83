/// ZDA: UTC time and date, with the local zone.
///
/// `$GPZDA,hhmmss.ss,dd,mm,yyyy,zh,zm*hh`
public struct ZDA: Sendable, Hashable {
    public var time: TimeOfDay?
    public var date: CalendarDate?
    public var localZoneHours: Int?
    public var localZoneMinutes: Int?

    @inline(__always)
    static func parse(_ f: inout FieldReader) throws(NMEAError) -> ZDA {
        var s = ZDA()
        // Required: the time (field 1). The date is kept only when day, month and year are all
        // readable and make a date; an unreadable part or zone field is absent. See QUIRKS.md.
        s.time = try f.time()
        let day = try f.optionalInteger(in: 1...31)
        let month = try f.optionalInteger(in: 1...12)
        let year = try f.optionalInteger(in: 1900...9999)
        if let day, let month, let year {
            if let date = CalendarDate(year: year, month: month, day: day) {
                s.date = date
            } else {
                try f.noteUnreadable(field: 2, .badDate)
            }
        }
        s.localZoneHours = try f.optionalInteger(in: -13...13)
        s.localZoneMinutes = try f.optionalInteger(in: 0...59)
        return s
    }
}
