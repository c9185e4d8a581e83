import Logging
import NIOCore

/// What every connection handler of the daemon's servers (the gpsd socket and the local client
/// socket) keeps about its channel, and the rules they share: a connection is closed once, with a
/// reason in the log; an error closes it; and a client whose unread output passes the channel's
/// high write-buffer water mark (the server's output limit) is dropped, never buffered without
/// bound. Lives on the handler's event loop, inside the handler.
///
/// A class, not a struct: closing a channel can fire `channelInactive` at once, which detaches the
/// gate from inside its own `close(reason:)`; a mutating method would then overlap two accesses.
final class ConnectionGate {
    /// How the log names a connection: `client` or `client connection`.
    let name: String
    /// The output limit, in bytes, for the log line of a dropped slow reader.
    let outputLimit: Int
    let logger: Logger
    /// Counts a dropped slow reader in the server's counters.
    let countSlowReader: () -> Void
    private var context: ChannelHandlerContext?
    /// Whether the connection is closing or gone: nothing more is written or handled.
    private(set) var closing = false

    init(name: String, outputLimit: Int, logger: Logger, countSlowReader: @escaping () -> Void) {
        self.name = name
        self.outputLimit = outputLimit
        self.logger = logger
        self.countSlowReader = countSlowReader
    }

    /// The handler's context while the connection is open and not closing.
    var open: ChannelHandlerContext? { closing ? nil : context }

    /// The handler's context, even while closing (for the peer's addresses).
    var channel: Channel? { context?.channel }

    /// The channel became active.
    func attach(_ context: ChannelHandlerContext) { self.context = context }

    /// The channel went inactive or the handler was removed: nothing more is written.
    func detach() {
        closing = true
        context = nil
    }

    /// Closes the connection (idempotent).
    func close(reason: String) {
        guard let context, !closing else { return }
        closing = true
        logger.debug("closing a \(name): \(reason)")
        context.close(promise: nil)
    }

    /// An error on the channel closes it.
    func caught(_ error: any Error) {
        logger.debug("\(name) error: \(error)")
        close(reason: "error: \(error)")
    }

    /// Drops the connection if its output passed the limit (the channel is not writable).
    func dropIfSlowReader() {
        guard let context = open, !context.channel.isWritable else { return }
        countSlowReader()
        logger.warning("dropping a client that stopped reading: more than \(outputLimit) bytes of output unread")
        close(reason: "slow reader")
    }

    /// Flushes what was written, then applies the output limit.
    func flush() {
        guard let context = open else { return }
        context.flush()
        dropIfSlowReader()
    }

    /// Writes and flushes `buffer`, then applies the output limit.
    func writeAndFlush(_ buffer: ByteBuffer) {
        guard let context = open else { return }
        context.writeAndFlush(NIOAny(buffer), promise: nil)
        dropIfSlowReader()
    }
}
