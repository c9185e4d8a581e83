import NMEA
import Testing

/// The sky view a stream builds from GSV series, against the rule written out in a model: the first
/// message of a series removes the satellites of its talker's system (a GP series also its SBAS and
/// QZSS satellites) with its signal ID, or those with no system for a talker without one, or all of
/// them for GN; then each satellite is appended, up to 64. The assembler finds a series' satellites
/// by keys kept beside the table and moves the others in blocks (EpochAssemblerSeries.swift).
@Suite("Sky view from GSV series")
struct SkySeriesTests {
    struct Entry: Equatable, CustomStringConvertible {
        var constellation: Constellation?
        var prn: UInt16
        var signalID: UInt8?
        var description: String { "\(constellation.map { "\($0)" } ?? "-")/\(prn)/\(signalID.map { "\($0)" } ?? "-")" }
    }

    static let talkers = ["GP", "GL", "GA", "GB", "BD", "GQ", "GN", "II"]
    /// Satellite numbers of every kind a talker sends, SBAS and QZSS under GP among them.
    static let prns = Array(1...32) + Array(33...64) + Array(65...96) + Array(120...158) + Array(193...202)
        + Array(301...336) + Array(401...437)

    @Test("the sky after each epoch is the model's, order included")
    func skyMatchesTheModel() throws {
        var random = SplitMix(state: 0x5EED_5C1E)
        var model: [Entry] = []
        var expected: [[Entry]] = []
        var text = ""
        for epoch in 0..<600 {
            let time = "12" + two(epoch / 60 % 60) + two(epoch % 60) + ".00"
            var lines = [withChecksum("$GNGGA,\(time),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")]
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let talkerText = Self.talkers[Int(random.next() % UInt64(Self.talkers.count))]
                let signal: UInt8? = random.next() % 3 == 0 ? nil : UInt8(1 + random.next() % 8)
                let count = Int(random.next() % 14)
                let satellites = (0..<count).map { _ in Self.prns[Int(random.next() % UInt64(Self.prns.count))] }
                let series = Self.series(talker: talkerText, prns: satellites, signal: signal)
                let talker = try parse(series[0]).talker
                Self.apply(talker: talker, prns: satellites, signal: signal, to: &model)
                lines += series
            }
            lines.append(withChecksum("$GNRMC,\(time),A,4807.038,N,01131.000,E,0.0,0.0,241126,,,A"))
            text += lines.joined(separator: "\r\n") + "\r\n"
            expected.append(model)
        }
        let fixes = streamFixes(Array(text.utf8), skipsCommentLines: false).fixes
        try #require(fixes.count == expected.count)
        for (index, (fix, model)) in zip(fixes, expected).enumerated() {
            let sky = fix.satellites.array.map { Entry(constellation: $0.constellation, prn: $0.prn, signalID: $0.signalID) }
            #expect(sky == model, "epoch \(index)")
        }
    }

    /// The rule, written out.
    static func apply(talker: Talker?, prns: [Int], signal: UInt8?, to model: inout [Entry]) {
        let system = talker?.constellation
        if let system {
            model.removeAll { entry in
                let own = entry.constellation == system || (system == .gps && (entry.constellation == .sbas || entry.constellation == .qzss))
                return own && entry.signalID == signal
            }
        } else if talker == .combined {
            model.removeAll()
        } else {
            model.removeAll { $0.constellation == nil }
        }
        for prn in prns where prn > 0 && model.count < 64 {
            model.append(Entry(constellation: Constellation.of(satellite: prn, talker: talker), prn: UInt16(prn), signalID: signal))
        }
    }

    /// A GSV series for `prns` (four a sentence; one empty sentence for none), with the signal ID
    /// field when there is one.
    static func series(talker: String, prns: [Int], signal: UInt8?) -> [String] {
        let total = max(1, (prns.count + 3) / 4)
        return (0..<total).map { part in
            var fields = ["$\(talker)GSV", String(total), String(part + 1), String(prns.count)]
            for prn in prns[min(prns.count, part * 4)..<min(prns.count, part * 4 + 4)] { fields += [String(prn), "45", "120", "40"] }
            if let signal { fields.append(String(signal, radix: 16, uppercase: true)) }
            return withChecksum(fields.joined(separator: ","))
        }
    }
}

private func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
