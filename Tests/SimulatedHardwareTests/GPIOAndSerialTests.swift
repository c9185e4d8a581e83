import HardwareInterfaces
import SimulatedHardware
import Testing

@Suite("Simulated GPIO lines and serial ports on the manual clock")
struct GPIOAndSerialTests {
    func chip() -> (ManualClock, SimulatedGPIOChip) {
        let clock = ManualClock()
        return (clock, SimulatedGPIOChip(name: "gpiochip0", lineNames: ["GNSS_EN", "PPS", "RESET"], clock: clock))
    }

    @Test("an output records every write with its time")
    func outputRecords() throws {
        let (clock, chip) = chip()
        let line = try chip.requestOutput(.name("GNSS_EN"), initial: false)
        clock.advance(by: .milliseconds(1500))
        try line.set(true)
        try line.pulse(false, width: .milliseconds(10), clock: clock)
        #expect(line.writes.map(\.high) == [false, true, false, true])
        #expect(line.writes.map(\.timestamp.nanoseconds) == [0, 1_500_000_000, 1_500_000_000, 1_510_000_000])
        #expect(line.firstWrite(of: true) == MonotonicInstant(nanoseconds: 1_500_000_000))
        #expect(try line.get())
        #expect(kind { () throws(HardwareError) in try line.waitForEdge(deadline: .distantFuture) } == .unsupported)
        line.release()
        #expect(kind { () throws(HardwareError) in try line.set(false) } == .closed)
    }

    @Test("the test drives an input; the edge carries the manual clock's time and is returned without waiting")
    func drive() throws {
        let (clock, chip) = chip()
        let line = try chip.requestInput(.offset(1), edges: .both)
        clock.advance(by: .milliseconds(200))
        line.drive(high: true)
        clock.advance(by: .milliseconds(50))
        line.drive(high: false)
        line.drive(high: false)  // no change, no edge
        let deadline = clock.now().advanced(by: .seconds(1))
        #expect(try line.waitForEdge(deadline: deadline) == GPIOEvent(edge: .rising, timestamp: MonotonicInstant(nanoseconds: 200_000_000)))
        #expect(try line.waitForEdge(deadline: deadline) == GPIOEvent(edge: .falling, timestamp: MonotonicInstant(nanoseconds: 250_000_000)))
        #expect(clock.now() == MonotonicInstant(nanoseconds: 250_000_000))
        #expect(try line.waitForEdge(deadline: deadline) == nil)
        #expect(clock.now() == deadline, "the wait ran the clock to the deadline")
        #expect(try line.get() == false)
    }

    @Test("a 1 PPS source: rising edges every second, falling after the width; waits move the clock to each edge")
    func pps() throws {
        let (clock, chip) = chip()
        let line = try chip.requestInput(.name("PPS"), edges: .rising)
        line.schedulePulses(GPIOPulseTrain(start: MonotonicInstant(nanoseconds: 1_000_000_000), width: .milliseconds(100)))
        let deadline = MonotonicInstant(nanoseconds: 10_000_000_000)
        for second in 1...3 {
            let event = try #require(try line.waitForEdge(deadline: deadline))
            #expect(event == GPIOEvent(edge: .rising, timestamp: MonotonicInstant(nanoseconds: UInt64(second) * 1_000_000_000)))
            #expect(clock.now() == event.timestamp)
            #expect(try line.get())
        }
        clock.advance(by: .milliseconds(150))
        #expect(try line.get() == false, "low after the 100 ms width")
        line.release()
        let both = try chip.requestInput(.name("PPS"), edges: .both)
        let fall = try #require(try both.waitForEdge(deadline: deadline))
        #expect(fall == GPIOEvent(edge: .rising, timestamp: MonotonicInstant(nanoseconds: 4_000_000_000)))
        #expect(try both.waitForEdge(deadline: deadline) == GPIOEvent(edge: .falling, timestamp: MonotonicInstant(nanoseconds: 4_100_000_000)))
        // A deadline before the next edge returns nil at the deadline.
        let early = MonotonicInstant(nanoseconds: 4_500_000_000)
        #expect(try both.waitForEdge(deadline: early) == nil)
        #expect(clock.now() == early)
    }

    @Test("faults: a stuck line has no edges; a line held elsewhere or twice is busy; unknown lines are not found")
    func gpioFaults() throws {
        let (clock, chip) = chip()
        let pps = try #require(chip.line(named: "PPS"))
        pps.schedulePulses(GPIOPulseTrain(start: MonotonicInstant(nanoseconds: 500_000_000)))
        pps.setStuck(true)
        let line = try chip.requestInput(.name("PPS"), edges: .both)
        #expect(try line.waitForEdge(deadline: MonotonicInstant(nanoseconds: 3_000_000_000)) == nil)
        #expect(clock.now().seconds == 3)
        pps.setStuck(false)
        #expect(try line.waitForEdge(deadline: .distantFuture)?.timestamp == MonotonicInstant(nanoseconds: 3_500_000_000))

        #expect(kind { () throws(HardwareError) in try chip.requestInput(.name("PPS"), edges: .both) } == .busy)
        let reset = try #require(chip.line(named: "RESET"))
        reset.setHeldElsewhere(true)
        #expect(kind { () throws(HardwareError) in try chip.requestOutput(.name("RESET"), initial: true) } == .busy)
        #expect(kind { () throws(HardwareError) in try chip.requestOutput(.name("NOPE"), initial: true) } == .notFound)
        // No scheduled edge and no deadline: returns nil at once instead of hanging.
        let en = try chip.requestInput(.name("GNSS_EN"), edges: .rising)
        #expect(try en.waitForEdge(deadline: .distantFuture) == nil)
    }

    @Test("serial port: the peer's bytes are read, the host's writes reach the peer, reads wait on the clock")
    func serial() throws {
        let clock = ManualClock()
        let port = SimulatedSerialPort(name: "ttySIM0", clock: clock, baudRate: .b9600)
        port.peerWrite("$GPTXT,hello*00\r\n")
        var pending: [UInt8] = []
        let line = try port.readLine(pending: &pending, deadline: clock.deadline(after: .seconds(1)))
        #expect(line.map { String(decoding: $0, as: UTF8.self) } == "$GPTXT,hello*00")
        try port.writeAll("$PMTK000*32\r\n", deadline: clock.deadline(after: .seconds(1)))
        #expect(String(decoding: port.peerRead(), as: UTF8.self) == "$PMTK000*32\r\n")
        #expect(port.peerRead().isEmpty)
        let before = clock.now()
        #expect(try port.readAvailable(deadline: before.advanced(by: .milliseconds(700))).isEmpty)
        #expect(clock.now() == before.advanced(by: .milliseconds(700)))
        port.peerWrite([1, 2, 3])
        try port.discard(.input)
        #expect(try port.readAvailable(deadline: clock.now()).isEmpty)
    }

    @Test("serial faults: unplug gives device gone, replug works again, garbage and a wrong rate corrupt the stream")
    func serialFaults() throws {
        let clock = ManualClock()
        let port = SimulatedSerialPort(name: "ttySIM0", clock: clock)
        port.peerWrite("abc")
        port.unplug()
        #expect(kind { () throws(HardwareError) in try port.readAvailable(deadline: clock.now()) } == .deviceGone)
        #expect(kind { () throws(HardwareError) in try port.writeAll("x", deadline: clock.now()) } == .deviceGone)
        #expect(kind { () throws(HardwareError) in try port.setBaudRate(.b115200) } == .deviceGone)
        port.replug()
        #expect(try port.readAvailable(deadline: clock.now()).isEmpty, "bytes queued before the unplug are lost")
        port.peerWrite("ok")
        port.injectGarbage([0xFF, 0x00, 0xA5])
        port.peerWrite("!")
        #expect(try port.readAvailable(deadline: clock.now()) == Array("ok".utf8) + [0xFF, 0x00, 0xA5] + Array("!".utf8))
        try port.setBaudRate(.b115200)
        port.peerWrite("$GPGGA")
        let scrambled = try port.readAvailable(deadline: clock.now())
        #expect(scrambled.count == 6 && scrambled != Array("$GPGGA".utf8))
        port.close()
        #expect(kind { () throws(HardwareError) in try port.readAvailable(deadline: clock.now()) } == .closed)
    }
}
