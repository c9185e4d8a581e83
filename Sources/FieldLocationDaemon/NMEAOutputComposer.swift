import FieldLocation
import LocationAPI
import NMEA

/// Turns the engine's observations into the NMEA output's sentences: the receiver's sentences
/// as the engine's framer split them (``EngineObservation/frames(_:)``: as received, checksums
/// intact; binary frames left out), and the daemon's own
/// heading and attitude sentences from each heading the engine delivers:
///
/// - `$HCHDT`: the true heading (only once a fix gave the engine its position for the declination);
/// - `$HCHDM`: the magnetic heading;
/// - `$HCHDG`: the magnetic sensor heading, deviation `0.0,E` (the engine's magnetometer
///   calibration has already removed the hard- and soft-iron deviation) and the variation: the
///   declination of the World Magnetic Model (WMM2025) at the last fix that the engine applied
///   (true − magnetic), east positive; empty until a fix. The receiver's RMC variation is not used.
/// - `$HCXDR,A,pitch,D,PTCH,A,roll,D,ROLL`: pitch (bow up positive) and roll (starboard down
///   positive), degrees, from the attitude filter on boards with a gyroscope (OpenCPN's dashboard
///   reads `PTCH` and `ROLL`); not sent for tilt-compensated headings without a filter.
///
/// Headings whose quality is `unavailable` (or whose accuracy is negative) give no sentences.
/// Keeps no state between calls.
final class NMEAOutputComposer {
    /// One sentence and its formatter, for the filters.
    struct Line: Equatable {
        var formatter: String
        var bytes: [UInt8]
    }

    /// The sentences `observation` gives.
    func lines(for observation: EngineObservation) -> [Line] {
        switch observation {
        case .frames(let frames):
            return frames.compactMap { frame in
                guard frame.kind == .sentence, let formatter = NMEABuilder.formatter(of: frame.bytes) else { return nil }
                return Line(formatter: formatter, bytes: frame.bytes)
            }
        case .heading(let update):
            return Self.headingLines(update)
        case .bytes, .fix, .pps, .sensorSample, .advert, .receiverBytes, .receiverPort:
            return []
        }
    }

    /// HDT, HDM, HDG and (with a fused attitude) XDR for one heading.
    static func headingLines(_ update: HeadingUpdate) -> [Line] {
        guard update.quality != .unavailable, update.headingAccuracy >= 0, update.magneticHeading.isFinite else { return [] }
        var out: [Line] = []
        func add(_ formatter: String, _ bytes: [UInt8]?) { if let bytes { out.append(Line(formatter: formatter, bytes: bytes)) } }
        add("HDT", update.trueHeading.flatMap { NMEABuilder.hdt(trueHeading: $0) })
        add("HDM", NMEABuilder.hdm(magneticHeading: update.magneticHeading))
        add("HDG", NMEABuilder.hdg(sensorHeading: update.magneticHeading, deviation: 0,
                                   variation: update.trueHeading.map { variation(true: $0, magnetic: update.magneticHeading) }))
        if let attitude = update.attitude {
            add("XDR", NMEABuilder.xdrAttitude(pitch: attitude.pitch, roll: attitude.roll))
        }
        return out
    }

    /// The variation the engine applied: true − magnetic, in (−180, 180], east positive.
    static func variation(true trueHeading: Double, magnetic: Double) -> Double {
        var v = (trueHeading - magnetic).truncatingRemainder(dividingBy: 360)
        if v > 180 { v -= 360 }
        if v <= -180 { v += 360 }
        return v
    }
}
