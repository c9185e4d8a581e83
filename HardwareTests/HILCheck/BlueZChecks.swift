#if canImport(Glibc)
import Glibc
#endif
import BluetoothHCI
import HardwareInterfaces
import LinuxHardware

/// `fieldloc-hil --bluez /dev/vhci`: BlueZScanner through Debian's own `bluetoothd` on the system
/// bus. A ``VirtualHCIController`` on `/dev/vhci` is the radio; the kernel registers it, bluetoothd
/// takes it through the kernel's management interface, and the scanner asks bluetoothd for LE
/// discovery over D-Bus. `HIL_BLUEZ_CONTROL` names the guest's script that stops and starts
/// bluetoothd (`stop`, `kill`, `start`); `HIL_BLUETOOTHD_VERSION` is what `bluetoothd --version`
/// printed; `HIL_BLUEZ_SOAK`, when set, is how many seconds `bluetooth-bluez-soak` ranges to
/// measure the longest silence of each advert through bluetoothd.
enum BlueZChecks {
    /// One advertiser: its advert in legacy or extended reports, and the RSSI it is heard at.
    struct Advert {
        var name: String
        var address: BluetoothAddress
        var data: [UInt8]
        var rssi: Int
        var extended = false
    }

    static let eidAddress = BluetoothAddress(rawValue: 0x1122_3344_5506)
    /// An Eddystone-EID frame: frame type 0x30, TX power -16 dBm at 0 m, an 8-byte ephemeral identifier.
    static let eidData: [UInt8] = BluetoothChecks.flags + BluetoothChecks.eddystoneList
        + [0x0D, 0x16, 0xAA, 0xFE, 0x30, 0xF0, 0x1B, 0x2C, 0x3D, 0x4E, 0x5F, 0x60, 0x71, 0x82]

    /// The adverts of `generation` 0, and of later generations, in which every advert's last data
    /// byte (iBeacon measured power, AltBeacon reserved byte, UID reserved byte, URL suffix, TLM
    /// uptime, EID identifier) and its RSSI (2 dB weaker each generation) differ: a report of an
    /// earlier generation after the change is a stale one.
    static func adverts(generation: Int) -> [Advert] {
        var list = BluetoothChecks.beacons.map { beacon in
            Advert(name: beacon.name, address: beacon.advertisement.address, data: beacon.advertisement.data,
                   rssi: Int(beacon.advertisement.rssi ?? 127))
        }
        list.append(Advert(name: "Eddystone-TLM", address: BluetoothChecks.tlmAddress, data: BluetoothChecks.tlmData, rssi: -50, extended: true))
        list.append(Advert(name: "Eddystone-EID", address: eidAddress, data: eidData, rssi: -68))
        guard generation > 0 else { return list }
        return list.map { advert in
            var changed = advert
            changed.data[changed.data.count - 1] ^= UInt8(truncatingIfNeeded: generation)
            changed.rssi -= 2 * generation
            return changed
        }
    }

    /// The events of one round: one report per advert.
    static func round(_ adverts: [Advert]) -> [[UInt8]] {
        adverts.map { advert in
            if advert.extended {
                return HCIEventEncoder.leExtendedAdvertisingReport(address: advert.address, data: advert.data, rssi: Int8(advert.rssi), txPower: 4) ?? []
            }
            return HCIEventEncoder.leAdvertisingReport([HCIAdvertisement(address: advert.address, data: advert.data, rssi: Int8(advert.rssi))]) ?? []
        }
    }

    /// The AD structures (length byte included) of `data`, up to the first malformed one.
    static func structures(_ data: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var index = 0
        while index < data.count {
            let length = Int(data[index])
            guard length > 0, index + 1 + length <= data.count else { break }
            out.append(Array(data[index...(index + length)]))
            index += 1 + length
        }
        return out
    }

    /// The structures BlueZ hands over as properties: manufacturer data (0xFF) and 16-bit service data (0x16).
    static func payload(_ data: [UInt8]) -> [[UInt8]] {
        structures(data).filter { $0.count > 1 && ($0[1] == 0xFF || $0[1] == 0x16) }
    }

    struct Report {
        var address: BluetoothAddress
        var rssi: Int?
        var data: [UInt8]
        var at: MonotonicInstant
    }

    /// Runs the checks, printing `ok - ` / `not ok - ` lines; returns whether all passed.
    static func run(vhci path: String, environment: (String) -> String?, say: (String) -> Void) -> Bool {
        var failures = 0
        func check(_ name: String, _ body: () throws -> String) {
            do {
                say("ok - \(name): \(try body())")
            } catch {
                failures += 1
                say("not ok - \(name): \(error)")
            }
        }
        let version = environment("HIL_BLUETOOTHD_VERSION") ?? "?"
        let control = environment("HIL_BLUEZ_CONTROL")
        let backend = "via bluez (bluetoothd \(version))"
        let clock = SystemMonotonicClock()
        let first = adverts(generation: 0)
        let second = adverts(generation: 1)
        var controller: VirtualHCIController
        do {
            controller = try VirtualHCIController(path: path, round: round(first))
            try controller.start()
        } catch {
            say("not ok - bluetooth-bluez-vhci: \(error)")
            return false
        }
        var controllerOpen = true
        let adapter = "hci\(controller.index)"
        var scanner: BlueZScanner?

        /// Polls until `done` holds or `deadline`; every report goes to `reports`.
        func collect(_ scanner: BlueZScanner, into reports: inout [Report], until deadline: MonotonicInstant,
                     _ done: ([Report]) -> Bool) throws {
            while clock.now() < deadline, !done(reports) {
                _ = try scanner.poll(deadline: deadline) { report in
                    reports.append(Report(address: report.address, rssi: report.rssi, data: Array(report.data), at: report.timestamp))
                }
            }
        }
        func matches(_ report: Report, _ advert: Advert) -> Bool {
            report.address == advert.address && report.rssi == advert.rssi && payload(report.data) == payload(advert.data)
        }
        func seenAll(_ adverts: [Advert], times: Int, after start: Int = 0) -> ([Report]) -> Bool {
            { reports in adverts.allSatisfy { advert in reports[start...].filter { matches($0, advert) }.count >= times } }
        }

        check("bluetooth-bluez-adapter") {
            let start = clock.now()
            var last: Error?
            while clock.now() < start.advanced(by: .seconds(20)) {
                do {
                    scanner = try BlueZScanner(adapter: adapter, clock: clock)
                    break
                } catch {
                    last = error
                    clock.sleep(for: .milliseconds(100))
                }
            }
            guard scanner != nil else { throw HILError("bluetoothd did not hand over \(adapter) within 20 s: \(last.map { "\($0)" } ?? "")") }
            return "bluetoothd \(version) has /org/bluez/\(adapter), powered, \(seconds(clock.now() - start)) after the controller appeared"
        }
        guard let scanner else {
            controller.stop(closeDevice: true)
            return false
        }
        defer { scanner.close() }

        check("bluetooth-bluez-scan") {
            let start = clock.now()
            try scanner.startScanning(BluetoothScanParameters())
            var reports: [Report] = []
            try collect(scanner, into: &reports, until: start.advanced(by: .seconds(20)), seenAll(first, times: 3))
            var lines: [String] = []
            for advert in first {
                let mine = reports.filter { $0.address == advert.address }
                if let bad = mine.first(where: { !matches($0, advert) }) {
                    throw HILError("\(advert.name): rssi \(bad.rssi.map(String.init) ?? "nil") data \(payload(bad.data)), injected rssi \(advert.rssi) data \(payload(advert.data))")
                }
                guard mine.count >= 3 else { throw HILError("\(advert.name) (\(advert.address)): \(mine.count) reports in 20 s, expected 3 or more") }
                lines.append("\(advert.name)\(advert.extended ? " (extended)" : "") \(mine.count)x rssi \(advert.rssi)")
            }
            let enables = controller.record.withLock { $0.scanEnables }
            guard enables.contains(where: { $0.first == 1 }) else { throw HILError("no LE Set Scan Enable reached the controller (\(enables))") }
            return "\(backend): \(adapter) SetDiscoveryFilter + StartDiscovery, " + lines.joined(separator: ", ")
                + "; manufacturer and service data byte for byte, first report after \(seconds((reports.first?.at ?? start) - start))"
        }

        if let text = environment("HIL_BLUEZ_SOAK"), let soak = Int(text), soak > 0 {
            check("bluetooth-bluez-soak") {
                let start = clock.now()
                var reports: [Report] = []
                try collect(scanner, into: &reports, until: start.advanced(by: .seconds(Int64(soak)))) { _ in false }
                var lines: [String] = []
                var longest: Duration = .zero
                for advert in first {
                    let times = [start] + reports.filter { matches($0, advert) }.map(\.at) + [clock.now()]
                    guard times.count > 2 else { throw HILError("\(advert.name) not heard in \(soak) s") }
                    let gap = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .zero
                    longest = max(longest, gap)
                    lines.append("\(advert.name) \(times.count - 2)x, longest gap \(seconds(gap))")
                }
                return "\(backend): \(soak) s of ranging: " + lines.joined(separator: ", ") + "; longest gap \(seconds(longest))"
            }
        }

        /// Stops bluetoothd with `stop` (a `bluez.sh` command) mid-ranging, changes the adverts to
        /// `next`, starts it again: the scanner must hear every new advert within 10 s of the
        /// stop, and no old one once it has seen the outage.
        func restart(_ stop: String, _ how: String, from old: [Advert], to next: [Advert]) throws -> String {
            guard let control else { throw HILError("HIL_BLUEZ_CONTROL is not set: no way to restart bluetoothd") }
            let before = scanner.availability
            var reports: [Report] = []
            try collect(scanner, into: &reports, until: clock.now().advanced(by: .seconds(1))) { _ in false }
            guard reports.contains(where: { r in old.contains { matches(r, $0) } }) else { throw HILError("no report in the second before the restart") }
            let killed = clock.now()
            try shell(control + " " + stop, deadline: killed.advanced(by: .seconds(8)))
            let stopped = clock.now()
            controller.replaceRound(round(next))
            try shell(control + " start", deadline: clock.now().advanced(by: .seconds(8)))
            var stale: [Report] = []
            reports = []
            let limit = killed.advanced(by: .seconds(10))
            while clock.now() < limit, !seenAll(next, times: 1)(reports) {
                let afterOutage = scanner.availability.outages > before.outages
                var batch: [Report] = []
                try collect(scanner, into: &batch, until: min(clock.now().advanced(by: .milliseconds(200)), limit)) { !$0.isEmpty }
                if afterOutage { stale += batch.filter { r in old.contains { matches(r, $0) } } }
                reports += batch
            }
            let availability = scanner.availability
            guard stale.isEmpty else { throw HILError("\(stale.count) stale report(s) after the outage, first from \(stale[0].address)") }
            guard availability.outages == before.outages + 1, availability.recoveries == before.recoveries + 1 else {
                throw HILError("outages \(availability.outages), recoveries \(availability.recoveries) (\(availability.lastRecoveryFailure ?? "no failure recorded")) 10 s after the restart")
            }
            for advert in next where !reports.contains(where: { matches($0, advert) }) {
                throw HILError("\(advert.name) not heard again within 10 s of the restart (\(reports.count) reports)")
            }
            let firstBack = reports.filter { r in next.contains { matches(r, $0) } }.map(\.at).min() ?? clock.now()
            let allBack = next.compactMap { advert in reports.filter { matches($0, advert) }.map(\.at).min() }.max() ?? clock.now()
            let refused = availability.refusedStarts - before.refusedStarts
            let cycled = availability.powerCycles - before.powerCycles
            return "\(backend): bluetoothd \(how) (gone \(seconds(stopped - killed)) after) and started again mid-ranging; "
                + "the scanner saw '\(availability.lastOutageReason ?? "?")', restarted discovery \(availability.lastRecoveryTime.map(seconds) ?? "?") after it"
                + (refused > 0 ? " (StartDiscovery refused \(refused)x as in progress, adapter power-cycled \(cycled)x)" : "") + "; "
                + "recovery: first new report \(seconds(firstBack - killed)), all \(next.count) adverts \(seconds(allBack - killed)) after the kill; no stale report, no error"
        }

        check("bluetooth-bluez-restart") { try restart("stop", "stopped with SIGTERM", from: first, to: second) }
        let third = adverts(generation: 2)
        check("bluetooth-bluez-crash") { try restart("kill", "killed with SIGKILL", from: second, to: third) }

        check("bluetooth-bluez-adapter-removed") {
            let removed = clock.now()
            controller.stop(closeDevice: true)  // closing /dev/vhci unregisters hciN; bluetoothd removes /org/bluez/hciN
            controllerOpen = false
            let closed = clock.now()
            var reports: [Report] = []
            // The kernel unregisters hciN and bluetoothd removes it, 0.2-0.5 s in most runs.
            while clock.now() < removed.advanced(by: .seconds(10)), scanner.availability.adapterAvailable {
                try collect(scanner, into: &reports, until: clock.now().advanced(by: .milliseconds(200))) { !$0.isEmpty }
            }
            let availability = scanner.availability
            if availability.adapterAvailable || availability.lastOutageReason?.contains("BlueZ removed the adapter") != true {
                // Ask BlueZ itself, on a connection of its own: if it no longer has the adapter, the
                // scanner missed the removal; if it still has it, there was nothing to see yet.
                let listed: String
                do {
                    let probe = try BlueZScanner(adapter: adapter, clock: clock)
                    probe.close()
                    listed = "still lists /org/bluez/\(adapter), powered"
                } catch let error as HardwareError where error.kind == .notFound {
                    throw HILError("BlueZ removed \(adapter) but the scanner did not notice within 10 s (closing /dev/vhci took \(seconds(closed - removed)); \(availability))")
                } catch let error as HardwareError {
                    listed = "still lists /org/bluez/\(adapter) (\(error.detail))"
                }
                return "# SKIP bluetoothd \(listed) 10 s after /dev/vhci closed (in \(seconds(closed - removed))): the removal was not "
                    + "announced, so the scanner cannot be judged (seen on a loaded machine when the kernel had just ended a discovery)"
            }
            let gone = clock.now()
            var late: [Report] = []
            try collect(scanner, into: &late, until: gone.advanced(by: .milliseconds(500))) { _ in false }
            guard late.isEmpty else { throw HILError("\(late.count) report(s) while the adapter was gone") }
            let fourth = adverts(generation: 3)
            let replug = clock.now()
            controller = try VirtualHCIController(path: path, round: round(fourth))
            controllerOpen = true
            try controller.start()
            guard "hci\(controller.index)" == adapter else {
                return "poll reported nothing and threw nothing after the removal; the new controller is hci\(controller.index), not \(adapter): not followed"
            }
            var back: [Report] = []
            try collect(scanner, into: &back, until: replug.advanced(by: .seconds(15)), seenAll(fourth, times: 1))
            guard seenAll(fourth, times: 1)(back) else {
                throw HILError("\(back.count) reports within 15 s of the adapter's return (\(scanner.availability))")
            }
            let stale = back.filter { r in !fourth.contains { matches(r, $0) } }
            guard stale.isEmpty else { throw HILError("\(stale.count) report(s) not from the new controller's adverts, first \(stale[0].address) rssi \(stale[0].rssi ?? 127)") }
            return "\(backend): /org/bluez/\(adapter) removed: seen \(seconds(gone - removed)) after, no report while gone; "
                + "a new controller \(adapter) scanned again \(seconds((back.map(\.at).min() ?? replug) - replug)) after it appeared"
        }
        if controllerOpen { controller.stop(closeDevice: true) }
        return failures == 0
    }

    static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        let value = Double(whole) + Double(fraction) / 1e18
        return "\((value * 100).rounded() / 100) s"
    }

    /// Runs `/bin/sh -c command`, waits for it until `deadline` (then kills it), and throws unless it exits 0.
    static func shell(_ command: String, deadline: MonotonicInstant) throws {
        let clock = SystemMonotonicClock()
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ)
        guard spawned == 0 else { throw HILError("posix_spawn /bin/sh -c \(command): \(spawned)") }
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 { throw HILError("waitpid for '\(command)': errno \(errno)") }
            if clock.now() >= deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw HILError("'\(command)' did not finish by its deadline")
            }
            clock.sleep(for: .milliseconds(20))
        }
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else { throw HILError("'\(command)' failed (wait status \(status))") }
    }
}
