import HardwareInterfaces
import LocationAPI

extension RecordedSession {
    /// A recorded burst of raw sensor readings (a SENSOR line): `t` seconds after the start, in the
    /// chips' axes, before calibration and mounting.
    public struct SensorSample: Sendable, Equatable {
        public var t: Double
        /// The accelerometer, g (`acc`).
        public var acceleration: SIMD3<Double>?
        /// The gyroscope, degrees per second (`gyro`).
        public var rotationRate: SIMD3<Double>?
        /// The magnetometer, µT (`mag`).
        public var field: SIMD3<Double>?
    }

    /// A recorded Bluetooth advertising report (an ADVERT line), received `t` seconds after the start.
    public struct Advert: Sendable, Equatable {
        public var t: Double
        public var address: BluetoothAddress
        public var rssi: Int?
        public var txPower: Int?
        public var isScanResponse: Bool
        /// The advertising data (the AD structures), written as hexadecimal (`data`).
        public var data: [UInt8]
    }

    /// The RECORDING line's format version, which this reader must know.
    static func header(_ event: Event, fail: (String) -> LoadError) throws(LoadError) -> Int {
        guard let version = event.version, version == version.rounded(), version >= 1 else {
            throw fail("RECORDING: key 'version' must be a whole number from 1")
        }
        guard version <= Double(formatVersion) else {
            throw fail("RECORDING: format version \(Int(version)) is newer than this fieldloc reads (\(formatVersion)); use a newer fieldloc")
        }
        return Int(version)
    }

    /// The RECORDING line's `receivers` (format version 4): at least two distinct, non-empty names.
    static func receiverNames(_ event: Event, fail: (String) -> LoadError) throws(LoadError) -> [String] {
        guard let names = event.receivers else { return [] }
        guard (event.version ?? 0) >= 4 else { throw fail("RECORDING: key 'receivers' needs format version 4") }
        guard names.count >= 2 else { throw fail("RECORDING: key 'receivers' lists \(names.count) receiver(s); it names two or more") }
        if let bad = names.first(where: { name in name.isEmpty || names.filter { $0 == name }.count > 1 }) {
            throw fail("RECORDING: key 'receivers' names '\(String(bad.prefix(32)))' \(bad.isEmpty ? "(empty)" : "twice")")
        }
        return names
    }

    /// The index of the receiver a CHUNK or PORT line names (0 on a recording of one receiver).
    static func receiverIndex(_ event: Event, of session: RecordedSession, kind: String, fail: (String) -> LoadError) throws(LoadError) -> Int {
        guard !session.receivers.isEmpty else {
            guard event.receiver == nil else {
                throw fail("\(kind): key 'receiver' on a recording whose RECORDING line lists no receivers")
            }
            guard kind == "CHUNK" else { throw fail("\(kind): a recording of one receiver has no \(kind) lines") }
            return 0
        }
        guard let name = event.receiver else {
            throw fail("\(kind): missing key 'receiver' (one of \(session.receivers.joined(separator: ", ")))")
        }
        guard let index = session.receivers.firstIndex(of: name) else {
            throw fail("\(kind): receiver '\(String(name.prefix(32)))' is not one the RECORDING line lists (\(session.receivers.joined(separator: ", ")))")
        }
        return index
    }

    static func sensorSample(_ event: Event, t: Double, fail: (String) -> LoadError) throws(LoadError) -> SensorSample {
        func vector(_ values: [Double]?, _ key: String) throws(LoadError) -> SIMD3<Double>? {
            guard let values else { return nil }
            guard values.count == 3, values.allSatisfy(\.isFinite) else {
                throw fail("SENSOR: key '\(key)' must be a list of three numbers, found \(values.count)")
            }
            return SIMD3(values[0], values[1], values[2])
        }
        let sample = SensorSample(t: t, acceleration: try vector(event.acc, "acc"), rotationRate: try vector(event.gyro, "gyro"),
                                  field: try vector(event.mag, "mag"))
        guard sample.acceleration != nil else { throw fail("SENSOR: missing key 'acc' (every sample reads the accelerometer)") }
        guard sample.rotationRate == nil || sample.field != nil else {
            throw fail("SENSOR: key 'gyro' without 'mag' (a gyroscope burst reads the magnetometer too)")
        }
        return sample
    }

    static func advert(_ event: Event, t: Double, fail: (String) -> LoadError) throws(LoadError) -> Advert {
        guard let text = event.address else { throw fail("ADVERT: missing key 'address' (AA:BB:CC:DD:EE:FF)") }
        guard let address = parseAddress(text, random: event.random ?? false) else {
            throw fail("ADVERT: key 'address' must be six hexadecimal bytes like AA:BB:CC:DD:EE:FF, found \(String(text.prefix(32)))")
        }
        func dBm(_ value: Double?, _ key: String) throws(LoadError) -> Int? {
            guard let value else { return nil }
            guard value == value.rounded(), (-128...127).contains(value) else {
                throw fail("ADVERT: key '\(key)' must be a whole number of dBm from -128 to 127, found \(value)")
            }
            return Int(value)
        }
        guard let hex = event.data else { throw fail("ADVERT: missing key 'data' (the advertising data in hexadecimal)") }
        let data: [UInt8]
        switch parseHex(hex) {
        case .success(let bytes): data = bytes
        case .failure(let error):
            throw fail("ADVERT: key 'data' is not hexadecimal bytes (at character \(error.position + 1) of \(hex.utf8.count))")
        }
        guard data.count <= 255 else { throw fail("ADVERT: key 'data' holds \(data.count) bytes, more than an advertising report carries (255)") }
        return Advert(t: t, address: address, rssi: try dBm(event.rssi, "rssi"), txPower: try dBm(event.txPower, "tx_power"),
                      isScanResponse: event.scanResponse ?? false, data: data)
    }

    /// `AA:BB:CC:DD:EE:FF` (most significant byte first), or `nil`.
    static func parseAddress(_ text: String, random: Bool) -> BluetoothAddress? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            value = value << 8 | UInt64(byte)
        }
        return BluetoothAddress(rawValue: value, isRandom: random)
    }

    /// The bytes of a hexadecimal string, or the offset of the first character that breaks it.
    struct HexError: Error { var position: Int }
    static func parseHex(_ text: String) -> Result<[UInt8], HexError> {
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        let chars = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = nibble(chars[index]) else { return .failure(HexError(position: index)) }
            guard index + 1 < chars.count, let low = nibble(chars[index + 1]) else { return .failure(HexError(position: index + 1)) }
            out.append(high << 4 | low)
            index += 2
        }
        return .success(out)
    }

    /// The samples on a replay's clock, `start` being the recording's time zero.
    func rawSensorSamples(from start: MonotonicInstant) -> [RawSensorSample] {
        sensorSamples.map { s in
            RawSensorSample(takenAt: start.advanced(by: .nanoseconds(Int64((s.t * 1e9).rounded()))),
                            acceleration: s.acceleration, rotationRate: s.rotationRate, field: s.field)
        }
    }
}
