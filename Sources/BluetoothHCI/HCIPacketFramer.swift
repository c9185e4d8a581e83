/// Splits a byte stream of H4 packets (a UART transport, a recording) into whole packets,
/// however the bytes arrive: whole, byte by byte or in bursts.
///
/// Event and command packets are handed over whole (indicator excluded) from one fixed buffer;
/// data packets (ACL, SCO, ISO) are skipped by their length fields. A byte that is no packet
/// indicator is skipped and counted: the framer resynchronises on the next indicator.
public struct HCIPacketFramer: Sendable {
    /// Bytes skipped because they started no known packet.
    public private(set) var strayBytes = 0
    /// Data packets (ACL, SCO, ISO) skipped.
    public private(set) var skippedDataPackets = 0

    private enum State: Sendable {
        case indicator
        case header(HCI.PacketType, need: Int)
        case body(HCI.PacketType, remaining: Int)
        case skip(remaining: Int)
    }

    private var state = State.indicator
    private var buffer: [UInt8]
    private var filled = 0

    /// Creates a framer with its one buffer (259 bytes: the longest event or command).
    public init() {
        buffer = [UInt8](repeating: 0, count: 3 + HCI.maximumEventParameters + 1)
    }

    /// Feeds `bytes`; calls `packet` with the type and bytes (header included, indicator
    /// excluded) of every event and command completed by them. The bytes are borrowed for the call.
    public mutating func push(_ bytes: UnsafeRawBufferPointer, _ packet: (HCI.PacketType, UnsafeRawBufferPointer) -> Void) {
        var index = 0
        while index < bytes.count {
            switch state {
            case .indicator:
                let byte = bytes[index]
                index += 1
                filled = 0
                switch HCI.PacketType(rawValue: byte) {
                case .event?: state = .header(.event, need: 2)
                case .command?: state = .header(.command, need: 3)
                case .acl?: state = .header(.acl, need: 4)
                case .sco?: state = .header(.sco, need: 3)
                case .iso?: state = .header(.iso, need: 4)
                case .vendor?, nil: strayBytes += 1
                }
            case .header(let type, let need):
                buffer[filled] = bytes[index]
                filled += 1
                index += 1
                guard filled == need else { continue }
                let length: Int
                switch type {
                case .event: length = Int(buffer[1])
                case .command: length = Int(buffer[2])
                case .sco: length = Int(buffer[2])
                case .acl: length = Int(buffer[2]) | Int(buffer[3]) << 8
                case .iso: length = Int(buffer[2]) | Int(buffer[3] & 0x3F) << 8
                case .vendor: length = 0
                }
                if type == .event || type == .command {
                    if length == 0 { finish(type, packet) } else { state = .body(type, remaining: length) }
                } else {
                    skippedDataPackets += 1
                    state = length == 0 ? .indicator : .skip(remaining: length)
                }
            case .body(let type, let remaining):
                let take = min(remaining, bytes.count - index)
                for offset in 0..<take { buffer[filled + offset] = bytes[index + offset] }
                filled += take
                index += take
                if take == remaining { finish(type, packet) } else { state = .body(type, remaining: remaining - take) }
            case .skip(let remaining):
                let take = min(remaining, bytes.count - index)
                index += take
                state = take == remaining ? .indicator : .skip(remaining: remaining - take)
            }
        }
    }

    private mutating func finish(_ type: HCI.PacketType, _ packet: (HCI.PacketType, UnsafeRawBufferPointer) -> Void) {
        state = .indicator
        let count = filled
        filled = 0
        buffer.withUnsafeBytes { packet(type, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
