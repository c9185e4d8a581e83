import Devices
import HardwareInterfaces

/// ST LIS3MDL three-axis magnetometer (DocID024204), at 0x1C (SDO/SA1 low) or 0x1E.
///
/// Multi-byte reads set bit 7 of the sub-address (`0x28 | 0x80`) to auto-increment; the
/// sub-address is sent exactly so, which is also what a register-map test double must answer.
public struct LIS3MDL: Magnetometer {
    /// Register addresses and values from the datasheet.
    public enum Register {
        /// WHO_AM_I.
        public static let whoAmI: UInt8 = 0x0F
        /// The value WHO_AM_I reads.
        public static let identity: UInt8 = 0x3D
        /// CTRL_REG1: TEMP_EN, OM, DO, FAST_ODR, ST.
        public static let ctrl1: UInt8 = 0x20
        /// CTRL_REG2: FS, REBOOT, SOFT_RST.
        public static let ctrl2: UInt8 = 0x21
        /// CTRL_REG3: LP, SIM, MD.
        public static let ctrl3: UInt8 = 0x22
        /// CTRL_REG4: OMZ, BLE.
        public static let ctrl4: UInt8 = 0x23
        /// CTRL_REG5: FAST_READ, BDU.
        public static let ctrl5: UInt8 = 0x24
        /// STATUS_REG (bit 3 ZYXDA).
        public static let status: UInt8 = 0x27
        /// OUT_X_L; X, Y, Z little-endian follow.
        public static let outXL: UInt8 = 0x28
        /// TEMP_OUT_L (8 LSB/°C, 0 at 25 °C).
        public static let tempOutL: UInt8 = 0x2E
        /// Sub-address bit 7: auto-increment in a multi-byte read.
        public static let autoIncrement: UInt8 = 0x80
    }

    /// The two addresses the SDO/SA1 pin selects.
    public static let addresses: [UInt8] = [0x1C, 0x1E]

    /// Full-scale range, with the datasheet's exact sensitivity.
    public enum Range: UInt8, Sendable, CaseIterable {
        /// ±4 G, 6842 LSB/G.
        case gauss4 = 0
        /// ±8 G, 3421 LSB/G.
        case gauss8 = 1
        /// ±12 G, 2281 LSB/G.
        case gauss12 = 2
        /// ±16 G, 1711 LSB/G.
        case gauss16 = 3

        /// Counts per gauss.
        public var countsPerGauss: Int64 {
            switch self {
            case .gauss4: return 6842
            case .gauss8: return 3421
            case .gauss12: return 2281
            case .gauss16: return 1711
            }
        }

        /// The exact scale.
        public var scale: Scale { .countsPerGauss(countsPerGauss) }
    }

    /// Operating mode of the X/Y (OM) and Z (OMZ) channels: noise against current.
    public enum Performance: UInt8, Sendable, CaseIterable {
        /// Low-power.
        case lowPower = 0
        /// Medium performance.
        case medium = 1
        /// High performance.
        case high = 2
        /// Ultra-high performance.
        case ultraHigh = 3
    }

    /// Output data rate (DO bits, or FAST_ODR whose rate the performance mode sets).
    public enum DataRate: Sendable, Hashable, CaseIterable {
        /// 0.625 Hz.
        case hz0_625
        /// 1.25 Hz.
        case hz1_25
        /// 2.5 Hz.
        case hz2_5
        /// 5 Hz.
        case hz5
        /// 10 Hz.
        case hz10
        /// 20 Hz.
        case hz20
        /// 40 Hz.
        case hz40
        /// 80 Hz.
        case hz80
        /// FAST_ODR: 1000 Hz low-power, 560 Hz medium, 300 Hz high, 155 Hz ultra-high.
        case fast

        var bits: UInt8 {
            switch self {
            case .hz0_625: return 0 << 2
            case .hz1_25: return 1 << 2
            case .hz2_5: return 2 << 2
            case .hz5: return 3 << 2
            case .hz10: return 4 << 2
            case .hz20: return 5 << 2
            case .hz40: return 6 << 2
            case .hz80: return 7 << 2
            case .fast: return 0x02
            }
        }
    }

    /// Measurement mode (MD bits of CTRL_REG3).
    public enum Mode: UInt8, Sendable, CaseIterable {
        /// Continuous conversion.
        case continuous = 0
        /// One conversion per ``LIS3MDL/read()``, then idle.
        case singleShot = 1
        /// Power-down.
        case powerDown = 3
    }

    /// Settings for ``configure(_:)``.
    public struct Configuration: Sendable, Hashable {
        /// Measurement mode.
        public var mode: Mode
        /// Output data rate.
        public var dataRate: DataRate
        /// Full-scale range.
        public var range: Range
        /// X/Y and Z performance mode.
        public var performance: Performance
        /// Whether the temperature sensor runs (TEMP_EN).
        public var temperature: Bool

        /// Creates settings; the defaults are the datasheet's continuous heading setup
        /// (ultra-high performance, 10 Hz, ±4 G, temperature on).
        public init(mode: Mode = .continuous, dataRate: DataRate = .hz10, range: Range = .gauss4,
                    performance: Performance = .ultraHigh, temperature: Bool = true) {
            self.mode = mode
            self.dataRate = dataRate
            self.range = range
            self.performance = performance
            self.temperature = temperature
        }
    }

    let io: RegisterIO
    let clock: any MonotonicClock
    /// The wait for a single-shot conversion (a conversion takes at most ~12 ms in UHP).
    public var polling = ReadyPolling(attempts: 20, interval: .milliseconds(2))
    /// Shadow copies of CTRL_REG1...CTRL_REG5 as last written (power-on defaults at first).
    public private(set) var ctrl: [UInt8] = [0x10, 0x00, 0x03, 0x00, 0x00]
    /// The configuration last written.
    public private(set) var configuration = Configuration(mode: .powerDown)

    /// The chip.
    public var chip: SensorChip { .lis3mdl }
    /// `LIS3MDL at /dev/i2c-1@0x1c`.
    public var device: String { io.device }

    /// Opens the chip at `address` and checks WHO_AM_I before anything else.
    public init(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock) throws(SensorError) {
        io = RegisterIO(bus: bus, address: address, chip: .lis3mdl)
        self.clock = clock
        try identify()
    }

    /// Checks WHO_AM_I (0x0F) = 0x3D.
    public func identify() throws(SensorError) {
        try io.expectIdentity()
    }

    /// Writes CTRL_REG1, 2, 4, 5 (BDU on) and then CTRL_REG3, so the mode starts last.
    public mutating func configure(_ configuration: Configuration) throws(SensorError) {
        let ctrl1 = (configuration.temperature ? 0x80 : 0) | configuration.performance.rawValue << 5 | configuration.dataRate.bits
        let ctrl2 = configuration.range.rawValue << 5
        let ctrl3 = configuration.mode == .singleShot ? Mode.powerDown.rawValue : configuration.mode.rawValue
        let ctrl4 = configuration.performance.rawValue << 2
        let ctrl5: UInt8 = 0x40
        try set(0, ctrl1)
        try set(1, ctrl2)
        try set(3, ctrl4)
        try set(4, ctrl5)
        try set(2, ctrl3)
        self.configuration = configuration
    }

    /// Reads X, Y, Z (and the temperature when enabled). In single-shot mode it starts one
    /// conversion (MD = 01) and waits for ZYXDA within ``polling``.
    public mutating func read() throws(SensorError) -> MagnetometerSample {
        switch configuration.mode {
        case .powerDown:
            throw .unsupported(chip: chip, feature: "reading while powered down (configure a mode first)")
        case .singleShot:
            try set(2, Mode.singleShot.rawValue)
            try io.waitFor(0x08, in: Register.status, polling: polling, clock: clock)
        case .continuous:
            break
        }
        let bytes = try io.readBlock(Register.outXL | Register.autoIncrement, count: 6)
        let scale = configuration.range.scale
        let field = SensorVector(x: scale.microtesla(int16LE(bytes, 0)), y: scale.microtesla(int16LE(bytes, 2)),
                            z: scale.microtesla(int16LE(bytes, 4)))
        var temperature: Double?
        if configuration.temperature {
            let t = try io.readBlock(Register.tempOutL | Register.autoIncrement, count: 2)
            temperature = 25 + Double(int16LE(t, 0)) / 8
        }
        return MagnetometerSample(field: field, temperature: temperature)
    }

    /// Whether STATUS_REG reports ZYXDA.
    public func isDataReady() throws(SensorError) -> Bool {
        try io.read(Register.status) & 0x08 != 0
    }

    /// Writes MD = 11 (power-down).
    public mutating func powerDown() throws(SensorError) {
        try set(2, Mode.powerDown.rawValue)
        configuration.mode = .powerDown
    }

    /// The self-test window, in gauss of change between self-test on and off at ±12 G
    /// (ST's LIS3MDL self-test procedure): X and Y 1...3 G, Z 0.1...1 G.
    public static let selfTestLimits: (x: ClosedRange<Double>, y: ClosedRange<Double>, z: ClosedRange<Double>) =
        (1...3, 1...3, 0.1...1)

    /// ST's self-test: ±12 G, 80 Hz, continuous; average 5 samples (after discarding one) with
    /// ST off, set ST, wait 60 ms, average 5 with ST on, and compare the change with
    /// ``selfTestLimits``. Every wait for data is bounded by ``polling``. The configuration
    /// in force before is written again afterwards.
    public mutating func selfTest() throws(SensorError) {
        let saved = configuration
        let result: Result<(SensorVector, SensorVector), SensorError>
        do {
            try set(0, 0x1C)  // low-power X/Y, 80 Hz, ST off
            try set(1, Range.gauss12.rawValue << 5)
            try set(3, 0x00)
            try set(4, 0x40)
            try set(2, Mode.continuous.rawValue)
            clock.sleep(for: .milliseconds(20))
            let off = try averageCounts()
            try set(0, 0x1D)  // ST on
            clock.sleep(for: .milliseconds(60))
            let on = try averageCounts()
            try set(0, 0x1C)
            result = .success((off, on))
        } catch {
            result = .failure(error)
        }
        if saved.mode == .powerDown {
            try set(2, Mode.powerDown.rawValue)
        } else {
            try configure(saved)
        }
        let (off, on) = try result.get()
        let perGauss = Double(Range.gauss12.countsPerGauss)
        let change = (x: abs(on.x - off.x) / perGauss, y: abs(on.y - off.y) / perGauss, z: abs(on.z - off.z) / perGauss)
        let limits = Self.selfTestLimits
        var failures: [String] = []
        if !limits.x.contains(change.x) { failures.append("X change \(change.x) G outside \(limits.x)") }
        if !limits.y.contains(change.y) { failures.append("Y change \(change.y) G outside \(limits.y)") }
        if !limits.z.contains(change.z) { failures.append("Z change \(change.z) G outside \(limits.z)") }
        guard failures.isEmpty else {
            throw .selfTestFailed(chip: chip, device: device, detail: failures.joined(separator: ", "))
        }
    }

    /// Discards one sample, then averages five, each after ZYXDA; in counts.
    private func averageCounts() throws(SensorError) -> SensorVector {
        var sum = SensorVector.zero
        for index in 0..<6 {
            try io.waitFor(0x08, in: Register.status, polling: polling, clock: clock)
            let b = try io.readBlock(Register.outXL | Register.autoIncrement, count: 6)
            if index == 0 { continue }
            sum.x += Double(int16LE(b, 0))
            sum.y += Double(int16LE(b, 2))
            sum.z += Double(int16LE(b, 4))
        }
        return SensorVector(x: sum.x / 5, y: sum.y / 5, z: sum.z / 5)
    }

    /// Changes the range with one write to CTRL_REG2 (from the shadow copy).
    public mutating func setRange(_ range: Range) throws(SensorError) {
        try set(1, ctrl[1] & ~0x60 | range.rawValue << 5)
        configuration.range = range
    }

    /// Changes the output data rate with one write to CTRL_REG1 (from the shadow copy).
    public mutating func setDataRate(_ rate: DataRate) throws(SensorError) {
        try set(0, ctrl[0] & ~0x1E | rate.bits)
        configuration.dataRate = rate
    }

    private mutating func set(_ index: Int, _ value: UInt8) throws(SensorError) {
        try io.write(Register.ctrl1 + UInt8(index), value)
        ctrl[index] = value
    }
}
