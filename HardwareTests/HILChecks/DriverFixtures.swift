/// The other sensor chips as the guest's i2c-stub holds them, one namespace per driver: the
/// registers to preload (identity, status and data, at the sub-address each driver actually
/// sends), the counts they hold and the physical values those counts mean, computed here from
/// the datasheet scales, and the registers the driver's `configure` must leave behind.
///
/// i2c-stub has plain register files without device behaviour (see `StubFixture`): a value is
/// read back exactly as last written and block reads walk consecutive stub registers. Only the
/// ICM-20948 gets register banks (``ICM20948Fixture/banks``). Where a driver writes 0x00, the preload puts the chip's power-on value (or what a
/// previous user may have left) there first, so that a missing write is seen.
public enum DriverFixtures {
    /// Every chip's preload, after ``StubFixture``'s own.
    public static var preload: [RegisterValue] {
        LIS3MDLFixture.preload + LSM6DSOXFixture.preload + QMC5883LFixture.preload + ICM20948Fixture.preload
            + AK09916Fixture.preload + MMC5983MAFixture.preload
    }

    /// What every chip's registers hold after `fieldloc-hil` has run all checks, in the order the
    /// guest's `run.sh` reads them with `i2cget`. The gyroscope checks run after the
    /// accelerometer checks of the same chip, so their configuration is the one left.
    public static var finalState: [ReadbackStep] {
        (LIS3MDLFixture.configured + LSM6DSOXFixture.gyroscopeConfigured + QMC5883LFixture.configured).map(ReadbackStep.expect)
            + ICM20948Fixture.gyroscopeConfigured.readback
            + (AK09916Fixture.configured + MMC5983MAFixture.finalState).map(ReadbackStep.expect)
    }

    /// The stub's chip addresses for these drivers (the LSM303AGR's two come on top: 8 of the stub's 10).
    public static let addresses: [UInt8] = [
        LIS3MDLFixture.address, LSM6DSOXFixture.address, QMC5883LFixture.address,
        ICM20948Fixture.address, AK09916Fixture.address, MMC5983MAFixture.address,
    ]
}

/// ST LIS3MDL at 0x1c. Its driver sets bit 7 of the sub-address for bursts, so X/Y/Z are read
/// from stub registers 0xA8... and the temperature from 0xAE...
public enum LIS3MDLFixture {
    /// The chip's address (SDO/SA1 low).
    public static let address: UInt8 = 0x1C
    /// Counts X, Y, Z at ±8 G (3421 LSB/G).
    public static let counts: (x: Int16, y: Int16, z: Int16) = (1000, -2000, 3421)
    /// The field those counts mean: counts / 3421 G x 100 µT/G.
    public static let field: (x: Double, y: Double, z: Double) = (
        1000.0 / 3421 * 100, -2000.0 / 3421 * 100, 3421.0 / 3421 * 100
    )
    /// TEMP_OUT counts (8 LSB/°C, 0 at 25 °C).
    public static let temperatureCount: Int16 = 40
    /// 25 °C + 40 / 8.
    public static let temperature = 30.0

    /// Identity, status, data; CTRL_REG1/3 at their power-on values 0x10/0x03.
    public static var preload: [RegisterValue] {
        [
            RegisterValue(address, 0x0F, 0x3D),  // WHO_AM_I
            RegisterValue(address, 0x20, 0x10),  // CTRL_REG1 power-on
            RegisterValue(address, 0x22, 0x03),  // CTRL_REG3 power-on: power-down
            RegisterValue(address, 0x27, 0x08),  // STATUS_REG: ZYXDA
        ]
            + littleEndianWords(address, 0xA8, [counts.x, counts.y, counts.z])  // OUT_X_L | 0x80
            + littleEndianWords(address, 0xAE, [temperatureCount])              // TEMP_OUT_L | 0x80
    }

    /// After configure(continuous, 10 Hz, ±8 G, ultra-high performance, temperature on).
    public static let configured: [RegisterValue] = [
        RegisterValue(address, 0x20, 0xF0),  // CTRL_REG1: TEMP_EN, OM = UHP, DO = 10 Hz
        RegisterValue(address, 0x21, 0x20),  // CTRL_REG2: FS = ±8 G
        RegisterValue(address, 0x22, 0x00),  // CTRL_REG3: continuous
        RegisterValue(address, 0x23, 0x0C),  // CTRL_REG4: OMZ = UHP
        RegisterValue(address, 0x24, 0x40),  // CTRL_REG5: BDU
    ]
}

/// ST LSM6DSOX at 0x6a. Its driver relies on IF_INC, so bursts start at the plain sub-address:
/// OUT_TEMP (0x20), then the gyroscope (OUTX_L_G, 0x22) and the accelerometer (OUTX_L_A, 0x28).
public enum LSM6DSOXFixture {
    /// The chip's address (SA0 low).
    public static let address: UInt8 = 0x6A
    /// Counts X, Y, Z at ±4 g (0.122 mg/LSB).
    public static let counts: (x: Int16, y: Int16, z: Int16) = (1000, -2000, 8197)
    /// counts x 0.122 mg x 9.80665 m/s² per g.
    public static let acceleration: (x: Double, y: Double, z: Double) = (
        1000 * 0.000_122 * 9.806_65, -2000 * 0.000_122 * 9.806_65, 8197 * 0.000_122 * 9.806_65
    )
    /// OUT_TEMP counts (256 LSB/°C, 0 at 25 °C).
    public static let temperatureCount: Int16 = 1280
    /// 25 °C + 1280 / 256.
    public static let temperature = 30.0

    /// Gyroscope counts X, Y, Z at ±2000 dps (70 mdps/LSB, DS12814 table 2); Z is near full scale.
    public static let gyroscopeCounts: (x: Int16, y: Int16, z: Int16) = (1000, -2000, 28571)
    /// counts x 70 mdps.
    public static let rotationRate: (x: Double, y: Double, z: Double) = (1000 * 0.070, -2000 * 0.070, 28571 * 0.070)

    /// Identity, status, data; CTRL3_C at its power-on 0x04 and the gyroscope left on (CTRL2_G 0x40).
    public static var preload: [RegisterValue] {
        [
            RegisterValue(address, 0x0F, 0x6C),  // WHO_AM_I
            RegisterValue(address, 0x11, 0x40),  // CTRL2_G: gyroscope 104 Hz, as a previous user may leave it
            RegisterValue(address, 0x12, 0x04),  // CTRL3_C power-on: IF_INC
            RegisterValue(address, 0x1E, 0x07),  // STATUS_REG: XLDA, GDA, TDA
        ]
            + littleEndianWords(address, 0x20, [temperatureCount])                                   // OUT_TEMP_L
            + littleEndianWords(address, 0x22, [gyroscopeCounts.x, gyroscopeCounts.y, gyroscopeCounts.z])  // OUTX_L_G
            + littleEndianWords(address, 0x28, [counts.x, counts.y, counts.z])                        // OUTX_L_A
    }

    /// After configure(104 Hz, ±4 g, temperature on).
    public static let configured: [RegisterValue] = [
        RegisterValue(address, 0x10, 0x48),  // CTRL1_XL: ODR 104 Hz, FS_XL 10 = ±4 g
        RegisterValue(address, 0x11, 0x00),  // CTRL2_G: gyroscope off
        RegisterValue(address, 0x12, 0x44),  // CTRL3_C: BDU, IF_INC
    ]

    /// After configure(104 Hz, ±4 g, temperature on, gyroscope 208 Hz, ±2000 dps, LPF1 FTYPE 3),
    /// following the accelerometer-only configuration (CTRL2_G 0x00, CTRL4_C and CTRL6_C 0x00).
    public static let gyroscopeConfigured: [RegisterValue] = [
        RegisterValue(address, 0x10, 0x48),  // CTRL1_XL: ODR 104 Hz, FS_XL 10 = ±4 g
        RegisterValue(address, 0x11, 0x5C),  // CTRL2_G: ODR_G 0101 = 208 Hz, FS_G 11 = ±2000 dps
        RegisterValue(address, 0x12, 0x44),  // CTRL3_C: BDU, IF_INC
        RegisterValue(address, 0x13, 0x02),  // CTRL4_C: LPF1_SEL_G
        RegisterValue(address, 0x15, 0x03),  // CTRL6_C: FTYPE 011
    ]
}

/// QST QMC5883L at 0x0d. Its detection reads 0x0d = 0xff, soft-resets (0x0a = 0x80), expects
/// Control 1 (0x09) to read 0x00 and 0x0b to keep the 0x01 written. The stub has no reset, so
/// 0x09 is preloaded with the chip's reset value 0x00 and must still hold it when the check
/// opens the driver (it runs once per boot); 0x0b keeps what is written, as on the chip.
public enum QMC5883LFixture {
    /// The chip's fixed address.
    public static let address: UInt8 = 0x0D
    /// Counts X, Y, Z at ±2 G (12000 LSB/G).
    public static let counts: (x: Int16, y: Int16, z: Int16) = (3600, -1800, 5400)
    /// counts / 12000 G x 100 µT/G.
    public static let field: (x: Double, y: Double, z: Double) = (30.0, -15.0, 45.0)

    /// Identity, status (DRDY, no overflow), data, and Control 1 at its reset value.
    public static var preload: [RegisterValue] {
        littleEndianWords(address, 0x00, [counts.x, counts.y, counts.z])  // X, Y, Z LSB/MSB
            + [
                RegisterValue(address, 0x06, 0x01),  // status: DRDY
                RegisterValue(address, 0x09, 0x00),  // Control 1 after reset (read by the detection)
                RegisterValue(address, 0x0D, 0xFF),  // chip ID
            ]
    }

    /// After detection and configure(continuous, 50 Hz, ±2 G, OSR 256).
    public static let configured: [RegisterValue] = [
        RegisterValue(address, 0x09, 0x45),  // Control 1: OSR 256, ±2 G, 50 Hz, continuous
        RegisterValue(address, 0x0A, 0x80),  // Control 2: the detection's soft reset landed
        RegisterValue(address, 0x0B, 0x01),  // SET/RESET period
    ]
}

/// TDK ICM-20948 at 0x68. Output registers are big-endian. Its registers are in four banks
/// chosen by REG_BANK_SEL (0x7f, bits 5:4), and the guest loads i2c-stub with banks for this chip
/// (``banks``: bank_reg 0x7f, bank_mask 0x30, registers 0x00...0x7e banked, 0x7f in every bank).
/// So bank 2's GYRO_SMPLRT_DIV (0x00), GYRO_CONFIG_1 (0x01), ACCEL_SMPLRT_DIV_1/2 (0x10, 0x11) and
/// ACCEL_CONFIG (0x14) are registers of their own beside bank 0's WHO_AM_I (0x00), as on the chip.
/// The stub switches banks only for byte and word transfers: its block reads always reach bank 0,
/// which is where every burst of the driver starts (ACCEL_XOUT_H, 0x2d), so a burst read in the
/// wrong bank would not be seen here.
public enum ICM20948Fixture {
    /// The chip's address (AD0 low).
    public static let address: UInt8 = 0x68
    /// The i2c-stub module parameters for this chip's banks.
    public static let banks = StubBanks(address: address, register: 0x7F, mask: 0x30, start: 0x00, end: 0x7E)
    /// REG_BANK_SEL with bank 2 selected.
    static let bank2 = RegisterValue(address, 0x7F, 0x20)
    /// Accelerometer counts X, Y, Z at ±4 g (8192 LSB/g).
    public static let counts: (x: Int16, y: Int16, z: Int16) = (4096, -2048, 8200)
    /// counts / 8192 g x 9.80665 m/s² per g.
    public static let acceleration: (x: Double, y: Double, z: Double) = (
        4096.0 / 8192 * 9.806_65, -2048.0 / 8192 * 9.806_65, 8200.0 / 8192 * 9.806_65
    )
    /// Gyroscope counts X, Y, Z, between the accelerometer and the temperature in the 14-byte
    /// burst: the accelerometer-only read must skip them, the inertial read decodes them.
    public static let gyroscopeCounts: (x: Int16, y: Int16, z: Int16) = (0x1234, -0x0567, 0x7FFF)
    /// counts / 16.4 dps at ±2000 dps (DS-000189 table 1; 0x7fff is full scale).
    public static let rotationRate: (x: Double, y: Double, z: Double) = (0x1234 / 16.4, -0x0567 / 16.4, 0x7FFF / 16.4)
    /// TEMP_OUT counts (333.87 LSB/°C, 0 at 21 °C).
    public static let temperatureCount: Int16 = 3339
    /// 21 °C + 3339 / 333.87.
    public static let temperature = 21 + 3339 / 333.87

    /// In bank 0: identity, status, data, PWR_MGMT_1 asleep (power-on), I2C_MST_EN set by a
    /// previous user; then bank 2 selected (and left selected, as a previous user may leave it)
    /// and its GYRO_SMPLRT_DIV, GYRO_CONFIG_1 and ACCEL_CONFIG at their power-on 0x00, 0x01, 0x01.
    /// Without banks in the stub, the bank-2 0x00 would overwrite WHO_AM_I and `init` would fail.
    public static var preload: [RegisterValue] {
        [
            RegisterValue(address, 0x00, 0xEA),  // WHO_AM_I
            RegisterValue(address, 0x03, 0x20),  // USER_CTRL: I2C_MST_EN
            RegisterValue(address, 0x06, 0x41),  // PWR_MGMT_1 power-on: SLEEP
            RegisterValue(address, 0x1A, 0x01),  // INT_STATUS_1: RAW_DATA_0_RDY
        ]
            + bigEndianWords(address, 0x2D, [counts.x, counts.y, counts.z, gyroscopeCounts.x, gyroscopeCounts.y,
                                             gyroscopeCounts.z, temperatureCount])
            + [
                bank2,                               // REG_BANK_SEL: bank 2
                RegisterValue(address, 0x00, 0x00),  // GYRO_SMPLRT_DIV (bank 2) power-on
                RegisterValue(address, 0x01, 0x01),  // GYRO_CONFIG_1 (bank 2) power-on
                RegisterValue(address, 0x14, 0x01),  // ACCEL_CONFIG (bank 2) power-on
            ]
    }

    /// The sample-rate divider the checks configure (1125 / 292 Hz).
    public static let sampleRateDivider: UInt16 = 0x123
    /// The gyroscope divider the gyroscope check configures (1125 / 22 = 51.1 Hz).
    public static let gyroscopeSampleRateDivider: UInt8 = 0x15

    /// After configure(±4 g, divider 0x123, DLPF 3, temperature on), in bank 0 again.
    public static let configured = ICM20948Registers(
        bank0: [
            RegisterValue(address, 0x00, 0xEA),  // WHO_AM_I: untouched by the bank-2 writes
            RegisterValue(address, 0x03, 0x00),  // USER_CTRL: I2C master off
            RegisterValue(address, 0x06, 0x01),  // PWR_MGMT_1: awake, auto clock
            RegisterValue(address, 0x07, 0x07),  // PWR_MGMT_2: gyroscope off
            RegisterValue(address, 0x0F, 0x02),  // INT_PIN_CFG: BYPASS_EN
            RegisterValue(address, 0x7F, 0x00),  // REG_BANK_SEL: bank 0
        ],
        bank2: [
            RegisterValue(address, 0x10, 0x01),  // ACCEL_SMPLRT_DIV_1
            RegisterValue(address, 0x11, 0x23),  // ACCEL_SMPLRT_DIV_2
            RegisterValue(address, 0x14, 0x1B),  // ACCEL_CONFIG: DLPFCFG 3, ±4 g, FCHOICE
        ]
    )

    /// After configure(the same accelerometer settings, gyroscope ±2000 dps, divider 0x15, DLPF 5).
    public static let gyroscopeConfigured = ICM20948Registers(
        bank0: [
            RegisterValue(address, 0x00, 0xEA),  // WHO_AM_I: not overwritten by GYRO_SMPLRT_DIV
            RegisterValue(address, 0x03, 0x00),  // USER_CTRL: I2C master off
            RegisterValue(address, 0x06, 0x01),  // PWR_MGMT_1: awake, auto clock
            RegisterValue(address, 0x07, 0x00),  // PWR_MGMT_2: every accelerometer and gyroscope axis on
            RegisterValue(address, 0x0F, 0x02),  // INT_PIN_CFG: BYPASS_EN
            RegisterValue(address, 0x7F, 0x00),  // REG_BANK_SEL: bank 0
        ],
        bank2: [
            RegisterValue(address, 0x00, 0x15),  // GYRO_SMPLRT_DIV: 21
            RegisterValue(address, 0x01, 0x2F),  // GYRO_CONFIG_1: GYRO_DLPFCFG 5, GYRO_FS_SEL 11 = ±2000 dps, FCHOICE
            RegisterValue(address, 0x10, 0x01),  // ACCEL_SMPLRT_DIV_1
            RegisterValue(address, 0x11, 0x23),  // ACCEL_SMPLRT_DIV_2
            RegisterValue(address, 0x14, 0x1B),  // ACCEL_CONFIG: DLPFCFG 3, ±4 g, FCHOICE
        ]
    )
}

/// ICM-20948 registers expected in bank 0 and in bank 2.
public struct ICM20948Registers: Sendable, Hashable {
    /// Bank-0 registers, REG_BANK_SEL included.
    public var bank0: [RegisterValue]
    /// Bank-2 registers.
    public var bank2: [RegisterValue]

    /// Read bank 0, select bank 2 and read it, select bank 0 again (as on the chip).
    public var readback: [ReadbackStep] {
        bank0.map(ReadbackStep.expect) + [.select(ICM20948Fixture.bank2)] + bank2.map(ReadbackStep.expect)
            + [.select(RegisterValue(ICM20948Fixture.address, 0x7F, 0x00))]
    }
}

/// AKM AK09916 at 0x0c (answers because the ICM-20948 sets BYPASS_EN; the stub answers anyway).
public enum AK09916Fixture {
    /// The chip's fixed address.
    public static let address: UInt8 = 0x0C
    /// Counts X, Y, Z (0.15 µT/LSB).
    public static let counts: (x: Int16, y: Int16, z: Int16) = (-400, 1000, -2000)
    /// counts x 0.15 µT.
    public static let field: (x: Double, y: Double, z: Double) = (-60.0, 150.0, -300.0)

    /// WIA1/WIA2, ST1 (DRDY), HXL...HZH, TMPS, ST2 (no HOFL), CNTL2 power-down.
    public static var preload: [RegisterValue] {
        [
            RegisterValue(address, 0x00, 0x48),  // WIA1
            RegisterValue(address, 0x01, 0x09),  // WIA2
            RegisterValue(address, 0x10, 0x01),  // ST1: DRDY
        ]
            + littleEndianWords(address, 0x11, [counts.x, counts.y, counts.z])
            + [
                RegisterValue(address, 0x17, 0x5A),  // TMPS (dummy)
                RegisterValue(address, 0x18, 0x00),  // ST2: no HOFL
                RegisterValue(address, 0x31, 0x00),  // CNTL2 power-on: power-down
            ]
    }

    /// After configure(.continuous100Hz).
    public static let configured: [RegisterValue] = [
        RegisterValue(address, 0x31, 0x08),  // CNTL2: continuous 100 Hz
    ]
}

/// MEMSIC MMC5983MA at 0x30: 18-bit offset binary, Xout0 = bits 17:10, Xout1 = bits 9:2,
/// XYZout2 bits 7:6 / 5:4 / 3:2 = bits 1:0 of X / Y / Z. Its control registers are write-only on
/// the chip; the stub reads them back, which is what the check uses.
public enum MMC5983MAFixture {
    /// The chip's fixed address.
    public static let address: UInt8 = 0x30
    /// 18-bit counts X, Y, Z (131072 = zero field, 16384 counts per gauss).
    public static let counts: (x: Int, y: Int, z: Int) = (131_072 + 8193, 131_072 - 4098, 131_072 + 16387)
    /// (counts − 131072) / 16384 G x 100 µT/G.
    public static let field: (x: Double, y: Double, z: Double) = (
        8193.0 / 16384 * 100, -4098.0 / 16384 * 100, 16387.0 / 16384 * 100
    )
    /// Tout counts (0.8 °C per count, −75 °C at 0).
    public static let temperatureCount: UInt8 = 131
    /// 0.8 x 131 − 75 °C.
    public static let temperature = 0.8 * 131 - 75

    /// Product ID, data, temperature, status (Meas_M_Done, Meas_T_Done); Internal Control 2 with
    /// continuous mode left on (50 Hz), which the single-shot configuration must clear.
    public static var preload: [RegisterValue] {
        let (x, y, z) = counts
        func byte(_ value: Int) -> UInt8 { UInt8(truncatingIfNeeded: value) }
        return [
            RegisterValue(address, 0x00, byte(x >> 10)),  // Xout0
            RegisterValue(address, 0x01, byte(x >> 2)),   // Xout1
            RegisterValue(address, 0x02, byte(y >> 10)),  // Yout0
            RegisterValue(address, 0x03, byte(y >> 2)),   // Yout1
            RegisterValue(address, 0x04, byte(z >> 10)),  // Zout0
            RegisterValue(address, 0x05, byte(z >> 2)),   // Zout1
            RegisterValue(address, 0x06, byte((x & 3) << 6 | (y & 3) << 4 | (z & 3) << 2)),  // XYZout2
            RegisterValue(address, 0x07, temperatureCount),  // Tout
            RegisterValue(address, 0x08, 0x03),  // Status: Meas_M_Done, Meas_T_Done
            RegisterValue(address, 0x0B, 0x0C),  // Internal Control 2: Cmm_en, 50 Hz
            RegisterValue(address, 0x2F, 0x30),  // Product ID
        ]
    }

    /// After configure(single-shot, 200 Hz bandwidth, automatic SET/RESET, temperature on).
    public static let configured: [RegisterValue] = [
        RegisterValue(address, 0x09, 0x20),  // Internal Control 0: Auto_SR_en
        RegisterValue(address, 0x0A, 0x01),  // Internal Control 1: BW 200 Hz
        RegisterValue(address, 0x0B, 0x00),  // Internal Control 2: continuous off
    ]

    /// After a single-shot read with temperature: the last trigger written is TM_T with Auto_SR_en kept.
    public static let finalState: [RegisterValue] = [
        RegisterValue(address, 0x09, 0x22),  // Internal Control 0: Auto_SR_en | TM_T
        RegisterValue(address, 0x0A, 0x01),
        RegisterValue(address, 0x0B, 0x00),
    ]
}

/// Registers `start`, `start + 1`, ... holding `words` low byte first.
func littleEndianWords(_ address: UInt8, _ start: UInt8, _ words: [Int16]) -> [RegisterValue] {
    words.enumerated().flatMap { index, word in
        let bits = UInt16(bitPattern: word)
        let register = start &+ UInt8(truncatingIfNeeded: 2 * index)
        return [RegisterValue(address, register, UInt8(bits & 0xFF)), RegisterValue(address, register &+ 1, UInt8(bits >> 8))]
    }
}

/// Registers `start`, `start + 1`, ... holding `words` high byte first.
func bigEndianWords(_ address: UInt8, _ start: UInt8, _ words: [Int16]) -> [RegisterValue] {
    words.enumerated().flatMap { index, word in
        let bits = UInt16(bitPattern: word)
        let register = start &+ UInt8(truncatingIfNeeded: 2 * index)
        return [RegisterValue(address, register, UInt8(bits >> 8)), RegisterValue(address, register &+ 1, UInt8(bits & 0xFF))]
    }
}
