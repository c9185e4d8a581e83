/// NMEA-0183 sentences built for output (the daemon's NMEA server): heading (HDT, HDM, HDG) and
/// attitude (XDR), each with its checksum, within the standard's 82-character limit.
///
/// Numbers are written with a fixed number of decimals and no exponent; angles are normalised to
/// [0, 360). Every builder returns `nil` for a value it cannot write (not finite) or a sentence
/// that would be longer than ``maximumLength``.
public enum NMEABuilder {
    /// The longest sentence NMEA-0183 allows: 82 characters from `$` through the line end (CR LF).
    public static let maximumLength = 82

    /// `$`, the talker and formatter, the fields joined with commas, `*`, the checksum, CR LF; `nil`
    /// when it would exceed ``maximumLength``, or the address is not two talker letters and a
    /// three-letter formatter, or a field holds a character NMEA reserves (`$ * , ! \ ^ ~`, CR, LF).
    public static func sentence(talker: String, formatter: String, fields: [String]) -> [UInt8]? {
        let talkerBytes = Array(talker.utf8), formatterBytes = Array(formatter.utf8)
        guard talkerBytes.count == 2, formatterBytes.count == 3,
              (talkerBytes + formatterBytes).allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) })
        else { return nil }
        var body = talkerBytes + formatterBytes
        for field in fields {
            let bytes = Array(field.utf8)
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && !reserved.contains($0) }) else { return nil }
            body.append(0x2C)
            body += bytes
        }
        var line = NMEAChecksum.sentence(body: body)
        line += [0x0D, 0x0A]
        return line.count <= maximumLength ? line : nil
    }

    /// The characters a field may not hold: `$ * , ! \ ^ ~`.
    static let reserved: Set<UInt8> = [0x24, 0x2A, 0x2C, 0x21, 0x5C, 0x5E, 0x7E]

    /// `$--HDT,x.x,T`: heading relative to true north, degrees.
    public static func hdt(trueHeading: Double, talker: String = "HC") -> [UInt8]? {
        guard let heading = angle(trueHeading) else { return nil }
        return sentence(talker: talker, formatter: "HDT", fields: [heading, "T"])
    }

    /// `$--HDM,x.x,M`: heading relative to magnetic north, degrees.
    public static func hdm(magneticHeading: Double, talker: String = "HC") -> [UInt8]? {
        guard let heading = angle(magneticHeading) else { return nil }
        return sentence(talker: talker, formatter: "HDM", fields: [heading, "M"])
    }

    /// `$--HDG,x.x,d.d,E/W,v.v,E/W`: the magnetic sensor heading, its deviation and the magnetic
    /// variation, degrees, east positive (a negative value is written as its magnitude with `W`).
    /// The magnetic heading is the sensor heading plus the deviation; the true heading is the
    /// magnetic heading plus the variation. A `nil` deviation or variation leaves its two fields empty.
    public static func hdg(sensorHeading: Double, deviation: Double?, variation: Double?, talker: String = "HC") -> [UInt8]? {
        guard let heading = angle(sensorHeading) else { return nil }
        var fields = [heading]
        for value in [deviation, variation] {
            if let value {
                guard value.isFinite, abs(value) <= 180 else { return nil }
                fields += [decimal(abs(value), places: 1), value < 0 ? "W" : "E"]
            } else {
                fields += ["", ""]
            }
        }
        return sentence(talker: talker, formatter: "HDG", fields: fields)
    }

    /// `$--XDR,A,p.p,D,PTCH,A,r.r,D,ROLL`: pitch and roll as two angular transducers (type `A`,
    /// unit `D` degrees), named `PTCH` and `ROLL` as OpenCPN's dashboard reads them. Pitch is
    /// positive bow up, roll positive with the starboard (right) side down.
    public static func xdrAttitude(pitch: Double, roll: Double, talker: String = "HC") -> [UInt8]? {
        guard pitch.isFinite, roll.isFinite, abs(pitch) <= 90, abs(roll) <= 180 else { return nil }
        return sentence(talker: talker, formatter: "XDR",
                        fields: ["A", decimal(pitch, places: 1), "D", "PTCH", "A", decimal(roll, places: 1), "D", "ROLL"])
    }

    /// An angle in [0, 360) with one decimal; `nil` when not finite.
    static func angle(_ degrees: Double) -> String? {
        guard degrees.isFinite else { return nil }
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value < 0 { value += 360 }
        // 359.96 rounds to 360.0: write it as 0.0.
        if (value * 10).rounded() >= 3600 { value = 0 }
        return decimal(value, places: 1)
    }

    /// `value` with `places` decimals (rounded half away from zero), a leading `-` when negative;
    /// finite values of magnitude below 1e15 only (others are written as `0`).
    public static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite, abs(value) < 1e15, places >= 0, places <= 9 else { return "0" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((abs(value) * scale).rounded())
        let unit = Int64(scale)
        let whole = scaled / unit
        var text = scaled != 0 && value < 0 ? "-" : ""
        text += String(whole)
        if places > 0 {
            let fraction = String(scaled % unit)
            text += "." + String(repeating: "0", count: places - fraction.count) + fraction
        }
        return text
    }

    /// Whether `line` is one well-formed sentence: `$` or `!`, a body without reserved framing
    /// bytes, `*`, two hexadecimal digits equal to the body's checksum, CR LF, at most
    /// ``maximumLength`` characters in all.
    public static func isValid(_ line: [UInt8]) -> Bool {
        guard line.count >= 6, line.count <= maximumLength, line[0] == 0x24 || line[0] == 0x21,
              line[line.count - 2] == 0x0D, line[line.count - 1] == 0x0A, line[line.count - 5] == 0x2A
        else { return false }
        let body = line[1..<(line.count - 5)]
        guard !body.contains(0x2A), !body.contains(0x24), !body.contains(0x0D), !body.contains(0x0A) else { return false }
        let (high, low) = NMEAChecksum.hexDigits(NMEAChecksum.compute(body))
        return line[line.count - 4] == high && line[line.count - 3] == low
    }

    /// The formatter of a sentence (`GGA` of `$GPGGA,...`, `HDT` of `$HCHDT,...`): the three
    /// characters before the first comma of an address of five; proprietary sentences (`$P...`)
    /// give their whole address (`PMTK001`, `PUBX`); `nil` for a line that is not a sentence.
    public static func formatter(of line: [UInt8]) -> String? {
        guard let first = line.first, first == 0x24 || first == 0x21 else { return nil }
        var address: [UInt8] = []
        for byte in line.dropFirst() {
            if byte == 0x2C || byte == 0x2A || byte == 0x0D { break }
            address.append(byte)
            if address.count > 16 { return nil }
        }
        guard !address.isEmpty else { return nil }
        if address[0] == 0x50 { return String(decoding: address, as: UTF8.self) }
        guard address.count == 5 else { return String(decoding: address, as: UTF8.self) }
        return String(decoding: address[2...], as: UTF8.self)
    }
}
