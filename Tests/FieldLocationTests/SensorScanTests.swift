import FieldLocation
import HardwareInterfaces
import Synchronization
import Testing

/// Register memories at addresses, like the kernel's i2c-stub: every register holds what was
/// last written, block reads walk consecutive registers. An AK09916 at 0x0c answers only once
/// the ICM-20948 at 0x68 has BYPASS_EN (bit 1 of INT_PIN_CFG, 0x0f) set.
final class RegisterMemoryBus: I2CBus {
    let name = "/dev/i2c-test"
    let memory: Mutex<[UInt8: [UInt8]]>

    init(_ devices: [UInt8: [UInt8: UInt8]]) {
        var m: [UInt8: [UInt8]] = [:]
        for (address, registers) in devices {
            var regs = [UInt8](repeating: 0, count: 256)
            for (r, v) in registers { regs[Int(r)] = v }
            m[address] = regs
        }
        memory = Mutex(m)
    }

    func present(_ address: UInt8, _ m: [UInt8: [UInt8]]) -> Bool {
        if address == 0x0C, let icm = m[0x68] { return icm[0x0F] & 0x02 != 0 && m[0x0C] != nil }
        return m[address] != nil
    }

    func transfer(_ operation: I2COperation, at address: I2CAddress) throws(HardwareError) -> [UInt8] {
        let result: Result<[UInt8], HardwareError> = memory.withLock { m in
            guard present(address.rawValue, m), var regs = m[address.rawValue] else {
                return .failure(HardwareError(.noAcknowledge, device: "\(name)@\(address)", operation: operation.description))
            }
            defer { m[address.rawValue] = regs }
            switch operation {
            case .quick: return .success([])
            case .receiveByte: return .success([regs[0]])
            case .readByte(let r): return .success([regs[Int(r)]])
            case .writeByte(let r, let v): regs[Int(r)] = v; return .success([])
            case .readWord(let r): return .success([regs[Int(r)], 0])
            case .writeWord(let r, let v): regs[Int(r)] = UInt8(v & 0xFF); return .success([])
            case .readBlock(let r, let n): return .success((0..<n).map { regs[(Int(r) + $0) & 0xFF] })
            case .writeBlock(let r, let bytes):
                for (i, b) in bytes.enumerated() { regs[(Int(r) + i) & 0xFF] = b }
                return .success([])
            }
        }
        return try result.get()
    }
}

struct StillClock: MonotonicClock {
    func now() -> MonotonicInstant { .zero }
    func sleep(until deadline: MonotonicInstant) {}
}

@Suite("I2C scan")
struct SensorScanTests {
    @Test("known chips are named by identity or behaviour; an unknown device is reported as such")
    func scan() throws {
        let bus = RegisterMemoryBus([
            0x19: [0x0F: 0x33],            // LSM303AGR accelerometer
            0x1E: [0x4F: 0x40],            // LSM303AGR magnetometer
            0x1C: [0x0F: 0x3D],            // LIS3MDL
            0x0D: [0x0D: 0xFF],            // QMC5883L (no identity register)
            0x6A: [0x0F: 0x42],            // something else at an LSM6DSOX address
        ])
        let findings = try SensorScan.scan(bus, clock: StillClock())
        let named = findings.map { "\($0.address)=\($0.chip?.rawValue ?? "?")" }
        #expect(named == ["0x0d=qmc5883l", "0x19=lsm303agr-accel", "0x1c=lis3mdl", "0x1e=lsm303agr-mag", "0x6a=?"])
        #expect(findings.last?.note.contains("not lsm6dsox") == true)
    }

    @Test("an ICM-20948 is put in bypass and its AK09916 found at 0x0c")
    func icmBypass() throws {
        let bus = RegisterMemoryBus([0x68: [0x00: 0xEA], 0x0C: [0x01: 0x09]])
        let findings = try SensorScan.scan(bus, clock: StillClock())
        #expect(findings.map(\.chip) == [.icm20948, .ak09916])
    }

    @Test("an empty bus finds nothing")
    func empty() throws {
        #expect(try SensorScan.scan(RegisterMemoryBus([:]), clock: StillClock()).isEmpty)
    }
}
