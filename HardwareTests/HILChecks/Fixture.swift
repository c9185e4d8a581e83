import HardwareInterfaces

/// One register of one I2C device: what the guest preloads into i2c-stub, or what a check
/// expects to find there after configuring a sensor.
public struct RegisterValue: Sendable, Hashable, CustomStringConvertible {
    /// The 7-bit device address.
    public var address: UInt8
    /// The register.
    public var register: UInt8
    /// The byte.
    public var value: UInt8

    /// Creates a register value.
    public init(_ address: UInt8, _ register: UInt8, _ value: UInt8) {
        self.address = address
        self.register = register
        self.value = value
    }

    /// `0x1e 0x68 0xc8`: the arguments `i2cset -y BUS` and `i2cget -y BUS` take.
    public var description: String { "\(hex(address)) \(hex(register)) \(hex(value))" }
}

/// One line of the guest's `i2cget` read-back (`fieldloc-hil --configuration`), in order.
public enum ReadbackStep: Sendable, Hashable, CustomStringConvertible {
    /// Read the register and require the value: `0x68 0x06 0x01`.
    case expect(RegisterValue)
    /// Write the register first, to select a register bank: `select 0x68 0x7f 0x20`.
    case select(RegisterValue)

    /// The line `run.sh` reads: `ADDR REG VALUE` (i2cget and compare) or `select ADDR REG VALUE` (i2cset).
    public var description: String {
        switch self {
        case .expect(let value): return value.description
        case .select(let value): return "select \(value)"
        }
    }
}

/// A chip whose registers i2c-stub keeps in banks: the module parameters `bank_reg`,
/// `bank_mask`, `bank_start` and `bank_end` (arrays in `chip_addr` order). A byte write to
/// `register` selects bank `(value & mask) >> shift`; in banks other than 0, byte and word
/// transfers to `start...end` reach that bank's own registers. I2C block transfers ignore the
/// banks and always reach bank 0 (drivers/i2c/i2c-stub.c).
public struct StubBanks: Sendable, Hashable, CustomStringConvertible {
    /// The chip's 7-bit address.
    public var address: UInt8
    /// The bank-select register (`bank_reg`).
    public var register: UInt8
    /// The bank bits of that register (`bank_mask`, contiguous).
    public var mask: UInt8
    /// The first banked register (`bank_start`).
    public var start: UInt8
    /// The last banked register (`bank_end`).
    public var end: UInt8

    /// Creates a bank layout.
    public init(address: UInt8, register: UInt8, mask: UInt8, start: UInt8, end: UInt8) {
        self.address = address
        self.register = register
        self.mask = mask
        self.start = start
        self.end = end
    }

    /// `0x68:0x7f:0x30:0x00:0x7e`, the form the guest's `/init` takes (`hil_i2c_banks=`).
    public var description: String { [address, register, mask, start, end].map(hex).joined(separator: ":") }
}

/// The LSM303AGR as the guest's i2c-stub holds it: identity and data registers preloaded by the
/// guest's `run.sh` with `i2cset` (`fieldloc-hil --fixture` prints them), so the checks read
/// values that an independent tool wrote.
///
/// i2c-stub has no ST auto-increment bit: the accelerometer driver's burst read from
/// `0x28 | 0x80` reads stub registers 0xA8... and the temperature read from `0x0C | 0x80` reads
/// 0x8C..., so the data is preloaded where the driver actually reads. The magnetometer die
/// increments by itself, and its driver reads from 0x68.
public enum StubFixture {
    /// Accelerometer die address.
    public static let accelerometer: UInt8 = 0x19
    /// Magnetometer die address.
    public static let magnetometer: UInt8 = 0x1E

    /// Magnetometer counts X, Y, Z (1.5 mG = 0.15 µT per count).
    public static let magnetometerCounts: (x: Int16, y: Int16, z: Int16) = (200, -100, 300)
    /// The field those counts mean, in microtesla.
    public static let magneticField: (x: Double, y: Double, z: Double) = (30.0, -15.0, 45.0)

    /// Accelerometer counts X, Y, Z, right-justified 12-bit (high-resolution, ±2 g: 0.98 mg per count).
    public static let accelerometerCounts: (x: Int16, y: Int16, z: Int16) = (-50, 25, 1000)
    /// The acceleration those counts mean, in m/s² (0.98 mg x counts x 9.80665).
    public static let acceleration: (x: Double, y: Double, z: Double) = (
        -50 * 0.000_98 * 9.806_65, 25 * 0.000_98 * 9.806_65, 1000 * 0.000_98 * 9.806_65
    )
    /// The die temperature: 25 °C + 20 / 4 (10 bits left-justified, 4 LSB per °C).
    public static let temperature = 30.0

    /// The registers to preload.
    public static var preload: [RegisterValue] {
        var values = [
            RegisterValue(accelerometer, 0x0F, 0x33),  // WHO_AM_I_A
            RegisterValue(magnetometer, 0x4F, 0x40),   // WHO_AM_I_M
            RegisterValue(accelerometer, 0x27, 0x08),  // STATUS_REG_A: ZYXDA
            RegisterValue(magnetometer, 0x67, 0x08),   // STATUS_REG_M: ZYXDA
        ]
        // OUT_X_L_A... at 0xA8 (0x28 | 0x80), left-justified by 4 bits (12-bit high-resolution).
        values += littleEndian(accelerometer, 0xA8, [accelerometerCounts.x, accelerometerCounts.y, accelerometerCounts.z]
                                    .map { Int16(truncatingIfNeeded: Int($0) << 4) })
        // OUT_TEMP_L_A at 0x8C (0x0C | 0x80): 20 counts of 1/4 °C, left-justified by 6 bits.
        values += littleEndian(accelerometer, 0x8C, [Int16(20 << 6)])
        // OUTX_L_REG_M... at 0x68.
        values += littleEndian(magnetometer, 0x68, [magnetometerCounts.x, magnetometerCounts.y, magnetometerCounts.z])
        // The other drivers' chips (LIS3MDL, LSM6DSOX, QMC5883L, ICM-20948, AK09916, MMC5983MA).
        values += DriverFixtures.preload
        return values
    }

    /// What the configuration check writes and expects to read back (also checked with `i2cget`
    /// by the guest's `run.sh` after `fieldloc-hil` exits): accelerometer 100 Hz, ±2 g,
    /// high-resolution, temperature on; magnetometer continuous 10 Hz with offset cancellation.
    public static let configuration: [RegisterValue] = [
        RegisterValue(accelerometer, 0x1F, 0xC0),  // TEMP_CFG_REG_A: temperature sensor on
        RegisterValue(accelerometer, 0x23, 0x88),  // CTRL_REG4_A: BDU, ±2 g, HR
        RegisterValue(accelerometer, 0x20, 0x57),  // CTRL_REG1_A: 100 Hz, X/Y/Z on
        RegisterValue(magnetometer, 0x62, 0x10),   // CFG_REG_C_M: BDU
        RegisterValue(magnetometer, 0x61, 0x02),   // CFG_REG_B_M: OFF_CANC
        RegisterValue(magnetometer, 0x60, 0x80),   // CFG_REG_A_M: COMP_TEMP_EN, 10 Hz, continuous
    ]

    /// Every register the guest's `run.sh` reads back with `i2cget` after `fieldloc-hil` exits:
    /// ``configuration`` and what the other drivers' checks leave behind
    /// (``DriverFixtures/finalState``), with the bank selections the ICM-20948 needs.
    public static var readback: [ReadbackStep] { configuration.map(ReadbackStep.expect) + DriverFixtures.finalState }

    /// The chips the guest's `/init` loads into i2c-stub with register banks.
    public static var banks: [StubBanks] { [ICM20948Fixture.banks] }

    /// The addresses i2c-stub must hold (its limit is 10): the LSM303AGR's two dies, then
    /// ``DriverFixtures/addresses``. The guest's `/init` passes the same list as `chip_addr`.
    public static var chipAddresses: [UInt8] { [magnetometer, accelerometer] + DriverFixtures.addresses }

    private static func littleEndian(_ address: UInt8, _ start: UInt8, _ words: [Int16]) -> [RegisterValue] {
        var values: [RegisterValue] = []
        for (index, word) in words.enumerated() {
            let bits = UInt16(bitPattern: word)
            let register = start &+ UInt8(truncatingIfNeeded: 2 * index)
            values.append(RegisterValue(address, register, UInt8(bits & 0xFF)))
            values.append(RegisterValue(address, register &+ 1, UInt8(bits >> 8)))
        }
        return values
    }
}

/// What the host GNSS simulator (`HardwareTests/hil/gnss_sim.py`) sends: GGA and RMC at 10 Hz
/// at 48°07.038' N, 11°31.000' E, 545.4 m, and `$PMTK001,nnn,3` for every `$PMTKnnn` command.
public enum GNSSFixture {
    /// Latitude in degrees.
    public static let latitude = 48.0 + 7.038 / 60
    /// Longitude in degrees.
    public static let longitude = 11.0 + 31.0 / 60
    /// Altitude above mean sea level in metres.
    public static let altitudeMSL = 545.4
    /// The command the check sends: set the fix interval to 1000 ms.
    public static let command = "$PMTK220,1000*1F\r\n"
    /// The start of the acknowledgement the receiver answers with (3 = success).
    public static let acknowledgement = "$PMTK001,220,3"

    /// A test command of the host simulator (`HardwareTests/hil/gnss_sim.py`), with its checksum
    /// and CR LF: `NOISE,3` (line noise after every epoch for 3 s) or `SILENT,2` (nothing for 2 s).
    public static func simulatorCommand(_ body: String) -> String {
        let text = "PFLSIM," + body
        let checksum = text.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        let hex = Array("0123456789ABCDEF")
        return "$\(text)*\(hex[Int(checksum >> 4)])\(hex[Int(checksum & 15)])\r\n"
    }

    /// The start of the simulator's acknowledgement of a test command (`NOISE` or `SILENT`).
    public static func simulatorAcknowledgement(_ command: String) -> String { "$PFLSIM,ACK," + command }
}
