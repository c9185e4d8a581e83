import FieldLocationWire
import GPSDProtocol
import NIOCore
import NIOPosix

/// A gpsd-protocol client: connects to a server (our daemon, or any gpsd), asks for JSON reports
/// with `?WATCH={"enable":true,"json":true,"pps":true}` (TOFF and PPS for the time rows) and hands each line to a callback. `fieldloc status`
/// uses it to show a unit whose hardware a daemon owns.
public enum GPSDWatchClient {
    /// Why watching stopped.
    public enum WatchError: Error, CustomStringConvertible {
        /// Nothing listens there (or the connection timed out).
        case unreachable(String)
        /// The server sent a line longer than the limit.
        case lineTooLong(Int)

        public var description: String {
            switch self {
            case .unreachable(let s): return s
            case .lineTooLong(let n): return "the server sent a line of more than \(n) bytes"
            }
        }
    }

    /// The longest report line accepted (gpsd's own limit is 10240 bytes).
    public static let maxLine = 65_536

    /// Whether a server answers at `host`:`port` within `timeout`.
    public static func isReachable(host: String, port: Int, timeout: TimeAmount = .milliseconds(300)) async -> Bool {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout).connect(host: host, port: port).get()
            try? await channel.close()
            return true
        } catch {
            return false
        }
    }

    /// Connects and reads report lines until `onLine` returns false, the server closes, or the
    /// task is cancelled. Connecting is bounded by `timeout`.
    public static func watch(host: String, port: Int, timeout: TimeAmount = .seconds(2),
                             onLine: @Sendable ([UInt8]) -> Bool) async throws {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw WatchError.unreachable("\(host):\(port): \(error)")
        }
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: "?WATCH={\"enable\":true,\"json\":true,\"pps\":true};\n"))
            let lines = NIOSingleStepByteToMessageProcessor(LineDecoder(maximumLength: maxLine))
            for try await buffer in inbound {
                var stop = false
                try lines.process(buffer: buffer) { item in
                    guard !stop else { return }
                    switch item {
                    case .line(let line): stop = !onLine(Array(line.readableBytesView))
                    case .tooLong: throw WatchError.lineTooLong(maxLine)
                    }
                }
                if stop || Task.isCancelled { return }
            }
        }
    }
}
