import FieldLocation
import FieldLocationDaemon
import Logging
import NIOCore
import NIOHTTP1

/// Counts the bytes of a request before its head is complete and answers 431 past the limit, so
/// an endless header costs bounded memory. Sits before the HTTP decoder; the request handler
/// resets it at each complete head.
final class RequestHeadLimit: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let limit: Int
    var pending = 0
    private var tripped = false

    init(limit: Int) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !tripped else { return }
        pending += unwrapInboundIn(data).readableBytes
        if pending > limit {
            tripped = true
            var out = context.channel.allocator.buffer(capacity: 128)
            out.writeString("HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain\r\ncontent-length: 31\r\nconnection: close\r\n\r\nrequest head too large (limit)\n")
            let channel = context.channel
            context.writeAndFlush(NIOAny(out)).whenComplete { _ in channel.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
    }
}

/// One console connection: GET or HEAD of `/` (the page), `/events` (the page's live stream),
/// `/status.json` and `/metrics`; anything else is answered with a clear status and nothing is
/// ever read from the file system.
final class ConsoleHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let hub: ConsoleHub
    let admitted: Bool
    let headLimit: RequestHeadLimit
    let logger: Logger
    private var request: HTTPRequestHead?
    private var streamID: Int?
    private var deadline: Scheduled<Void>?
    private var access: (allowed: Bool, reduced: Bool)?

    init(hub: ConsoleHub, admitted: Bool, headLimit: RequestHeadLimit, logger: Logger) {
        self.hub = hub
        self.admitted = admitted
        self.headLimit = headLimit
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        guard admitted else {
            respond(context, status: .serviceUnavailable, type: "text/plain", body: "too many connections to the console; try again later\n",
                    keepAlive: false, head: false)
            return
        }
        armDeadline(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        if let streamID { hub.removeStream(streamID) }
        streamID = nil
        if admitted { hub.release() }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("console connection error: \(error)")
        if error is HTTPParserError {
            respond(context, status: .badRequest, type: "text/plain", body: "malformed HTTP request\n", keepAlive: false, head: false)
        } else {
            context.close(promise: nil)
        }
    }

    /// A slow client gets 408 after the configured time without a whole request head.
    private func armDeadline(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        let seconds = hub.configuration.requestTimeout
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
            let (handler, context) = loopBound.value
            guard handler.streamID == nil else { return }
            handler.respond(context, status: .requestTimeout, type: "text/plain", body: "request not received in time\n", keepAlive: false, head: false)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            headLimit.pending = 0
            deadline?.cancel()
            request = head
        case .body:
            break  // no route takes a body; it is read and dropped
        case .end:
            guard let head = request else { return }
            request = nil
            route(context, head)
        }
    }

    /// What the access policy says about this peer (looked up once per connection).
    private func peerAccess(_ context: ChannelHandlerContext) -> (allowed: Bool, reduced: Bool) {
        if let access { return access }
        let policy = hub.configuration.currentPolicy
        var status = policy.defaultStatus
        if !policy.users.isEmpty || !policy.groups.isEmpty, GPSDAddressRules.isLoopback(context.channel.remoteAddress),
           let identity = PeerIdentity.lookup(peer: context.channel.remoteAddress, local: context.channel.localAddress) {
            status = policy.status(user: identity.user ?? "", groups: identity.groups)
        }
        let result = (status.allowsLocations, policy.accuracy == .reducedAccuracy)
        access = result
        return result
    }

    private func route(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        let keepAlive = head.isKeepAlive
        guard head.method == .GET || head.method == .HEAD else {
            respond(context, status: .methodNotAllowed, type: "text/plain", body: "the console only answers GET and HEAD\n",
                    keepAlive: keepAlive, head: false, extra: [("allow", "GET, HEAD")])
            return
        }
        let onlyHead = head.method == .HEAD
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? head.uri
        let known = ["/", "/index.html", "/events", "/status.json", "/metrics"]
        guard known.contains(path) else {
            respond(context, status: .notFound, type: "text/plain", body: "not found (the console serves /, /events, /status.json and /metrics)\n",
                    keepAlive: keepAlive, head: onlyHead)
            return
        }
        let access = peerAccess(context)
        guard access.allowed else {
            respond(context, status: .forbidden, type: "text/plain", body: "the access policy does not allow this user locations\n",
                    keepAlive: keepAlive, head: onlyHead)
            return
        }
        switch path {
        case "/", "/index.html":
            respond(context, status: .ok, type: "text/html; charset=utf-8", body: ConsolePage.html, keepAlive: keepAlive, head: onlyHead,
                    extra: [("content-security-policy", ConsolePage.contentSecurityPolicy)])
        case "/status.json":
            respond(context, status: .ok, type: "application/json", body: hub.statusDocument(reduced: access.reduced), keepAlive: keepAlive, head: onlyHead)
        case "/metrics":
            var buffer = context.channel.allocator.buffer(capacity: 8192)
            buffer.writeBytes(hub.exposition())
            respond(context, status: .ok, type: "text/plain; version=0.0.4; charset=utf-8", buffer: buffer, keepAlive: keepAlive, head: onlyHead)
        default:
            startStream(context, head: onlyHead, reduced: access.reduced)
        }
    }

    /// The page's live stream: Server-Sent Events, one `data:` frame per update, until the page goes.
    private func startStream(_ context: ChannelHandlerContext, head onlyHead: Bool, reduced: Bool) {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "text/event-stream")
        headers.add(name: "cache-control", value: "no-store")
        headers.add(name: "x-content-type-options", value: "nosniff")
        if onlyHead {
            headers.add(name: "content-length", value: "0")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            armDeadline(context)
            return
        }
        headers.add(name: "connection", value: "keep-alive")
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        streamID = hub.addStream(context.channel, reduced: reduced)
    }

    private func respond(_ context: ChannelHandlerContext, status: HTTPResponseStatus, type: String, body: String,
                         keepAlive: Bool, head onlyHead: Bool, extra: [(String, String)] = []) {
        var buffer = context.channel.allocator.buffer(capacity: body.utf8.count)
        buffer.writeString(body)
        respond(context, status: status, type: type, buffer: buffer, keepAlive: keepAlive, head: onlyHead, extra: extra)
    }

    private func respond(_ context: ChannelHandlerContext, status: HTTPResponseStatus, type: String, buffer: ByteBuffer,
                         keepAlive: Bool, head onlyHead: Bool, extra: [(String, String)] = []) {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: type)
        headers.add(name: "content-length", value: String(buffer.readableBytes))
        headers.add(name: "cache-control", value: "no-store")
        headers.add(name: "x-content-type-options", value: "nosniff")
        for (name, value) in extra { headers.add(name: name, value: value) }
        if !keepAlive { headers.add(name: "connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !onlyHead { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if keepAlive {
            armDeadline(context)
        } else {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
            // A peer that never reads would hold the write (and so the connection) open: close anyway
            // once the request timeout has passed again.
            let seconds = max(hub.configuration.requestTimeout, 1)
            context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { channel.close(promise: nil) }
        }
    }
}
