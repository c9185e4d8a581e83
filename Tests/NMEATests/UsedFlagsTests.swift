import NMEA
import Testing

/// The used flags of a fix's satellites against the rule written out: a satellite is used when the
/// epoch's GSA series named it with its system, or without one. The assembler keeps the flags in its
/// sky table and marks them again only when a series names a different set (EpochAssemblerSky.swift),
/// so these epochs keep or change the sky and the set independently, in both orders.
@Suite("Used satellites across epochs")
struct UsedFlagsTests {
    /// One GSA sentence's satellites, with the talker and the NMEA 4.10 system ID it is sent with.
    struct Named {
        var talker: String
        var systemID: Int?
        var prns: [Int]
    }

    static let gpsPRNs = Array(1...32)
    static let glonassPRNs = Array(65...88)
    static let beidouPRNs = [201, 205, 210, 401, 405, 420]

    @Test("flags follow the latest series whether the sky, the set, both or neither change")
    func flagsFollowTheSeries() throws {
        var random = SplitMix(state: 0x5EED_0017)
        var text = ""
        var expectedSets: [[Named]] = []
        var sky: [(talker: String, prns: [Int])] = [("GP", []), ("GL", []), ("GB", [])]
        for epoch in 0..<400 {
            let time = format2(epoch / 3600 % 24) + format2(epoch / 60 % 60) + format2(epoch % 60) + ".00"
            // The set: kept from the previous epoch half of the time, otherwise drawn anew.
            var set: [Named]
            if let previous = expectedSets.last, random.next() % 2 == 0 {
                set = previous
            } else {
                set = [Named(talker: "GN", systemID: 1, prns: Self.pick(Self.gpsPRNs, &random)),
                       Named(talker: "GN", systemID: 2, prns: Self.pick(Self.glonassPRNs, &random))]
                if random.next() % 3 == 0 { set.append(Named(talker: "GN", systemID: 4, prns: Self.pick(Self.beidouPRNs, &random))) }
                if random.next() % 4 == 0 { set.append(Named(talker: "GP", systemID: nil, prns: Self.pick(Self.gpsPRNs, &random))) }
            }
            expectedSets.append(set)
            // The sky: a new view of one system a third of the time.
            var gsv: [String] = []
            if random.next() % 3 == 0 {
                let which = Int(random.next() % 3)
                let pool = [Self.gpsPRNs, Self.glonassPRNs, Self.beidouPRNs][which]
                sky[which].prns = Self.pick(pool, &random)
                gsv = Self.series(talker: sky[which].talker, prns: sky[which].prns)
            }
            let gsa = set.map { named in
                var fields = ["$\(named.talker)GSA", "A", "3"]
                fields += (0..<12).map { $0 < named.prns.count ? String(named.prns[$0]) : "" }
                fields += ["1.5", "0.9", "1.2"]
                if let systemID = named.systemID { fields.append(String(systemID)) }
                return withChecksum(fields.joined(separator: ","))
            }
            var lines = [withChecksum("$GNGGA,\(time),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")]
            lines += random.next() % 2 == 0 ? gsa + gsv : gsv + gsa
            lines.append(withChecksum("$GNRMC,\(time),A,4807.038,N,01131.000,E,0.0,0.0,241126,,,A"))
            text += lines.joined(separator: "\r\n") + "\r\n"
        }

        let fixes = streamFixes(Array(text.utf8), skipsCommentLines: false).fixes
        try #require(fixes.count == expectedSets.count)
        var checked = 0
        for (fix, set) in zip(fixes, expectedSets) {
            for index in 0..<fix.satellites.count {
                let satellite = fix.satellites[index]
                // An entry names the sentence's system ID, else its talker's system (none for GN);
                // an entry without a system matches the PRN of any satellite.
                let expected = set.contains { named in
                    let system = named.systemID.flatMap(Constellation.init(systemID:)) ?? Self.system(of: named.talker)
                    return named.prns.contains(Int(satellite.prn)) && (system == nil || system == satellite.constellation)
                }
                #expect(satellite.used == expected, "epoch \(checked): satellite \(satellite.prn) \(String(describing: satellite.constellation))")
            }
            checked += 1
        }
        #expect(checked == 400)
    }

    /// The system a talker names in GSA when the sentence carries no system ID.
    static func system(of talker: String) -> Constellation? {
        switch talker {
        case "GP": return .gps
        case "GL": return .glonass
        case "GB", "BD": return .beidou
        default: return nil
        }
    }

    /// One to twelve distinct satellites of `pool`, in pool order.
    static func pick(_ pool: [Int], _ random: inout SplitMix) -> [Int] {
        let count = 1 + Int(random.next() % UInt64(min(12, pool.count)))
        var chosen = Set<Int>()
        while chosen.count < count { chosen.insert(pool[Int(random.next() % UInt64(pool.count))]) }
        return pool.filter { chosen.contains($0) }
    }

    /// A GSV series for `prns` (four a sentence).
    static func series(talker: String, prns: [Int]) -> [String] {
        let total = (prns.count + 3) / 4
        return (0..<total).map { part in
            var fields = ["$\(talker)GSV", String(total), String(part + 1), String(prns.count)]
            for prn in prns[(part * 4)..<min(prns.count, part * 4 + 4)] { fields += [String(prn), "45", "120", "40"] }
            return withChecksum(fields.joined(separator: ","))
        }
    }
}

private func format2(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
