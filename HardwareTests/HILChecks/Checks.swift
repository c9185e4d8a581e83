import HardwareInterfaces
import LocationServices
import NMEA
import SensorDrivers

/// The hardware-in-the-loop checks, in the order they run.
///
/// Each check opens its own devices through the context's platform and releases them before it
/// returns, so a failure in one does not leave a line or port held for the next.
public enum HILChecks {
    /// Every check: I2C, GPIO, UART and their error paths, then every other sensor driver on i2c-stub.
    public static let all: [HILCheck] = [
        i2cIdentity, i2cConfiguration, magnetometerData, accelerometerData,
        i2cMissingAddress, i2cMissingBus,
        gpioEnableOutput, gpioLineBusy, gpioMissingLine, gpioEdgeDeadline, gpioPPSTimestamps, gpioPPSStuck,
        gnssNMEAAndCommand, gnssLineNoise, gnssSilence, gnssUSBUnplug, serialBusy,
        driverLIS3MDL, driverLSM6DSOX, driverLSM6DSOXGyroscope, driverQMC5883L, driverICM20948, driverAK09916,
        driverICM20948Gyroscope, driverMMC5983MA,
    ]

    /// The check called `name`, if any.
    public static func named(_ name: String) -> HILCheck? { all.first { $0.name == name } }

    // MARK: I2C

    /// WHO_AM_I of both LSM303AGR dies through the Linux bus and through the drivers.
    public static let i2cIdentity = HILCheck(
        name: "i2c-identity",
        proves: "LinuxI2CBus reads the LSM303AGR identity registers (0x19:0x0f = 0x33, 0x1e:0x4f = 0x40) and the SensorDrivers identify both dies"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let bus = try openBus(context)
        let accel = try hardware("read WHO_AM_I_A") { try bus.readRegister(0x0F, at: c.accelerometerAddress) }
        try require(accel == 0x33, "\(bus.deviceName(c.accelerometerAddress)) register 0x0f reads \(hex(accel)), expected 0x33")
        let mag = try hardware("read WHO_AM_I_M") { try bus.readRegister(0x4F, at: c.magnetometerAddress) }
        try require(mag == 0x40, "\(bus.deviceName(c.magnetometerAddress)) register 0x4f reads \(hex(mag)), expected 0x40")
        _ = try sensor { () throws(SensorError) in try LSM303AGRAccelerometer(bus: bus, address: c.accelerometerAddress) }
        _ = try sensor { () throws(SensorError) in
            try LSM303AGRMagnetometer(bus: bus, address: c.magnetometerAddress, clock: context.clock)
        }
        return .passed(detail: "\(bus.name): 0x33 at \(c.accelerometerAddress), 0x40 at \(c.magnetometerAddress)")
    }

    /// Configuration written by the drivers lands in the device's registers.
    public static let i2cConfiguration = HILCheck(
        name: "i2c-configuration-writes",
        proves: "register writes made by the LSM303AGR drivers through LinuxI2CBus land in the device (read back through the bus; the guest also reads them with i2cget)"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let bus = try openBus(context)
        var accel = try sensor { () throws(SensorError) in try LSM303AGRAccelerometer(bus: bus, address: c.accelerometerAddress) }
        try sensor { () throws(SensorError) in try accel.configure(.init(dataRate: .hz100, range: .g2, resolution: .highResolution)) }
        var mag = try sensor { () throws(SensorError) in
            try LSM303AGRMagnetometer(bus: bus, address: c.magnetometerAddress, clock: context.clock)
        }
        try sensor { () throws(SensorError) in try mag.configure(.init(mode: .continuous, dataRate: .hz10)) }
        for expected in StubFixture.configuration {
            let address = expected.address == StubFixture.accelerometer ? c.accelerometerAddress : c.magnetometerAddress
            let found = try hardware("read back register \(hex(expected.register))") {
                try bus.readRegister(expected.register, at: address)
            }
            try require(found == expected.value,
                        "\(bus.deviceName(address)) register \(hex(expected.register)) reads \(hex(found)) after configure, expected \(hex(expected.value))")
        }
        return .passed(detail: "\(StubFixture.configuration.count) registers read back")
    }

    /// Magnetometer data registers decode to microtesla.
    public static let magnetometerData = HILCheck(
        name: "magnetometer-data",
        proves: "LSM303AGR magnetometer data registers 0x68..0x6d read through LinuxI2CBus decode to the right field (0.15 µT per count); on a board, a field of Earth's size"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let bus = try openBus(context)
        var mag = try sensor { () throws(SensorError) in
            try LSM303AGRMagnetometer(bus: bus, address: c.magnetometerAddress, clock: context.clock)
        }
        try sensor { () throws(SensorError) in try mag.configure(.init(mode: .continuous, dataRate: .hz10)) }
        if !c.stubFixture { context.clock.sleep(for: .milliseconds(250)) }  // first sample at 10 Hz
        let sample = try sensor { () throws(SensorError) in try mag.read() }
        let f = sample.field
        if c.stubFixture {
            let e = StubFixture.magneticField
            try require(close(f.x, e.x) && close(f.y, e.y) && close(f.z, e.z),
                        "read \(f) µT, expected (\(e.x), \(e.y), \(e.z)) µT from the preloaded counts")
        } else {
            let magnitude = (f.x * f.x + f.y * f.y + f.z * f.z).squareRoot()
            try require((15...100).contains(magnitude), "field \(f) µT has magnitude \(magnitude) µT, outside Earth's 15...100 µT")
        }
        return .passed(detail: "\(f) µT")
    }

    /// Accelerometer data and temperature registers decode to m/s² and °C.
    public static let accelerometerData = HILCheck(
        name: "accelerometer-data",
        proves: "LSM303AGR accelerometer output (burst read from 0x28|0x80) and temperature decode to m/s² and °C; on a still board, about 1 g"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let bus = try openBus(context)
        var accel = try sensor { () throws(SensorError) in try LSM303AGRAccelerometer(bus: bus, address: c.accelerometerAddress) }
        try sensor { () throws(SensorError) in try accel.configure(.init(dataRate: .hz100, range: .g2, resolution: .highResolution)) }
        if !c.stubFixture { context.clock.sleep(for: .milliseconds(50)) }
        let sample = try sensor { () throws(SensorError) in try accel.read() }
        let a = sample.acceleration
        if c.stubFixture {
            let e = StubFixture.acceleration
            try require(close(a.x, e.x) && close(a.y, e.y) && close(a.z, e.z),
                        "read \(a) m/s², expected (\(e.x), \(e.y), \(e.z)) m/s² from the preloaded counts")
            try require(sample.temperature.map { close($0, StubFixture.temperature) } ?? false,
                        "temperature \(sample.temperature.map { "\($0)" } ?? "missing") °C, expected \(StubFixture.temperature) °C")
        } else if c.still {
            let magnitude = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
            try require((8.8...10.8).contains(magnitude), "acceleration \(a) m/s² has magnitude \(magnitude), expected about 9.81 on a still board")
        }
        return .passed(detail: "\(a) m/s², \(sample.temperature.map { "\($0)" } ?? "-") °C")
    }

    /// An address nobody answers gives `.noAcknowledge`.
    public static let i2cMissingAddress = HILCheck(
        name: "i2c-missing-address",
        proves: "a read from an address no device answers fails with HardwareError.noAcknowledge, and probe() tells present from absent"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let bus = try openBus(context)
        let error = try expectHardwareError("read register 0x0f of \(bus.deviceName(c.absentAddress))", kinds: [.noAcknowledge]) {
            try bus.readRegister(0x0F, at: c.absentAddress)
        }
        let absent = try hardware("probe \(c.absentAddress)") { try bus.probe(c.absentAddress) }
        try require(!absent, "probe(\(c.absentAddress)) says present")
        let present = try hardware("probe \(c.magnetometerAddress)") { try bus.probe(c.magnetometerAddress) }
        try require(present, "probe(\(c.magnetometerAddress)) says absent")
        return .passed(detail: "\(error)")
    }

    /// A bus that does not exist gives `.notFound`.
    public static let i2cMissingBus = HILCheck(
        name: "i2c-missing-bus",
        proves: "opening a /dev/i2c-N that does not exist fails with HardwareError.notFound"
    ) { context throws(HILFailure) in
        let n = context.configuration.missingBus
        let error = try expectHardwareError("open I2C bus \(n)", kinds: [.notFound]) {
            try context.platform.openI2CBus(n)
        }
        return .passed(detail: "\(error)")
    }

    // MARK: GPIO

    /// The enable output as the outside world sees it.
    public static let gpioEnableOutput = HILCheck(
        name: "gpio-enable-output",
        proves: "LinuxGPIOLine drives the GNSS enable output: high and low are seen by gpio-sim's sysfs value while the process holds the line"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let line = try hardware("request \(c.gpioChip)/\(c.enableLine) as output") {
            try context.platform.requestOutput(chip: c.gpioChip, line: c.enableLine, initial: false)
        }
        defer { line.release() }
        let observer = c.gpioObserver.map(SimulatedLineObserver.init(folder:))
        var seen: [Bool] = []
        for level in [false, true, false, true, false] {
            try hardware("set \(line.name) \(level ? "high" : "low")") { try line.set(level) }
            let readBack = try hardware("get \(line.name)") { try line.get() }
            try require(readBack == level, "\(line.name) reads \(readBack) after set(\(level))")
            if let observer {
                let outside = try waitForValue(observer, c.enableLine, level, clock: context.clock)
                try require(outside == level, "\(line.name) set \(level ? "high" : "low") but gpio-sim's value stays \(outside ? 1 : 0)")
                seen.append(outside)
            }
        }
        if observer == nil { return .passed(detail: "no observer: level read back through the line only") }
        return .passed(detail: "sysfs value followed " + seen.map { $0 ? "1" : "0" }.joined())
    }

    /// A line held by this process cannot be requested twice.
    public static let gpioLineBusy = HILCheck(
        name: "gpio-line-busy",
        proves: "requesting a line that is already held fails with HardwareError.busy, and succeeds again after release"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let first = try hardware("request \(c.enableLine)") {
            try context.platform.requestOutput(chip: c.gpioChip, line: c.enableLine, initial: false)
        }
        let error: HardwareError
        do {
            defer { first.release() }
            error = try expectHardwareError("second request of \(first.name)", kinds: [.busy]) {
                try context.platform.requestOutput(chip: c.gpioChip, line: c.enableLine, initial: false)
            }
        }
        let again = try hardware("request \(c.enableLine) after release") {
            try context.platform.requestOutput(chip: c.gpioChip, line: c.enableLine, initial: false)
        }
        again.release()
        return .passed(detail: "\(error)")
    }

    /// A line name the chip does not have gives `.notFound`.
    public static let gpioMissingLine = HILCheck(
        name: "gpio-missing-line",
        proves: "requesting a line name that does not exist fails with HardwareError.notFound"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let error = try expectHardwareError("request line fieldloc-no-such-line", kinds: [.notFound]) {
            try context.platform.requestInput(chip: c.gpioChip, line: .name("fieldloc-no-such-line"), edges: .both, bias: .asIs)
        }
        return .passed(detail: "\(error)")
    }

    /// A wait without an edge returns nil at its deadline.
    public static let gpioEdgeDeadline = HILCheck(
        name: "gpio-edge-deadline",
        proves: "waitForEdge on a quiet line returns nil once its deadline has passed, not before and not much after"
    ) { context throws(HILFailure) in
        let c = context.configuration
        if c.realPPS { return .skipped(reason: "FIELDLOC_HIL_PPS=1: the PPS line is not quiet") }
        let observer = c.gpioObserver.map(SimulatedLineObserver.init(folder:))
        try observer?.pull(c.ppsLine, high: false)
        let line = try hardware("request \(c.gpioChip)/\(c.ppsLine) as input") {
            try context.platform.requestInput(chip: c.gpioChip, line: c.ppsLine, edges: .both, bias: .asIs)
        }
        defer { line.release() }
        let clock = context.clock
        let start = clock.now()
        let deadline = start.advanced(by: .milliseconds(300))
        let event = try hardware("wait for an edge on \(line.name)") { try line.waitForEdge(deadline: deadline) }
        let end = clock.now()
        try require(event == nil, "an edge arrived with nothing driving the line: \(event.map { "\($0)" } ?? "")")
        try require(end >= deadline, "returned nil \(milliseconds(deadline - end)) before its deadline")
        try require(end - deadline < .seconds(2), "returned \(milliseconds(end - deadline)) after its deadline")
        return .passed(detail: "nil after \(milliseconds(end - start)) (deadline 300 ms)")
    }

    /// PPS edges are timestamped on the monotonic clock.
    public static let gpioPPSTimestamps = HILCheck(
        name: "gpio-pps-timestamps",
        proves: "rising edges on the PPS input (driven through gpio-sim's pull, or a real receiver's PPS) are reported by waitForEdge with a kernel timestamp between monotonic clock readings taken before and after"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let clock = context.clock
        guard c.gpioObserver != nil || c.realPPS else {
            return .skipped(reason: "no gpio-sim observer and FIELDLOC_HIL_PPS is not 1 (needs a receiver with a fix)")
        }
        let observer = c.gpioObserver.map(SimulatedLineObserver.init(folder:))
        try observer?.pull(c.ppsLine, high: false)
        let line = try hardware("request \(c.gpioChip)/\(c.ppsLine) as input") {
            try context.platform.requestInput(chip: c.gpioChip, line: c.ppsLine, edges: .rising, bias: .asIs)
        }
        defer { line.release() }
        var stamps: [MonotonicInstant] = []
        for pulse in 1...3 {
            let before = clock.now()
            try observer?.pull(c.ppsLine, high: true)
            let event = try hardware("wait for edge \(pulse) on \(line.name)") {
                try line.waitForEdge(deadline: before.advanced(by: .seconds(observer == nil ? 2 : 5)))
            }
            let after = clock.now()
            guard let event else { throw HILFailure("no edge \(pulse) on \(line.name) within the deadline") }
            try require(event.edge == .rising, "edge \(pulse) on \(line.name) is \(event.edge.rawValue), only rising edges were requested")
            try require(before <= event.timestamp && event.timestamp <= after,
                        "edge \(pulse) at \(event.timestamp) is outside [\(before), \(after)] on the monotonic clock")
            stamps.append(event.timestamp)
            try observer?.pull(c.ppsLine, high: false)
        }
        if observer != nil {
            // The falling edges made above were not requested, so none may be reported.
            let extra = try hardware("wait for an unrequested edge") {
                try line.waitForEdge(deadline: clock.now().advanced(by: .milliseconds(200)))
            }
            try require(extra == nil, "a falling edge was reported on a rising-only line: \(extra.map { "\($0)" } ?? "")")
        } else {
            for (a, b) in zip(stamps, stamps.dropFirst()) {
                let gap = b - a
                try require(gap > .milliseconds(900) && gap < .milliseconds(1100), "PPS edges \(milliseconds(gap)) apart, expected 1 s")
            }
        }
        return .passed(detail: "3 rising edges, gaps " + zip(stamps, stamps.dropFirst()).map { milliseconds($1 - $0) }.joined(separator: ", "))
    }

    /// A PPS line that stops pulsing, stuck high and then low, degrades the time status visibly.
    public static let gpioPPSStuck = HILCheck(
        name: "gpio-pps-stuck",
        proves: "after one pulse paired with a fix (PPS locked), a PPS line held high gives no further edge, and with fixes still arriving PPSTracker reports 'no pulse for N s (line stuck high)' from the real line's level after 2.5 s; held low, '(line stuck low)'"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let clock = context.clock
        guard let folder = c.gpioObserver else {
            return .skipped(reason: "needs gpio-sim's observer (FIELDLOC_HIL_GPIO_OBSERVER) to hold the PPS line")
        }
        let observer = SimulatedLineObserver(folder: folder)
        try observer.pull(c.ppsLine, high: false)
        let line = try hardware("request \(c.gpioChip)/\(c.ppsLine) as input") {
            try context.platform.requestInput(chip: c.gpioChip, line: c.ppsLine, edges: .rising, bias: .asIs)
        }
        defer { line.release() }
        var tracker = PPSTracker()
        let utc = 1_700_000_000.0
        try observer.pull(c.ppsLine, high: true)
        guard let pulse = try hardware("wait for the pulse on \(line.name)", { try line.waitForEdge(deadline: clock.deadline(after: .seconds(5))) }) else {
            throw HILFailure("no edge on \(line.name) after pulling it high")
        }
        tracker.pulse(at: pulse.timestamp)
        // The fix of that second arrives 100 ms after its pulse.
        _ = tracker.fix(utc: utc, receivedAt: pulse.timestamp.advanced(by: .milliseconds(100)))
        let locked = tracker.status(at: pulse.timestamp.advanced(by: .milliseconds(200)), level: nil)
        try require(locked == .locked, "after a paired pulse the status is '\(locked)', not locked")
        // Stuck high: fixes go on every second, no edge comes.
        var second = 1.0
        while clock.now() - pulse.timestamp < .milliseconds(2800) {
            let edge = try hardware("wait for an edge on \(line.name)") { try line.waitForEdge(deadline: clock.deadline(after: .milliseconds(400))) }
            try require(edge == nil, "an edge on a line held high: \(edge.map { "\($0)" } ?? "")")
            if clock.now() - pulse.timestamp >= .seconds(Int64(second)) {
                _ = tracker.fix(utc: utc + second, receivedAt: clock.now())
                second += 1
            }
        }
        let high = try hardware("read \(line.name)") { try line.get() }
        let stuckHigh = tracker.status(at: clock.now(), level: high)
        try require(high, "\(line.name) reads low while gpio-sim holds it high")
        guard case .missing(let seconds, true) = stuckHigh, seconds >= 2 else {
            throw HILFailure("with the line held high for 2.8 s the status is '\(stuckHigh)'")
        }
        // Stuck low: the falling edge was not requested, so nothing comes either.
        try observer.pull(c.ppsLine, high: false)
        let edge = try hardware("wait for an edge on \(line.name)") { try line.waitForEdge(deadline: clock.deadline(after: .milliseconds(300))) }
        try require(edge == nil, "a falling edge was reported on a rising-only line")
        _ = tracker.fix(utc: utc + second, receivedAt: clock.now())
        let low = try hardware("read \(line.name)") { try line.get() }
        let stuckLow = tracker.status(at: clock.now(), level: low)
        guard !low, case .missing(_, false) = stuckLow else {
            throw HILFailure("with the line held low the status is '\(stuckLow)' (line reads \(low ? "high" : "low"))")
        }
        return .passed(detail: "locked, then '\(stuckHigh)', then '\(stuckLow)'")
    }

    // MARK: UART

    /// NMEA in, a command out, its acknowledgement back.
    public static let gnssNMEAAndCommand = HILCheck(
        name: "gnss-nmea-and-command",
        proves: "LinuxSerialPort carries the receiver's NMEA into NMEAStream (fixes with the simulator's position) and a $PMTK220 command out to the receiver, whose $PMTK001,220,3 comes back"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let clock = context.clock
        let port = try hardware("open \(c.gnssTTY)") { try context.platform.openSerialPort(c.gnssTTY, baudRate: c.gnssBaudRate) }
        defer { port.close() }
        try hardware("write \(GNSSFixture.command.trimmingSpaces)") {
            try port.writeAll(GNSSFixture.command, deadline: clock.deadline(after: .seconds(5)))
        }
        let stream = NMEAStream()
        var collector = SentenceCollector()
        try collect(port, named: c.gnssTTY, into: stream, &collector, clock: clock, until: clock.deadline(after: .seconds(20))) {
            $0.fixes.count >= 3 && ($0.acknowledged || !c.acknowledgesPMTK)
        }
        try require(collector.sentences > 0,
                    "no valid NMEA sentence from \(c.gnssTTY) in 20 s (\(collector.rejected) rejected, \(stream.framer.counters))")
        try require(!collector.fixes.isEmpty, "\(collector.sentences) sentences but no fix from \(c.gnssTTY) in 20 s")
        if c.acknowledgesPMTK {
            try require(collector.acknowledged, "no \(GNSSFixture.acknowledgement) from the receiver after \(GNSSFixture.command.trimmingSpaces); proprietary sentences seen: \(collector.proprietary.prefix(5))")
        }
        if c.gnssFixture {
            guard let fix = collector.fixes.last(where: { $0.latitude != nil }), let lat = fix.latitude, let lon = fix.longitude else {
                throw HILFailure("no fix with a position among \(collector.fixes.count)")
            }
            try require(abs(lat - GNSSFixture.latitude) < 1e-6 && abs(lon - GNSSFixture.longitude) < 1e-6,
                        "fix at \(lat), \(lon), the simulator sends \(GNSSFixture.latitude), \(GNSSFixture.longitude)")
            try require(fix.altitudeMSL.map { abs($0 - GNSSFixture.altitudeMSL) < 1e-6 } ?? false,
                        "fix altitude \(fix.altitudeMSL.map { "\($0)" } ?? "missing"), the simulator sends \(GNSSFixture.altitudeMSL) m")
        }
        return .passed(detail: "\(collector.sentences) sentences, \(collector.fixes.count) fixes, ack \(collector.acknowledged ? "seen" : "not expected")")
    }

    /// Line noise on the real UART: garbage, binary frames, bad checksums, an overlong line.
    public static let gnssLineNoise = HILCheck(
        name: "gnss-line-noise",
        proves: "with garbage bytes, UBX and RTCM3 frames, a sentence with a wrong checksum and a 300-byte line after every epoch for 3 s, NMEAStream on the real tty keeps every fix (one per epoch) and counts each kind of noise"
    ) { context throws(HILFailure) in
        let clock = context.clock
        guard let port = try simulatorPort(context, command: "NOISE,3") else {
            return .skipped(reason: "needs the host simulator (FIELDLOC_HIL_GNSS_FIXTURE=1), which makes the noise")
        }
        defer { port.close() }
        let stream = NMEAStream()
        var collector = SentenceCollector()
        // 3 s of noise and 1 s after it.
        try collect(port, named: context.configuration.gnssTTY, into: stream, &collector, clock: clock, until: clock.deadline(after: .seconds(4)))
        let counters = stream.framer.counters
        let seen = "\(collector.fixes.count) fixes, \(collector.rejected) rejected, \(counters)"
        try require(collector.acknowledgedSimulator("NOISE"), "the simulator did not acknowledge NOISE: \(seen)")
        try require(counters.ubxFrames >= 5 && counters.rtcm3Frames >= 5, "binary frames not recognised: \(seen)")
        try require(counters.garbageBytes >= 20 && counters.sentencesTooLong >= 5, "garbage or overlong lines not counted: \(seen)")
        try require(collector.badChecksums >= 5, "sentences with a wrong checksum not rejected as such: \(seen)")
        // 10 epochs a second for 4 s: allow for the start and a loaded host, never for lost fixes.
        try require(collector.fixes.count >= 25, "fixes lost in the noise: \(seen)")
        try require(collector.fixes.allSatisfy { fix in fix.latitude.map { abs($0 - GNSSFixture.latitude) < 1e-6 } ?? true },
                    "a fix moved in the noise: \(seen)")
        return .passed(detail: "\(collector.fixes.count) fixes; \(counters.ubxFrames) UBX, \(counters.rtcm3Frames) RTCM3, \(counters.garbageBytes) garbage bytes, \(counters.sentencesTooLong) overlong, \(collector.badChecksums) bad checksums")
    }

    /// The receiver goes quiet: reads end at their deadlines, and the fixes resume.
    public static let gnssSilence = HILCheck(
        name: "gnss-silence",
        proves: "when the receiver sends nothing for 2 s, every read of the real tty returns by its 250 ms deadline (the silence is seen, nothing blocks), and fixes resume within 2 s of the receiver speaking again"
    ) { context throws(HILFailure) in
        let clock = context.clock
        guard let port = try simulatorPort(context, command: "SILENT,2") else {
            return .skipped(reason: "needs the host simulator (FIELDLOC_HIL_GNSS_FIXTURE=1), which goes silent on request")
        }
        defer { port.close() }
        let stream = NMEAStream()
        var collector = SentenceCollector()
        var lastData = clock.now()
        var longestGap = Duration.zero
        var longestRead = Duration.zero
        var silenceEnded: MonotonicInstant?
        var fixesBeforeSilenceEnded = 0
        var resumedAfter: Duration?
        let end = clock.deadline(after: .seconds(8))
        while clock.now() < end {
            let started = clock.now()
            let chunk = try hardware("read \(context.configuration.gnssTTY)") { try port.readAvailable(maximum: 512, deadline: clock.deadline(after: .milliseconds(250))) }
            let now = clock.now()
            longestRead = max(longestRead, now - started)
            guard !chunk.isEmpty else { continue }
            let gap = now - lastData
            if gap > longestGap { longestGap = gap }
            if gap >= .milliseconds(1500), silenceEnded == nil {
                silenceEnded = now
                fixesBeforeSilenceEnded = collector.fixes.count
            }
            lastData = now
            stream.feed(chunk.span, delegate: &collector)
            if let ended = silenceEnded, collector.fixes.count >= fixesBeforeSilenceEnded + 3 {
                resumedAfter = now - ended
                break
            }
        }
        let seen = "longest gap \(milliseconds(longestGap)), longest read \(milliseconds(longestRead)), \(collector.fixes.count) fixes"
        try require(collector.acknowledgedSimulator("SILENT"), "the simulator did not acknowledge SILENT: \(seen)")
        try require(longestRead < .milliseconds(750), "a read outlived its 250 ms deadline: \(seen)")
        try require(silenceEnded != nil, "no silence of 1.5 s or more was seen: \(seen)")
        guard let resumedAfter else {
            throw HILFailure("fixes did not resume after the silence (\(collector.fixes.count - fixesBeforeSilenceEnded) since): \(seen)")
        }
        try require(resumedAfter < .seconds(2), "3 fixes took \(milliseconds(resumedAfter)) after the silence ended: \(seen)")
        return .passed(detail: seen + ", 3 fixes \(milliseconds(resumedAfter)) after the silence")
    }

    /// A USB serial adapter pulled out and plugged back in.
    public static let gnssUSBUnplug = HILCheck(
        name: "gnss-usb-unplug",
        proves: "when the receiver's USB serial adapter is unplugged (QEMU device_del), the open port's read fails with HardwareError.deviceGone; when it is plugged back (device_add), the device node returns, the port opens again, and a fix comes within 2 s of the reopen"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let clock = context.clock
        guard let tty = c.usbTTY else {
            return .skipped(reason: "needs a USB serial adapter the host simulator can unplug (FIELDLOC_HIL_USB_TTY, set in the QEMU guest)")
        }
        // The simulator acknowledges, streams for 1 s, then unplugs the adapter for 2 s.
        let port = try openWithCommand(context, tty: tty, command: "UNPLUG,2")
        let stream = NMEAStream()
        var before = SentenceCollector()
        var gone: HardwareError?
        let unplugDeadline = clock.deadline(after: .seconds(15))
        while gone == nil, clock.now() < unplugDeadline {
            do throws(HardwareError) {
                let chunk = try port.readAvailable(maximum: 512, deadline: min(unplugDeadline, clock.deadline(after: .seconds(1))))
                if !chunk.isEmpty { stream.feed(chunk.span, delegate: &before) }
            } catch {
                gone = error
            }
        }
        port.close()
        let unpluggedAt = clock.now()
        try require(before.acknowledgedSimulator("UNPLUG"), "the simulator did not acknowledge UNPLUG: \(before.sentences) sentences")
        guard let gone else { throw HILFailure("\(tty) kept reading for 15 s: the adapter was not unplugged (\(before.fixes.count) fixes)") }
        try require(gone.kind == .deviceGone, "the unplug gave \(gone), not deviceGone")
        // Plugged back: the node comes back (the kernel enumerates the adapter again) and opens.
        var reopened: (any SerialPort)?
        var lastError: HardwareError?
        let replugDeadline = clock.deadline(after: .seconds(20))
        while reopened == nil, clock.now() < replugDeadline {
            do throws(HardwareError) {
                reopened = try context.platform.openSerialPort(tty, baudRate: c.gnssBaudRate)
            } catch {
                lastError = error
                clock.sleep(for: .milliseconds(100))
            }
        }
        guard let again = reopened else {
            throw HILFailure("\(tty) did not come back within 20 s of the unplug: \(lastError.map { "\($0)" } ?? "")")
        }
        defer { again.close() }
        let reopenedAt = clock.now()
        let after = NMEAStream()
        var collector = SentenceCollector()
        try collect(again, named: "\(tty) after the replug", into: after, &collector, clock: clock,
                    until: clock.deadline(after: .seconds(5)), step: .milliseconds(500)) { !$0.fixes.isEmpty }
        let firstFix = clock.now() - reopenedAt
        try require(!collector.fixes.isEmpty, "no fix within 5 s of reopening \(tty)")
        try require(firstFix < .seconds(2), "the first fix took \(milliseconds(firstFix)) after the reopen")
        return .passed(detail: "\(before.fixes.count) fixes, then \(gone); back after \(milliseconds(reopenedAt - unpluggedAt)), first fix \(milliseconds(firstFix)) after the reopen")
    }

    /// The port is exclusive.
    public static let serialBusy = HILCheck(
        name: "serial-busy",
        proves: "a second open of the receiver's tty while it is open fails with HardwareError.busy, and the port opens again after close"
    ) { context throws(HILFailure) in
        let c = context.configuration
        let first = try hardware("open \(c.gnssTTY)") { try context.platform.openSerialPort(c.gnssTTY, baudRate: c.gnssBaudRate) }
        let error: HardwareError
        do {
            defer { first.close() }
            error = try expectHardwareError("second open of \(c.gnssTTY)", kinds: [.busy]) {
                try context.platform.openSerialPort(c.gnssTTY, baudRate: c.gnssBaudRate)
            }
        }
        let again = try hardware("open \(c.gnssTTY) after close") { try context.platform.openSerialPort(c.gnssTTY, baudRate: c.gnssBaudRate) }
        again.close()
        return .passed(detail: "\(error)")
    }
}

// MARK: - Helpers

/// Opens the receiver's tty and sends the host simulator's test command `body` (`NOISE,3`,
/// `SILENT,2`); nil when the receiver is not the host simulator.
private func simulatorPort(_ context: HILContext, command body: String) throws(HILFailure) -> (any SerialPort)? {
    let c = context.configuration
    guard c.gnssFixture else { return nil }
    return try openWithCommand(context, tty: c.gnssTTY, command: body)
}

/// Reads `port` into `stream` and `collector`, at most 512 bytes and `step` per read, until
/// `deadline` or until `done` holds (checked before each read).
private func collect(_ port: any SerialPort, named name: String, into stream: NMEAStream, _ collector: inout SentenceCollector,
                     clock: any MonotonicClock, until deadline: MonotonicInstant, step: Duration = .seconds(1),
                     done: (SentenceCollector) -> Bool = { _ in false }) throws(HILFailure) {
    while clock.now() < deadline, !done(collector) {
        let chunk = try hardware("read \(name)") { try port.readAvailable(maximum: 512, deadline: min(deadline, clock.deadline(after: step))) }
        if !chunk.isEmpty { stream.feed(chunk.span, delegate: &collector) }
    }
}

/// Opens `tty` at the receiver's rate and sends the host simulator's test command `body`.
private func openWithCommand(_ context: HILContext, tty: String, command body: String) throws(HILFailure) -> any SerialPort {
    let port = try hardware("open \(tty)") { try context.platform.openSerialPort(tty, baudRate: context.configuration.gnssBaudRate) }
    let command = GNSSFixture.simulatorCommand(body)
    do {
        try hardware("write \(command.trimmingSpaces)") { try port.writeAll(command, deadline: context.clock.deadline(after: .seconds(5))) }
    } catch {
        port.close()
        throw error
    }
    return port
}

func openBus(_ context: HILContext) throws(HILFailure) -> any I2CBus {
    let n = context.configuration.i2cBus
    return try hardware("open I2C bus \(n)") { try context.platform.openI2CBus(n) }
}

func sensor<T, E: Error>(_ body: () throws(E) -> T) throws(HILFailure) -> T {
    do {
        return try body()
    } catch {
        throw HILFailure("\(error)")
    }
}

func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(b)) }

/// Polls the observer for up to 1 s until the line reads `level`; returns the last reading.
private func waitForValue(
    _ observer: SimulatedLineObserver, _ line: GPIOLineID, _ level: Bool, clock: any MonotonicClock
) throws(HILFailure) -> Bool {
    let reached = try clock.poll(attempts: 50, interval: .milliseconds(20)) { () throws(HILFailure) -> Bool? in
        try observer.value(of: line) == level ? true : nil
    }
    return reached != nil ? level : try observer.value(of: line)
}

/// Counts what an NMEAStream delivers.
private struct SentenceCollector: NMEAStreamDelegate {
    var sentences = 0
    var rejected = 0
    var badChecksums = 0
    var fixes: [Fix] = []
    var proprietary: [String] = []
    var acknowledged = false

    mutating func stream(fix: Fix) { fixes.append(fix) }

    mutating func stream(sentence: ParsedSentence, bytes: Span<UInt8>) {
        sentences += 1
        if case .proprietary = sentence.sentence {
            var text = ""
            for i in bytes.indices { text.unicodeScalars.append(Unicode.Scalar(bytes[i])) }
            proprietary.append(text)
            if text.hasPrefix(GNSSFixture.acknowledgement) { acknowledged = true }
        }
    }

    /// Whether the host simulator's acknowledgement of `command` (`NOISE`, `SILENT`) arrived.
    func acknowledgedSimulator(_ command: String) -> Bool {
        proprietary.contains { $0.hasPrefix(GNSSFixture.simulatorAcknowledgement(command)) }
    }

    mutating func stream(rejected error: NMEAError, bytes: Span<UInt8>) {
        rejected += 1
        if case .checksumMismatch = error { badChecksums += 1 }
    }
}
