import Devices
import HardwareInterfaces
import NMEA

/// u-blox M8 data batching (protocol 23.01 and later, "Data batching" in the M8 receiver
/// description): the receiver keeps its fixes in a RAM buffer while nobody reads them (the host
/// is off; the receiver stays powered, or on its backup supply with the RAM kept) and hands them
/// over on request. UBX-CFG-BATCH switches it on with the buffer's size; UBX-LOG-RETRIEVEBATCH asks
/// for the buffer, which comes as UBX-MON-BATCH (the fill level, when asked for first) then one
/// UBX-LOG-BATCH per fix, oldest first, and is emptied by the retrieval.
public enum UBXBatch {
    /// UBX-CFG-BATCH (0x06 0x93, 8 bytes): version 0; flags bit 0 `enable`, bit 2 `extraPvt`
    /// (velocity, heading, their accuracies and pDOP kept too), bit 3 `extraOdo`; `bufSize` fixes
    /// (the receiver refuses a size its RAM cannot hold with ACK-NAK); `notifThrs` (0: no
    /// notification); no PIO. Acknowledged like every CFG message.
    public static func configuration(enabled: Bool, bufferSize: UInt16, notificationThreshold: UInt16 = 0) -> UBXMessage {
        let flags: UInt8 = enabled ? 0x05 : 0x00
        let payload: [UInt8] = [0x00, flags, UInt8(bufferSize & 0xFF), UInt8(bufferSize >> 8),
                                UInt8(notificationThreshold & 0xFF), UInt8(notificationThreshold >> 8), 0x00, 0x00]
        return UBXMessage(class: 0x06, id: 0x93, payload: payload)
    }

    /// UBX-LOG-RETRIEVEBATCH (0x21 0x10, 4 bytes): version 0, flags bit 0 `sendMonFirst`. Not acknowledged.
    public static func retrieve(sendStatusFirst: Bool = true) -> UBXMessage {
        UBXMessage(class: 0x21, id: 0x10, payload: [0x00, sendStatusFirst ? 0x01 : 0x00, 0x00, 0x00])
    }

    /// UBX-MON-BATCH (0x0A 0x32, 12 bytes): the buffer's state.
    public struct Status: Sendable, Hashable {
        /// Fixes in the buffer (the LOG-BATCH messages that follow a retrieval).
        public var fillLevel: Int
        /// Fixes dropped since batching was switched on (the buffer was full).
        public var dropsAll: Int
        /// Fixes dropped since the last MON-BATCH.
        public var dropsSinceStatus: Int
        /// The `msgCnt` the next LOG-BATCH will carry.
        public var nextIndex: Int

        /// Decodes the payload: version 0, 3 reserved, then `fillLevel`, `dropsAll`,
        /// `dropsSinceMon` and `nextMsgCnt` (U2 each). `nil` for another length or version.
        public init?(payload: [UInt8]) {
            guard payload.count == 12, payload[0] == 0 else { return nil }
            let f = PayloadFields(payload)
            fillLevel = f.u16(4)
            dropsAll = f.u16(6)
            dropsSinceStatus = f.u16(8)
            nextIndex = f.u16(10)
        }
    }

    /// UBX-LOG-BATCH (0x21 0x11, 100 bytes): one fix from the buffer.
    public struct Entry: Sendable, Hashable {
        /// `msgCnt`: the fix's number, counting up (wrapping at 65536).
        public var index: Int
        /// The fix's UTC, when the receiver marked date and time valid.
        public var time: UTCTime?
        /// The time's accuracy estimate, seconds (`tAcc`).
        public var timeAccuracy: Double
        /// 0 no fix, 1 dead reckoning, 2 2D, 3 3D, 4 GNSS + dead reckoning, 5 time only.
        public var fixType: Int
        /// `gnssFixOK`: within the receiver's accuracy masks.
        public var fixOK: Bool
        /// `diffSoln`: differential corrections applied.
        public var differential: Bool
        /// Satellites used.
        public var satellites: Int
        /// Degrees.
        public var latitude: Double, longitude: Double
        /// Height above the ellipsoid and above mean sea level, metres.
        public var height: Double, heightMSL: Double
        /// Accuracy estimates, metres.
        public var horizontalAccuracy: Double, verticalAccuracy: Double
        /// North, east and down velocity, m/s, and the ground speed, m/s (`extraPvt`).
        public var velocity: SIMD3<Double>, groundSpeed: Double
        /// Heading of motion, degrees, and the speed and heading accuracies (`extraPvt`).
        public var course: Double, speedAccuracy: Double, courseAccuracy: Double
        /// Position DOP (`extraPvt`).
        public var pdop: Double
        /// Whether the extra PVT fields (velocity, heading, their accuracies, pDOP) were kept.
        public var hasExtraPVT: Bool

        /// Decodes the payload (version 0; offsets of the M8 interface description). `nil` for
        /// another length or version.
        public init?(payload p: [UInt8]) {
            guard p.count == 100, p[0] == 0 else { return nil }
            let f = PayloadFields(p)
            func i32(_ i: Int) -> Double { Double(Int32(bitPattern: f.u32(i))) }
            hasExtraPVT = p[1] & 0x01 != 0
            index = f.u16(2)
            let validDate = p[15] & 0x01 != 0, validTime = p[15] & 0x02 != 0
            if validDate && validTime, let date = CalendarDate(year: f.u16(8), month: Int(p[10]), day: Int(p[11])),
               p[12] < 24, p[13] < 60, p[14] <= 60 {
                let seconds = Int64(date.daysSinceEpoch) * 86_400 + Int64(p[12]) * 3600 + Int64(p[13]) * 60 + Int64(p[14])
                time = UTCTime(nanosecondsSinceEpoch: seconds * 1_000_000_000 + Int64(Int32(bitPattern: f.u32(20))))
            } else {
                time = nil
            }
            timeAccuracy = Double(f.u32(16)) * 1e-9
            fixType = Int(p[24])
            fixOK = p[25] & 0x01 != 0
            differential = p[25] & 0x02 != 0
            satellites = Int(p[27])
            longitude = i32(28) * 1e-7
            latitude = i32(32) * 1e-7
            height = i32(36) / 1000
            heightMSL = i32(40) / 1000
            horizontalAccuracy = Double(f.u32(44)) / 1000
            verticalAccuracy = Double(f.u32(48)) / 1000
            velocity = SIMD3(i32(52), i32(56), i32(60)) / 1000
            groundSpeed = i32(64) / 1000
            course = i32(68) * 1e-5
            speedAccuracy = Double(f.u32(72)) / 1000
            courseAccuracy = Double(f.u32(76)) * 1e-5
            pdop = Double(f.u16(80)) * 0.01
        }

        /// The entry as a fix, as NAV-PVT would give it: position, heights, the receiver's accuracy
        /// estimates and, with the extra PVT fields, speed, course and pDOP. `nil` without a
        /// position fix (types 2, 3 and 4, `gnssFixOK`) or without a valid time.
        public var fix: Fix? {
            guard let time, fixOK, (2...4).contains(fixType) else { return nil }
            var f = Fix()
            f.time = time
            f.latitude = latitude
            f.longitude = longitude
            f.mode = fixType == 2 ? .twoD : .threeD
            f.quality = differential ? .differential : .gps
            f.satellitesUsed = satellites
            if fixType != 2 {
                f.altitudeMSL = heightMSL
                f.altitudeHAE = height
            }
            var accuracy = ReceiverAccuracy(model: .ubxAccuracyEstimate, horizontal: horizontalAccuracy,
                                            vertical: fixType == 2 ? nil : verticalAccuracy, time: timeAccuracy)
            if hasExtraPVT {
                f.speed = groundSpeed
                f.course = course
                f.pdop = pdop
                accuracy.speed = speedAccuracy
                accuracy.course = courseAccuracy
            }
            f.receiverAccuracy = accuracy
            f.horizontalAccuracy = horizontalAccuracy
            f.accuracySource = .receiver
            return f
        }
    }
}

/// Little-endian fields of a payload whose length the decoder checked (MON-BATCH, LOG-BATCH).
private struct PayloadFields {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
    func u32(_ i: Int) -> UInt32 { UInt32(u16(i)) | UInt32(u16(i + 2)) << 16 }
}

extension UBXBatch {
    /// What a retrieval returned: the buffer's state (MON-BATCH) and the fixes, oldest first.
    public struct Drain: Sendable, Hashable {
        /// The buffer's state before the retrieval.
        public var status: Status
        /// The fixes, oldest first (fewer than ``Status/fillLevel`` when the port went quiet first).
        public var entries: [Entry]
    }
}

extension UBloxDriver {
    /// Switches the receiver's data batching on with a buffer of `bufferSize` fixes, extra PVT
    /// fields kept (UBX-CFG-BATCH, acknowledged). M8 only: the M9 and M10 have no batching.
    public func enableBatching(bufferSize: Int) throws(ReceiverError) {
        guard generation == .m8 else { throw .unsupported(family: .ublox, operation: "batch fixes (\(generation.rawValue); M8 data batching only)") }
        guard (1...Int(UInt16.max)).contains(bufferSize) else {
            throw .invalidValue(operation: "CFG-BATCH", detail: "a buffer of \(bufferSize) fixes (1 to 65535)")
        }
        try channel.send(UBXBatch.configuration(enabled: true, bufferSize: UInt16(bufferSize)))
    }

    /// Retrieves and empties the batch buffer: UBX-LOG-RETRIEVEBATCH asking for MON-BATCH first,
    /// then the LOG-BATCH messages until as many as MON-BATCH announced have come. Each wait lasts
    /// the channel's timeout from the last message, so a long buffer at a low line rate is read
    /// whole and a receiver that stops answering ends the drain; throws when no MON-BATCH comes
    /// (batching was never switched on, or the receiver is not an M8 with batching).
    public func drainBatch() throws(ReceiverError) -> UBXBatch.Drain {
        guard generation == .m8 else { throw .unsupported(family: .ublox, operation: "batch fixes (\(generation.rawValue); M8 data batching only)") }
        let request = UBXBatch.retrieve(sendStatusFirst: true)
        let port = channel.port
        var status: UBXBatch.Status?
        var entries: [UBXBatch.Entry] = []
        do {
            try port.writeAll(request.bytes, deadline: port.clock.deadline(after: channel.timeout))
            while true {
                let before = (status != nil, entries.count)
                let complete = try channel.waitFor(deadline: port.clock.deadline(after: channel.timeout)) { sink -> Bool? in
                    for (c, i, p) in sink.ubx {
                        if c == 0x0A, i == 0x32, status == nil { status = UBXBatch.Status(payload: p) }
                        if c == 0x21, i == 0x11, let entry = UBXBatch.Entry(payload: p) { entries.append(entry) }
                    }
                    if let status, entries.count >= status.fillLevel { return true }
                    return nil
                }
                if complete == true { break }
                if (status != nil, entries.count) == before { break }  // nothing new within the timeout
            }
        } catch {
            throw .hardware(error)
        }
        guard let status else { throw .noAcknowledgement(command: request.description + " (LOG-RETRIEVEBATCH, no MON-BATCH)", attempts: 1, waited: channel.timeout) }
        return UBXBatch.Drain(status: status, entries: entries)
    }
}
