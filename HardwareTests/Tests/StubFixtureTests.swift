import HardwareInterfaces
import HILChecks
import Testing

/// i2c-stub's register files as drivers/i2c/i2c-stub.c keeps them: 256 byte registers per chip;
/// for a chip with banks, a byte write to the bank register selects bank `(value & mask) >> shift`,
/// and in banks other than 0 the registers `start...end` are the bank's own. Block reads ignore the
/// banks (they always reach bank 0). `banks: []` models a stub loaded without bank parameters.
struct StubModel {
    private var registers: [UInt8: [UInt8]] = [:]
    private var bankRegisters: [UInt8: [Int: [UInt8]]] = [:]
    private var selected: [UInt8: Int] = [:]
    private let banks: [UInt8: StubBanks]

    init(banks: [StubBanks] = StubFixture.banks, preloaded values: [RegisterValue] = []) {
        self.banks = Dictionary(uniqueKeysWithValues: banks.map { ($0.address, $0) })
        for value in values { write(value) }
    }

    /// The bank selected on `address`, 0 without banks.
    func bank(_ address: UInt8) -> Int { selected[address] ?? 0 }

    private func banked(_ address: UInt8, _ register: UInt8) -> StubBanks? {
        guard let layout = banks[address], bank(address) != 0, (layout.start...layout.end).contains(register) else { return nil }
        return layout
    }

    /// A byte write (`i2cset`, or a driver's `writeRegister`).
    mutating func write(_ value: RegisterValue) {
        let address = value.address
        if banked(address, value.register) != nil {
            bankRegisters[address, default: [:]][bank(address), default: Array(repeating: 0, count: 256)][Int(value.register)] = value.value
        } else {
            registers[address, default: Array(repeating: 0, count: 256)][Int(value.register)] = value.value
        }
        if let layout = banks[address], value.register == layout.register {
            selected[address] = Int((value.value & layout.mask) >> UInt8(layout.mask.trailingZeroBitCount))
        }
    }

    /// A byte read (`i2cget`, or a driver's `readRegister`).
    func read(_ address: UInt8, _ register: UInt8) -> UInt8 {
        if banked(address, register) != nil {
            return bankRegisters[address]?[bank(address)]?[Int(register)] ?? 0
        }
        return registers[address]?[Int(register)] ?? 0
    }

    /// An I2C block read: consecutive registers of bank 0, whatever bank is selected.
    func readBlock(_ address: UInt8, _ register: UInt8, count: Int) -> [UInt8] {
        (0..<count).map { registers[address]?[Int(register) + $0] ?? 0 }
    }
}

/// The fixture the guest preloads and reads back, checked against a model of the stub: no
/// hardware needed.
@Suite("HIL stub fixture")
struct StubFixtureTests {
    @Test func icm20948PreloadLeavesBank2SelectedAndKeepsWhoAmIInBank0() {
        var stub = StubModel(preloaded: StubFixture.preload)
        let address = ICM20948Fixture.address
        #expect(stub.bank(address) == 2)
        #expect(stub.read(address, 0x00) == 0x00)  // GYRO_SMPLRT_DIV power-on
        #expect(stub.read(address, 0x01) == 0x01)  // GYRO_CONFIG_1 power-on
        #expect(stub.read(address, 0x14) == 0x01)  // ACCEL_CONFIG power-on
        stub.write(RegisterValue(address, 0x7F, 0x00))
        #expect(stub.read(address, 0x00) == 0xEA)
        #expect(stub.read(address, 0x06) == 0x41)
    }

    @Test func icm20948PreloadNeedsTheBanks() {
        // Loaded without banks, the bank-2 GYRO_SMPLRT_DIV preload overwrites WHO_AM_I: the run
        // would fail at identification, which is why run.sh checks the stub's bank parameters.
        let flat = StubModel(banks: [], preloaded: StubFixture.preload)
        #expect(flat.read(ICM20948Fixture.address, 0x00) != 0xEA)
    }

    @Test func gyroscopeCountsDecodeToTheDatasheetScale() {
        let stub = StubModel(preloaded: StubFixture.preload)
        func words(_ bytes: [UInt8], bigEndian: Bool) -> [Int] {
            stride(from: 0, to: bytes.count, by: 2).map { i in
                let (high, low) = bigEndian ? (bytes[i], bytes[i + 1]) : (bytes[i + 1], bytes[i])
                return Int(Int16(bitPattern: UInt16(high) << 8 | UInt16(low)))
            }
        }
        // ICM-20948: the 14-byte burst from ACCEL_XOUT_H (bank 0); gyroscope words 3...5 at 16.4 LSB/dps.
        let icm = words(stub.readBlock(ICM20948Fixture.address, 0x2D, count: 14), bigEndian: true)
        #expect(Double(icm[3]) / 16.4 == ICM20948Fixture.rotationRate.x)
        #expect(Double(icm[4]) / 16.4 == ICM20948Fixture.rotationRate.y)
        #expect(Double(icm[5]) / 16.4 == ICM20948Fixture.rotationRate.z)
        #expect(Double(icm[0]) / 8192 * 9.806_65 == ICM20948Fixture.acceleration.x)
        // LSM6DSOX: the 14-byte burst from OUT_TEMP_L; gyroscope words 1...3 at 70 mdps/LSB.
        let lsm = words(stub.readBlock(LSM6DSOXFixture.address, 0x20, count: 14), bigEndian: false)
        #expect(Double(lsm[1]) * 0.070 == LSM6DSOXFixture.rotationRate.x)
        #expect(Double(lsm[2]) * 0.070 == LSM6DSOXFixture.rotationRate.y)
        #expect(Double(lsm[3]) * 0.070 == LSM6DSOXFixture.rotationRate.z)
        #expect(lsm[0] == Int(LSM6DSOXFixture.temperatureCount))
        #expect(stub.read(LSM6DSOXFixture.address, 0x1E) & 0x02 != 0)  // STATUS_REG GDA
    }

    @Test func readbackSelectsBank2OnlyAroundTheBank2Registers() throws {
        let lines = StubFixture.readback.map(\.description)
        let select2 = try #require(lines.firstIndex(of: "select 0x68 0x7f 0x20"))
        let select0 = try #require(lines.firstIndex(of: "select 0x68 0x7f 0x00"))
        #expect(select2 < select0)
        #expect(lines[select2 + 1..<select0] == ICM20948Fixture.gyroscopeConfigured.bank2.map(\.description)[...])
        #expect(lines.contains("0x68 0x00 0xea"))  // WHO_AM_I read in bank 0
        #expect(lines.filter { $0.hasPrefix("select") }.count == 2)
    }

    @Test func theGuestsBankParametersNameAStubChip() {
        #expect(StubFixture.banks.map(\.description) == ["0x68:0x7f:0x30:0x00:0x7e"])
        #expect(StubFixture.chipAddresses.contains(ICM20948Fixture.address))
    }

    @Test func gyroscopeChecksRunAfterTheirChipsAccelerometerChecks() throws {
        // DriverFixtures.finalState expects the gyroscope configuration to be the one left behind.
        let names = HILChecks.all.map(\.name)
        let order = { (name: String) throws -> Int in try #require(names.firstIndex(of: name)) }
        #expect(try order("driver-lsm6dsox") < order("driver-lsm6dsox-gyroscope"))
        #expect(try order("driver-icm20948") < order("driver-icm20948-gyroscope"))
        #expect(try order("driver-ak09916") < order("driver-icm20948-gyroscope"))  // it configures the ICM-20948 too
    }
}
