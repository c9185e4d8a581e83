/// ZDA: UTC time and date, with the local zone.
///
/// `$GPZDA,hhmmss.ss,dd,mm,yyyy,zh,zm*hh`
public struct ZDA: Sendable, Hashable {
    public var time: TimeOfDay?
    public var date: CalendarDate?
    public var localZoneHours: Int?
    public var localZoneMinutes: Int?

    static func parse(_ reader: FieldReader) throws(NMEAError) -> ZDA {
        var f = reader
        var s = ZDA()
        s.time = try f.time()
        let day = try f.integer(in: 1...31)
        let month = try f.integer(in: 1...12)
        let year = try f.integer(in: 1900...9999)
        if let day, let month, let year {
            guard let date = CalendarDate(year: year, month: month, day: day) else { throw f.fail(.badDate) }
            s.date = date
        }
        s.localZoneHours = try f.integer(in: -13...13)
        s.localZoneMinutes = try f.integer(in: 0...59)
        return s
    }
}
