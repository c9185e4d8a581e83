#if canImport(Glibc)
import Glibc
#endif
import BoardConfig
import EnginePlatforms
import FieldLocation
import HardwareInterfaces
import HILChecks
import LocationServices

/// One run of `gnss-two-receivers`: the phases, and what was seen of the engine between them
/// (polled every 5 ms on the engine's clock).
struct Run {
    let engine: LocationEngine
    let delivered: DeliveredLocations
    let usb: USBSerialMatch
    let uart: String
    var clock: any MonotonicClock { engine.clock }

    /// What one poll saw.
    struct Seen {
        var node: String?
        var usbOpen: Bool
        var usbDevice: String?
        var chosen: [Bool]
    }

    /// The engine's receivers, and (with `node`, a sysfs scan of some 50 ms in the guest) the USB node.
    func look(node: Bool = true) -> Seen {
        let sources = engine.receiverSources
        return Seen(node: node ? USBSerialDevices.node(matching: usb) : nil, usbOpen: sources.count > 1 && sources[1].open,
                    usbDevice: sources.count > 1 ? sources[1].device : nil, chosen: sources.map(\.chosen))
    }

    /// Polls every 5 ms until `condition` holds (returns when it first held) or `seconds` pass (nil).
    func wait(_ seconds: Int64, _ condition: (Seen, [Location]) -> Bool) -> MonotonicInstant? {
        let end = clock.now().advanced(by: .seconds(seconds))
        while clock.now() < end {
            let now = clock.now()
            if condition(look(), delivered.locations) { return now }
            clock.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// The fixes in `slice` not from `chosen`, once `chosen`'s fixes came: each must come when the
    /// rule no longer counts `chosen` as live, no fix of it delivered in the 1.5 epochs before (a
    /// guest stalled by its loaded host); anything else throws. Returns how many there were.
    func others(in slice: ArraySlice<Location>, chosen: String, epoch: Duration) throws(HILFailure) -> Int {
        let all = delivered.locations
        var count = 0
        for fix in slice where fix.source != chosen {
            let previous = all.last { $0.source == chosen && $0.receivedAt < fix.receivedAt }
            let lapse = previous.map { fix.receivedAt - $0.receivedAt } ?? .seconds(3600)
            try require(lapse.secondsDouble > epoch.secondsDouble * 1.5,
                        "a fix from \(fix.source ?? "nil") was delivered while \(chosen) was chosen and live (its last fix \(ReceiverSourcesCheck.ms(lapse)) before): \(describe(slice))")
            count += 1
        }
        return count
    }

    /// `.50`: the hundredths of a receiver time's second.
    func hundredths(_ time: Double?) -> String {
        let h = Int(((time ?? 0) * 100).rounded()) % 100
        return h < 10 ? ".0\(h)" : ".\(h)"
    }

    /// `+12 ms` or `-84 ms`.
    func signed(_ d: Duration) -> String { (d < .zero ? "-" : "+") + ReceiverSourcesCheck.ms(d < .zero ? .zero - d : d) }

    func describe(_ locations: ArraySlice<Location>) -> String {
        locations.suffix(12).map { "\($0.source ?? "nil") \($0.fixType)" }.joined(separator: ", ")
    }

    func scenario(uartTTY: String, expectedNode: String) throws(HILFailure) -> HILOutcome {
        let epoch = Duration.milliseconds(1000 / Int64(ReceiverSourcesCheck.rate))
        let slice = Duration.milliseconds(20)
        let started = clock.now()

        // 1. Only ttyS1: three of its fixes delivered, the USB receiver absent and closed.
        guard wait(20, { seen, l in l.filter { $0.source == uart }.count >= 3 }) != nil else {
            throw HILFailure("no 3 fixes from \(uart) within 20 s of the start: \(describe(delivered.locations[...])); sources \(engine.receiverSources)")
        }
        let firstPhase = delivered.locations
        try require(firstPhase.allSatisfy { $0.source == uart }, "before the USB receiver was plugged in: \(describe(firstPhase[...]))")
        try require(look().node == nil && !look().usbOpen, "the USB receiver was there before it was plugged in: \(engine.receiverSources)")
        let uartStart = firstPhase.count

        // 2. Plugged in late: found by identity, opened, chosen for its RTK fixed fix.
        let plugAt = clock.now()
        try ReceiverSourcesCheck.sideChannel(uartTTY, "USB,PLUG")
        guard let nodeAt = wait(15, { seen, _ in seen.node != nil }), let node = look().node else {
            throw HILFailure("no tty with USB identity \(usb) within 15 s of $PFLSIM,USB,PLUG")
        }
        let identityText = ReceiverSourcesCheck.sysfsIdentity(of: node)
        guard let openAt = wait(10, { seen, _ in seen.usbOpen }) else {
            throw HILFailure("the engine did not open \(node) within 10 s of its arrival: \(engine.receiverSources)")
        }
        guard wait(10, { _, l in l.dropFirst(uartStart).filter { $0.source == node }.count >= 4 }) != nil else {
            throw HILFailure("fewer than 4 fixes from \(node) within 10 s of its opening: \(describe(delivered.locations.dropFirst(uartStart))); \(engine.receiverSources)")
        }
        let arrival = Array(delivered.locations.dropFirst(uartStart))
        guard let firstUSB = arrival.firstIndex(where: { $0.source == node }) else { throw HILFailure("no fix from \(node)") }
        let firstUSBAt = arrival[firstUSB].receivedAt
        try require(arrival[firstUSB...].allSatisfy { $0.source != node || $0.fixType == .rtkFixed },
                    "fixes from \(node) that are not RTK fixed: \(describe(arrival[firstUSB...]))")
        var lapses = try others(in: arrival[firstUSB...], chosen: node, epoch: epoch)
        let status = engine.receiverSources
        try require(status.map(\.chosen) == [false, true] && status.map(\.device) == [uart, node],
                    "after the arrival: \(status)")
        try require(openAt - nodeAt <= .milliseconds(2500),
                    "the engine opened \(node) \(ReceiverSourcesCheck.ms(openAt - nodeAt)) after it appeared (its retries come every 2 s at most)")
        func metres(_ value: Double?) -> String { value.map { "\(($0 * 1000).rounded() / 1000) m" } ?? "? m" }
        let accuracies = "\(metres(status[0].lastAccuracy)) vs \(metres(status[1].lastAccuracy))"

        // 3. Unplugged (the USB simulator's device_del 1 s after $PFLSIM,UNPLUG, device_add 3 s later):
        // ttyS1's next fix is delivered within its epoch plus the read slice.
        let beforeUnplug = delivered.locations.count
        try ReceiverSourcesCheck.sideChannel(uartTTY, "USB,UNPLUG,3")
        // ttyS1's first fix after the USB receiver's last one: the failover.
        func failover(_ l: [Location]) -> Location? {
            let out = l.dropFirst(beforeUnplug)
            let after = out.lastIndex { $0.source == node }.map { out.index(after: $0) } ?? out.startIndex
            return out[after...].first { $0.source == uart }
        }
        // Cheap looks every 5 ms (one access(2), the engine's published state, the delivered
        // fixes): the node's sysfs folder going, the engine closing the port after its read failed,
        // the failover fix. A look that comes more than 25 ms after the one before means the guest
        // did not run (its host is loaded): that time, after the unplug, is not the engine's.
        let name = node.split(separator: "/").last.map(String.init) ?? node
        var nodeGoneAt: MonotonicInstant?, closedAt: MonotonicInstant?, failoverFix: Location?
        var stalled = Duration.zero
        var previous = clock.now()
        let unplugEnd = previous.advanced(by: .seconds(10))
        while nodeGoneAt == nil || closedAt == nil || failoverFix == nil, clock.now() < unplugEnd {
            let now = clock.now()
            if nodeGoneAt != nil || closedAt != nil, now - previous > .milliseconds(25) { stalled += now - previous - .milliseconds(5) }
            previous = now
            if nodeGoneAt == nil, access("/sys/class/tty/\(name)", F_OK) != 0 { nodeGoneAt = now }
            if closedAt == nil, !look(node: false).usbOpen { closedAt = now }
            if nodeGoneAt != nil || closedAt != nil, failoverFix == nil { failoverFix = failover(delivered.locations) }
            clock.sleep(for: .milliseconds(5))
        }
        guard let nodeGoneAt, let closedAt, let failoverFix else {
            throw HILFailure("within 10 s of $PFLSIM,USB,UNPLUG: node \(nodeGoneAt == nil ? "still there" : "gone"), engine's port \(closedAt == nil ? "still open" : "closed"), \(failoverFix == nil ? "no" : "a") fix from \(uart) after the USB one's last: \(engine.receiverSources); \(describe(delivered.locations.dropFirst(beforeUnplug)))")
        }
        // The first sign of the unplug.
        let goneAt = min(nodeGoneAt, closedAt)
        let out = Array(delivered.locations.dropFirst(beforeUnplug))
        let failoverDelay = failoverFix.receivedAt - goneAt
        let bound = epoch + slice
        try require(failoverDelay <= bound + ReceiverSourcesCheck.schedulingSlack + stalled,
                    "\(uart)'s first fix came \(ReceiverSourcesCheck.ms(failoverDelay)) after \(node) went (the guest stalled \(ReceiverSourcesCheck.ms(stalled)) of it); the rule's bound is \(ReceiverSourcesCheck.ms(bound)) (+\(ReceiverSourcesCheck.ms(ReceiverSourcesCheck.schedulingSlack)) slack): \(describe(out[...]))")
        try require(!out.contains { $0.source == node && $0.receivedAt > closedAt },
                    "a fix from \(node) after the engine closed it: \(describe(out[...]))")
        let lastUSB = delivered.locations.last { $0.source == node && $0.receivedAt <= goneAt }?.receivedAt ?? firstUSBAt
        // The fixes from a second before the unplug to the failover: source, the receiver's time
        // (hundredths of its second), arrival from the first sign of the unplug.
        let around = delivered.locations.filter { $0.receivedAt >= goneAt.advanced(by: .seconds(-1)) && $0.receivedAt <= failoverFix.receivedAt }
            .map { "\($0.source == uart ? "ttyS1" : "USB") \(hundredths($0.timestamp)) at \(signed($0.receivedAt - goneAt))" }

        // 4. Plugged back: found again by identity (perhaps under another name) and chosen again.
        guard let backAt = wait(20, { seen, _ in seen.node != nil }), let again = look().node else {
            throw HILFailure("the USB receiver did not come back within 20 s of the unplug")
        }
        let whileOut = delivered.locations.count
        guard let reopenedAt = wait(10, { seen, _ in seen.usbOpen && seen.usbDevice == again }) else {
            throw HILFailure("the engine did not open \(again) within 10 s of its return: \(engine.receiverSources)")
        }
        guard wait(10, { _, l in l.dropFirst(whileOut).filter { $0.source == again }.count >= 3 }) != nil else {
            throw HILFailure("fewer than 3 fixes from \(again) within 10 s of its reopening: \(describe(delivered.locations.dropFirst(whileOut))); \(engine.receiverSources)")
        }
        let back = Array(delivered.locations.dropFirst(whileOut))
        let firstAgain = back.firstIndex { $0.source == again } ?? 0
        lapses += try others(in: back[firstAgain...], chosen: again, epoch: epoch)
        let uartWhileOut = delivered.locations[beforeUnplug..<whileOut].filter { $0.source == uart }.count
        try require(engine.receiverSources.map(\.chosen) == [false, true], "after the replug: \(engine.receiverSources)")
        try require(reopenedAt - backAt <= .milliseconds(2500),
                    "the engine opened \(again) \(ReceiverSourcesCheck.ms(reopenedAt - backAt)) after it came back")

        // 5. Every delivered fix names its device.
        let all = delivered.locations
        let sources = Set(all.map { $0.source ?? "nil" })
        try require(sources.isSubset(of: [uart, node, again]), "fixes named \(sources.sorted())")
        let ms = ReceiverSourcesCheck.ms
        let total = clock.now() - started
        return .passed(detail: "\(all.count) fixes in \(ms(total)), each named (\(all.filter { $0.source == uart }.count) \(uart), \(all.filter { $0.source != uart }.count) USB); "
            + "\(node) is \(identityText): node \(ms(nodeAt - plugAt)) after the plug request, opened \(ms(openAt - nodeAt)) after the node, "
            + "first RTK fixed fix delivered \(ms(firstUSBAt - openAt)) after the opening (accuracy \(accuracies)); "
            + "unplugged: node gone \(signed(nodeGoneAt - goneAt)), engine's port closed \(signed(closedAt - goneAt)) (from the first of the two); "
            + "failover: ttyS1's fix \(ms(failoverDelay)) after it (bound \(ms(bound)): one \(ms(epoch)) epoch + \(ms(slice)) read slice\(stalled > .zero ? "; the guest stalled \(ms(stalled)) of it" : "")), the USB one's last \(ms(goneAt - lastUSB)) before; "
            + "fixes around it: \(around.joined(separator: ", ")); "
            + "\(uartWhileOut) fixes from \(uart) while out; back as \(again) (expected \(expectedNode)) \(ms(backAt - goneAt)) after it went, opened \(ms(reopenedAt - backAt)) later, chosen again"
            + (lapses > 0 ? "; \(lapses) ttyS1 fix(es) delivered while the USB one's were more than 1.5 epochs apart (the guest stalled)" : ""))
    }
}

/// Throws `message` unless `condition` holds (HILChecks' own is internal to it).
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(HILFailure) {
    if !condition { throw HILFailure(message()) }
}
