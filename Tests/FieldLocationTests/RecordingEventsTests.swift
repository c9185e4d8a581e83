import EnginePlatforms
import FieldLocationOutput
import Foundation
import HardwareInterfaces
import Heading
import LocationAPI
import LocationServices
import NMEA
import Testing

/// A recording's events file: what `fieldloc record` writes is what the replay board reads back.
@Suite("recording events: written and read by one format")
struct RecordingEventsTests {
    @Test("CHUNK, FIX, HEADING and PPS lines round-trip; a value that is not finite is left out, not written as text")
    func roundTrip() throws {
        let raw = Array("$GPGGA,1*00\r\n$GPRMC,2*00\r\n".utf8)
        let start = MonotonicInstant(nanoseconds: 0)
        let edge = MonotonicInstant(nanoseconds: 1_000_000_000)
        var fix = Fix()
        fix.mode = .threeD
        fix.latitude = 47.5
        fix.longitude = 8.25
        let heading = HeadingUpdate(magneticHeading: 12.5, trueHeading: 15.25, headingAccuracy: 3, x: 0, y: 0, z: 0,
                                    accelerationX: 0, accelerationY: 0, accelerationZ: 0, pitch: nil, roll: nil,
                                    inclination: nil, quality: .good, flags: [], takenAt: start)
        var unknownTrue = heading
        unknownTrue.trueHeading = .nan
        let events = RecordingEvents.chunk(t: 0.5, offset: 0, length: 13)
            + RecordingEvents.heading(heading, t: 0.6)
            + RecordingEvents.fix(fix, t: 0.7)
            + RecordingEvents.chunk(t: 1.5, offset: 13, length: 13)
            + RecordingEvents.pps(PPSSample(utcSecond: 1_777_593_601, edge: edge, nmeaArrival: edge.advanced(by: .milliseconds(200))), t: 1.6)
            + RecordingEvents.heading(unknownTrue, t: 1.7)
        #expect(RecordingEvents.heading(unknownTrue, t: 1.7) == "{\"class\":\"HEADING\",\"t\":1.700,\"magnetic\":12.50,\"accuracy\":3.00,\"quality\":\"good\"}\n")
        for line in events.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "\(line)")
        }
        let session = try RecordedSession.parse(raw: raw, events: events, eventsFile: "s.events.jsonl")
        #expect(session.chunks.map(\.t) == [0.5, 1.5] && session.chunks.map(\.bytes) == [Array(raw[0..<13]), Array(raw[13...])])
        #expect(session.headings.count == 2)
        let first = try #require(session.headings.first)
        #expect(first.t == 0.6 && first.magnetic == 12.5 && first.trueHeading == 15.25 && first.accuracy == 3 && first.quality == .good)
        #expect(session.headings.last?.trueHeading == nil)
        #expect(session.pulses.map(\.utc) == [1_777_593_601] && session.pulses.map(\.t) == [1.6])
        #expect(abs((session.pulses.first?.edge ?? 0) - 1.4) < 1e-9)
        #expect(session.duration == 1.7)
    }

    @Test("a key of the wrong type is named with its line")
    func wrongType() {
        let raw = Array("$GPGGA,1*00\r\n".utf8)
        do {
            _ = try RecordedSession.parse(raw: raw, events: "{\"class\":\"CHUNK\",\"t\":\"soon\",\"offset\":0,\"length\":13}",
                                          eventsFile: "s.events.jsonl")
            Issue.record("accepted a string for t")
        } catch {
            #expect(error.description == "s.events.jsonl:1: CHUNK: key 't' must be a number")
        }
    }
}
