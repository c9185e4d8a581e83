@testable import NMEA
import Testing

/// GSV's reader of a satellite group in the standard width (`pp,ee,aaa,ss`) against the four
/// bounded reads of the general path, on groups of every shape.
@Suite("GSV satellite groups")
struct SatelliteGroupTests {
    /// A field of `width` characters: digits mostly, sometimes a sign, a letter or a space.
    static func field(_ width: Int, _ random: inout SplitMix) -> String {
        var text = ""
        for index in 0..<width {
            switch random.next() % 80 {
            case 0 where index == 0: text += "-"
            case 1: text += "A"
            case 2: text += " "
            case 3: text += "."
            default: text += String(random.next() % 10)
            }
        }
        return text
    }

    @Test("every group the fast reader takes reads as the four bounded reads read it; every other is left to them unread")
    func againstGeneralPath() {
        var random = SplitMix(state: 0x6507)
        var fast = 0
        var general = 0
        // Widths: the standard ones most often, every other from 0 to 4 too.
        let widths = [[2, 2, 3, 2], [2, 2, 3, 0], [0, 0, 0, 0], [2, 0, 0, 2], [3, 2, 3, 2], [1, 2, 3, 2], [2, 1, 3, 2], [2, 2, 2, 2],
                      [2, 2, 3, 1], [2, 2, 3, 3], [2, 3, 3, 2], [2, 2, 4, 2]]
        for round in 0..<20_000 {
            let shape = switch round % 3 {
            case 0: (0..<4).map { _ in Int(random.next() % 5) }
            case 1: random.next() % 4 == 0 ? [2, 2, 3, 0] : [2, 2, 3, 2]
            default: widths[Int(random.next() % UInt64(widths.count))]
            }
            var fields = shape.map { Self.field($0, &random) }
            // Azimuths in range more often than three random digits are (0...360 of 0...999).
            if fields[2].count == 3, random.next() % 4 != 0 {
                let azimuth = Int(random.next() % 361)
                fields[2] = String(azimuth / 100) + String(azimuth / 10 % 10) + String(azimuth % 10)
            }
            // Values at the edges of the bounds: elevation 90/91, azimuth 360/361, satellite 00.
            if random.next() % 5 == 0 { fields[1] = ["90", "91", "99", "00"][Int(random.next() % 4)] }
            if random.next() % 5 == 0 { fields[2] = ["360", "361", "999", "000"][Int(random.next() % 4)] }
            if random.next() % 7 == 0 { fields[0] = "00" }
            // What follows the group: another field, or the end of the fields (then the checksum,
            // or nothing at all: a sentence without one).
            let text = "3,1,11," + fields.joined(separator: ",")
            let follower = random.next() % 3
            let body = follower == 0 ? text + ",01,02,003,04" : text
            let tail = follower == 2 ? "" : "*7A"
            let bytes = Array((body + tail).utf8)
            bytes.withUnsafeBytes { raw in
                guard let start = raw.baseAddress else { return }
                let count = body.utf8.count
                let fieldCount = body.split(separator: ",", omittingEmptySubsequences: false).count
                var reader = FieldReader(start: start, count: count, fieldCount: fieldCount, sentence: .gsv,
                                         strict: false, readable: raw.count)
                // Past the three header fields.
                for _ in 0..<3 { _ = reader.next() }
                var quick = reader
                var slow = reader
                let prn = try? slow.optionalInteger(in: 0...999)
                let elevation = try? slow.optionalInteger(in: -90...90)
                let azimuth = try? slow.optionalInteger(in: 0...360)
                let snr = try? slow.optionalInteger(in: 0...99)
                if let group = quick.standardSatellite() {
                    fast += 1
                    #expect(group.prn == prn && group.elevation == elevation && group.azimuth == azimuth
                            && group.snr == snr, "\(body): \(group)")
                    #expect(quick.position == slow.position, "\(body)")
                    #expect(slow.unreadable == 0, "\(body): the fast reader took a group with an unreadable field")
                } else {
                    general += 1
                    #expect(quick.position == reader.position, "\(body): moved without reading")
                    // The standard shape with values in range must not be left to the slow path.
                    let standard = fields[0].count == 2 && fields[1].count == 2 && fields[2].count == 3
                        && (fields[3].count == 2 || fields[3].isEmpty) && fields.allSatisfy { $0.allSatisfy(\.isNumber) }
                    if standard, let elevation = Int(fields[1]), elevation <= 90, let azimuth = Int(fields[2]), azimuth <= 360,
                       raw.count - reader.position >= 12 {
                        Issue.record("\(body): a standard group went the general way")
                    }
                }
            }
        }
        #expect(fast > 3_000 && general > 5_000, "fast \(fast), general \(general)")
    }
}
