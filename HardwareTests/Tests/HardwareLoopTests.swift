#if canImport(Glibc)
import Glibc
#endif
import HardwareInterfaces
import HILChecks
import Testing

/// The board under test, from `FIELDLOC_HIL_BOARD` (for example `pi4`); unset on a machine without hardware.
enum Board {
    static let name: String? = getenv("FIELDLOC_HIL_BOARD").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    static var isSet: Bool { name != nil }
}

/// The HIL checks in-process on a real board. Without `FIELDLOC_HIL_BOARD` every case is skipped,
/// and Swift Testing prints the reason with the skip.
@Suite("Hardware in the loop on a board")
struct HardwareLoopTests {
    @Test(
        "HIL check",
        .enabled(if: Board.isSet, "FIELDLOC_HIL_BOARD is not set: no board attached (on a Pi, set FIELDLOC_HIL_BOARD=pi4 and the FIELDLOC_HIL_* device variables, see HardwareTests/README.md)"),
        arguments: HILChecks.all.map(\.name)
    )
    func check(_ name: String) throws {
        let check = try #require(HILChecks.named(name))
        let configuration = try HILConfiguration(environment: { getenv($0).map { String(cString: $0) } })
        let result = check.result(in: HILContext(platform: makePlatform(), configuration: configuration))
        print("[\(Board.name ?? "-")] \(result.line)")
        if let failure = result.failure { Issue.record("\(name): \(failure.message)") }
    }
}

/// The parts of the harness that need no hardware: configuration parsing and result lines.
@Suite("HIL harness without hardware")
struct HILHarnessTests {
    @Test func defaultsAreThePiWiring() throws {
        let c = try HILConfiguration(environment: { _ in nil })
        #expect(c.i2cBus == 1)
        #expect(c.accelerometerAddress.rawValue == 0x19)
        #expect(c.magnetometerAddress.rawValue == 0x1E)
        #expect(c.gnssTTY == "/dev/serial0")
        #expect(c.enableLine == .name("gnss-enable"))
        #expect(c.gpioObserver == nil)
        #expect(!c.stubFixture)
    }

    @Test func guestEnvironmentIsRead() throws {
        let env = ["FIELDLOC_HIL_I2C_BUS": "0", "FIELDLOC_HIL_TTY": "/dev/ttyS1", "FIELDLOC_HIL_PPS_LINE": "3",
                   "FIELDLOC_HIL_GPIO_OBSERVER": "/run/hil/gpio", "FIELDLOC_HIL_STUB_FIXTURE": "1",
                   "FIELDLOC_HIL_MAG_ADDR": "0x1c", "FIELDLOC_HIL_BAUD": "115200"]
        let c = try HILConfiguration(environment: { env[$0] })
        #expect(c.i2cBus == 0)
        #expect(c.gnssTTY == "/dev/ttyS1")
        #expect(c.ppsLine == .offset(3))
        #expect(c.gpioObserver == "/run/hil/gpio")
        #expect(c.stubFixture)
        #expect(c.magnetometerAddress.rawValue == 0x1C)
        #expect(c.gnssBaudRate == .b115200)
    }

    @Test(arguments: [("FIELDLOC_HIL_BAUD", "9601"), ("FIELDLOC_HIL_MAG_ADDR", "0x80"), ("FIELDLOC_HIL_I2C_BUS", "one"),
                      ("FIELDLOC_HIL_PMTK", "maybe"), ("FIELDLOC_HIL_MISSING_BUS", "1")])
    func malformedVariablesAreNamed(_ key: String, _ value: String) {
        #expect(throws: HILConfigurationError.self) { try HILConfiguration(environment: { $0 == key ? value : nil }) }
        do {
            _ = try HILConfiguration(environment: { $0 == key ? value : nil })
        } catch {
            #expect(error.variable == key)
            #expect(error.description.hasPrefix("\(key)=\(value): expected"))
        }
    }

    @Test func resultLinesAndSummary() {
        let results = [
            HILResult(name: "a", outcome: .passed(detail: ""), failure: nil),
            HILResult(name: "b", outcome: nil, failure: HILFailure("why")),
            HILResult(name: "c", outcome: .skipped(reason: "no sim"), failure: nil),
        ]
        #expect(results.map(\.line) == ["ok - a", "not ok - b: why", "ok - c # SKIP no sim"])
        #expect(summaryLine(results) == "1 passed, 1 failed, 1 skipped")
    }

    @Test func fixtureBytesEncodeTheDocumentedValues() {
        let stub = StubModel(preloaded: StubFixture.preload)
        func word(_ address: UInt8, _ register: UInt8) -> Int16 {
            let bytes = stub.readBlock(address, register, count: 2)
            return Int16(bitPattern: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
        }
        #expect(Double(word(0x1E, 0x68)) * 0.15 == StubFixture.magneticField.x)
        #expect(Double(word(0x1E, 0x6A)) * 0.15 == StubFixture.magneticField.y)
        #expect(word(0x19, 0xAC) >> 4 == StubFixture.accelerometerCounts.z)
        #expect(stub.read(0x19, 0x0F) == 0x33 && stub.read(0x1E, 0x4F) == 0x40)
    }

    @Test func everyCheckHasAUniqueName() {
        let names = HILChecks.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(HILChecks.named("gnss-nmea-and-command") != nil)
    }
}
