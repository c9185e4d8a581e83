import Foundation
import Glibc
import HardwareInterfaces
import LinuxHardware
import Testing

/// `/dev/ppsN` through the RFC 2783 ioctls, and the clock bracket that places kernel stamps.
@Suite("Linux PPS device (RFC 2783) and clock bracket")
struct PPSDeviceTests {
    /// The first /dev/pps* node, if this machine has one (the HIL guest with pps_parport has /dev/pps0).
    static let device: String? = (try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?
        .filter { $0.hasPrefix("pps") }.sorted().first.map { "/dev/" + $0 }

    @Test("the ioctl numbers and structure sizes are <linux/pps.h>'s for 64-bit Linux, as fieldloc_pps.h writes them down",
          .enabled(if: MemoryLayout<Int>.size == 8, "the numbers written down are the 64-bit ones (the size field is a pointer's)"))
    func layout() {
        let requests = LinuxPPSDevice.requestNumbers
        #expect(requests.getParams == 0x8008_70a1)
        #expect(requests.setParams == 0x4008_70a2)
        #expect(requests.getCap == 0x8008_70a3)
        #expect(requests.fetch == 0xc008_70a4)
        let sizes = LinuxPPSDevice.structureSizes
        #expect(sizes.ktime == 16 && sizes.kinfo == 48 && sizes.fdata == 64)
        // struct pps_kparams { int api_version; int mode; struct pps_ktime assert_off_tu, clear_off_tu; }
        #expect(sizes.kparams == 40)
    }

    @Test("a missing device says how to load a PPS client; a file that is not a PPS device is refused by PPS_GETCAP")
    func refusals() {
        do {
            _ = try LinuxPPSDevice(path: "/dev/pps-fieldloc-none")
            Issue.record("opened a missing PPS device")
        } catch {
            #expect(error.kind == .notFound)
            #expect(error.hint?.contains("pps-gpio") == true)
        }
        do {
            _ = try LinuxPPSDevice(path: "/dev/null")
            Issue.record("/dev/null taken for a PPS device")
        } catch {
            #expect(error.kind == .unsupported)
            #expect(error.operation == "PPS_GETCAP")
        }
        #expect(throws: HardwareError.self) { _ = try SimulatedPlatformWithoutPPS().openPPSDevice("/dev/pps0") }
    }

    @Test("the clock bracket is tight and converts both ways; the system time of an instant agrees with CLOCK_REALTIME")
    func bracket() {
        let bracket = ClockBracket.measure(reads: 8)
        #expect(bracket.errorBoundNanoseconds >= 0)
        let clock = SystemMonotonicClock()
        let instant = clock.now()
        let system = bracket.systemTime(at: instant)
        #expect(bracket.monotonic(atSystemNanoseconds: system.systemNanoseconds) == instant)
        // The bound is half a bracket of three clock reads: far below a millisecond even on a loaded machine.
        #expect(system.errorBoundNanoseconds < 1_000_000)
        let wall = SystemWallClock.nanosecondsSinceEpoch()
        // Both read "now" (the wall clock a little later): within a second covers any scheduling.
        #expect(wall - system.systemNanoseconds >= -1_000_000 && wall - system.systemNanoseconds < 1_000_000_000)
        let platform = LinuxPlatform()
        #expect(platform.systemTime(at: instant) != nil)
    }

    @Test("real pulses from this machine's /dev/pps device: sequence numbers advance, edges about a second apart or as the source sends them",
          .enabled(if: device != nil && getuid() == 0, "needs a kernel PPS source (/dev/ppsN) and root"))
    func realPulses() throws {
        let path = try #require(Self.device)
        let pps = try LinuxPPSDevice(path: path)
        defer { pps.close() }
        let clock = SystemMonotonicClock()
        var last = try pps.latest()
        var events: [PPSAssertEvent] = []
        for _ in 0..<2 {
            guard let event = try pps.waitForAssert(after: last?.sequence, deadline: clock.deadline(after: .seconds(3))) else { break }
            events.append(event)
            last = event
        }
        try #require(events.count == 2, "no pulses on \(path) within 3 s each")
        #expect(events[1].sequence != events[0].sequence)
        #expect(events[1].systemNanoseconds > events[0].systemNanoseconds)
    }
}

/// A platform with the protocol's defaults: no PPS devices.
struct SimulatedPlatformWithoutPPS: HardwarePlatform {
    let clock: any MonotonicClock = SystemMonotonicClock()
    func openI2CBus(_ number: Int) throws(HardwareError) -> any I2CBus { throw HardwareError(.unsupported, device: "", operation: "") }
    func openSerialPort(_ path: String, baudRate: BaudRate) throws(HardwareError) -> any SerialPort { throw HardwareError(.unsupported, device: "", operation: "") }
    func requestOutput(chip: String, line: GPIOLineID, initial: Bool) throws(HardwareError) -> any GPIOLine { throw HardwareError(.unsupported, device: "", operation: "") }
    func requestInput(chip: String, line: GPIOLineID, edges: GPIOEdgeDetection, bias: GPIOBias) throws(HardwareError) -> any GPIOLine {
        throw HardwareError(.unsupported, device: "", operation: "")
    }
    func availableI2CBuses() -> [Int] { [] }
    func candidateSerialPorts() -> [String] { [] }
}
