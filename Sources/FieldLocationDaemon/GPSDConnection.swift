import FieldLocation
import FieldLocationWire
import GPSDProtocol
import LocationServices
import Logging
import NIOCore

/// One gpsd client: request framing, the commands, and its share of the published reports.
///
/// Framing (``LineDecoder``): a request ends at LF (CR LF works, CR is whitespace to the parser); bytes without a
/// terminator are handled as a request once the client pauses for
/// ``GPSDServerConfiguration/unterminatedRequestDelay`` (gpsd handles whatever one read delivered,
/// and the PyPI `gps3` library never sends a terminator), so a request split across two writes still
/// works when its halves arrive together or close together. A `?` line longer than the limit gets one
/// ERROR and is discarded up to its line end; other long junk is dropped quietly. Lines not starting
/// with `?` are ignored (relays send NMEA probe strings).
///
/// Output: every report line ends in CR LF. The channel's high write-buffer water mark is the output
/// limit: a client whose unread output exceeds it is closed (a slow reader is never buffered without bound).
final class GPSDConnectionHandler: ServerConnection {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let hub: GPSDHub
    private let configuration: GPSDServerConfiguration
    private let logger: Logger
    let gate: ConnectionGate
    private var id: Int?
    /// The line decoder, driven by hand so that a pause can hand over an unterminated request.
    private let lines: NIOSingleStepByteToMessageProcessor<LineDecoder>
    private var unterminatedTimer: Scheduled<Void>?
    private var policy = GPSDWatchPolicy()
    private var peer: (resolved: Bool, identity: PeerIdentity?) = (false, nil)

    init(hub: GPSDHub, configuration: GPSDServerConfiguration, logger: Logger) {
        self.hub = hub
        self.configuration = configuration
        self.logger = logger
        gate = ConnectionGate(name: "client", outputLimit: configuration.outputLimit, logger: logger) { [hub] in
            hub.count { $0.droppedSlowReaders += 1 }
        }
        // gpsd counts the CR: a line is too long when it has more than the limit + 1 bytes before its LF.
        lines = NIOSingleStepByteToMessageProcessor(LineDecoder(maximumLength: configuration.maxLineLength + 1, stripsCarriageReturn: false,
                                                                skipsEmptyLines: false, deliversUnterminatedLine: true))
    }

    // MARK: lifecycle

    func channelActive(context: ChannelHandlerContext) {
        gate.attach(context)
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        guard let id = hub.admit(loop: context.eventLoop, handler: bound) else {
            send(GPSDReport.error(message: "Too many clients (the limit is \(configuration.maxClients))"))
            flush()
            close(reason: "client limit reached")
            return
        }
        self.id = id
        send(GPSDReport.version(GPSDVersion(release: configuration.release)))
        flush()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    private func release() {
        unterminatedTimer?.cancel()
        unterminatedTimer = nil
        gate.detach()
        if let id {
            self.id = nil
            hub.remove(id)
        }
    }

    // MARK: output

    /// Published reports for this client (on its event loop).
    func deliver(_ buffer: ByteBuffer) { gate.writeAndFlush(buffer) }

    private func send(_ line: String) {
        guard let context = gate.open else { return }
        var buffer = context.channel.allocator.buffer(capacity: line.utf8.count + 2)
        buffer.writeString(line)
        buffer.writeString(GPSDReport.lineTerminator)
        context.write(wrapOutboundOut(buffer), promise: nil)
    }

    private func flush() { gate.flush() }

    // MARK: input

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        guard !gate.closing else { return }
        unterminatedTimer?.cancel()
        unterminatedTimer = nil
        do {
            try lines.process(buffer: buffer) { item in
                guard !gate.closing else { return }
                switch item {
                case .line(let line): handleLine(line, terminated: true)
                case .tooLong(let head): overlong(head)
                }
            }
        } catch {
            return close(reason: "cannot frame its input: \(error)")
        }
        flush()
        if lines.unprocessedBytes > 0 && !gate.closing {
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            unterminatedTimer = context.eventLoop.scheduleTask(in: configuration.unterminatedRequestDelay) {
                loopBound.value.handleUnterminated()
            }
        }
    }

    private func handleUnterminated() {
        unterminatedTimer = nil
        guard lines.unprocessedBytes > 0, !gate.closing else { return }
        do {
            try lines.finishProcessing(seenEOF: false) { item in
                guard !gate.closing, case .line(let line) = item else { return }
                handleLine(line, terminated: false)
            }
        } catch {
            return close(reason: "cannot frame its input: \(error)")
        }
        flush()
    }

    /// A line too long to keep: an ERROR when it is a request, silence for junk; the rest of it is
    /// dropped up to its LF and the connection stays open.
    private func overlong(_ head: ByteBuffer) {
        let isRequest = head.readableBytesView.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D } == UInt8(ascii: "?")
        if isRequest {
            hub.count { $0.linesTooLong += 1 }
            let error = GPSDRequestError.lineTooLong(length: head.readableBytes, limit: configuration.maxLineLength)
            send(GPSDReport.error(error))
        }
    }

    /// One request line; a terminated one is handed to the parser with its LF, as gpsd reads it.
    private func handleLine(_ line: ByteBuffer, terminated: Bool) {
        var bytes = Array(line.readableBytesView)
        if terminated { bytes.append(0x0A) }
        switch GPSDCommand.parse(bytes) {
        case .ignored:
            return
        case .requests(let results):
            for result in results {
                switch result {
                case .success(let command): execute(command)
                case .failure(let error): send(GPSDReport.error(error))
                }
            }
        }
    }

    // MARK: commands

    private func execute(_ command: GPSDCommand) {
        switch command {
        case .version:
            send(GPSDReport.version(GPSDVersion(release: configuration.release)))
        case .devices:
            send(GPSDReport.devices(hub.deviceReports()))
        case .device(nil):
            send(GPSDReport.device(hub.deviceReport()))
        case .device(let request?):
            configureDevice(request)
        case .poll:
            send(hub.pollReport(policy: policy, reduced: access().reduced))
        case .watch(nil):
            send(GPSDReport.devices(hub.deviceReports()))
            send(policy.report)
        case .watch(let request?):
            watch(request)
        }
    }

    private func watch(_ request: GPSDWatchRequest) {
        if let device = request.device, !device.isEmpty, !hub.knows(device: device) {
            send(GPSDReport.error(message: "No such device as \(device)"))
            return
        }
        let next = policy.applying(request)
        let verdict = access()
        if next.enable && !verdict.allowed {
            send(GPSDReport.error(message: "Location access denied by the access policy\(verdict.who.map { " for \($0)" } ?? "")"))
            return
        }
        policy = next
        guard let id else { return }
        hub.setPolicy(id, next, reduced: verdict.reduced)
        // The device list after the change: it shows the activation the watch caused, as gpsd's does.
        send(GPSDReport.devices(hub.deviceReports()))
        send(policy.report)
    }

    /// The access policy was reloaded: a watcher the new policy denies stops watching and is told
    /// with an `ERROR` and its `WATCH`; one still allowed takes the policy's accuracy.
    func policyChanged() {
        guard let id, policy.enable, !gate.closing else { return }
        let verdict = access()
        guard verdict.allowed else {
            policy.enable = false
            hub.setPolicy(id, policy, reduced: verdict.reduced)
            send(GPSDReport.error(message: "Location access withdrawn by the reloaded access policy\(verdict.who.map { " for \($0)" } ?? "")"))
            send(policy.report)
            flush()
            return
        }
        hub.setPolicy(id, policy, reduced: verdict.reduced)
    }

    private func configureDevice(_ request: GPSDDeviceRequest) {
        if let path = request.path, path != hub.device.path {
            send(GPSDReport.error(message: "Can't perform DEVICE configuration, device \(path) not found"))
            return
        }
        let identity = peerIdentity()
        let user = identity?.user ?? identity.map { "uid \($0.uid)" }
        let authorised = identity.map { configuration.currentPolicy.allowsControl(user: $0.user ?? "", groups: $0.groups) } ?? false
        guard authorised else {
            hub.count { $0.controlRefused += 1 }
            let who = user.map { " for \($0)" } ?? " (the peer's user is unknown)"
            send(GPSDReport.error(message: "Not authorised to configure the device\(who): control needs a user listed in the access policy's control line"))
            return
        }
        let changes = request.bps != nil || request.parity != nil || request.stopbits != nil || request.native != nil
            || request.cycle != nil || request.mincycle != nil || request.hexdata != nil
        guard !changes else {
            hub.count { $0.controlRefused += 1 }
            send(GPSDReport.error(message: "Can't configure \(hub.device.path): fieldlocd's engine drives the receiver; serial settings, cycle and hexdata are not accepted"))
            return
        }
        send(GPSDReport.device(hub.deviceReport()))
    }

    // MARK: authorisation

    /// The peer's local identity, looked up once (only when a decision needs it).
    private func peerIdentity() -> PeerIdentity? {
        if peer.resolved { return peer.identity }
        var identity: PeerIdentity?
        if let channel = gate.channel, GPSDAddressRules.isLoopback(channel.remoteAddress) {
            identity = PeerIdentity.lookup(peer: channel.remoteAddress, local: channel.localAddress)
        }
        peer = (true, identity)
        return identity
    }

    /// What the access policy says about this client: may it watch, and at which accuracy.
    private func access() -> (allowed: Bool, reduced: Bool, who: String?) {
        let policy = configuration.currentPolicy
        let reduced = policy.accuracy == .reducedAccuracy
        // Only per-user and per-group lines need to know who the peer is.
        guard !policy.users.isEmpty || !policy.groups.isEmpty else {
            return (policy.defaultStatus.allowsLocations, reduced, nil)
        }
        let identity = peerIdentity()
        let status = identity.map { policy.status(user: $0.user ?? "", groups: $0.groups) } ?? policy.defaultStatus
        return (status.allowsLocations, reduced, identity.map { $0.user ?? "uid \($0.uid)" })
    }
}
