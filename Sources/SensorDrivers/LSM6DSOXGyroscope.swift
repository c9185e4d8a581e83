import HardwareInterfaces

extension LSM6DSOX {
    /// Gyroscope full-scale range (CTRL2_G FS_G bits 3:2, FS_125 bit 1) and its sensitivity
    /// (DS12814 table 2).
    public enum GyroscopeRange: Sendable, CaseIterable {
        /// ±125 dps, 4.375 mdps/LSB.
        case dps125
        /// ±250 dps, 8.75 mdps/LSB.
        case dps250
        /// ±500 dps, 17.5 mdps/LSB.
        case dps500
        /// ±1000 dps, 35 mdps/LSB.
        case dps1000
        /// ±2000 dps, 70 mdps/LSB.
        case dps2000

        var bits: UInt8 {
            switch self {
            case .dps125: return 0b0010
            case .dps250: return 0b00 << 2
            case .dps500: return 0b01 << 2
            case .dps1000: return 0b10 << 2
            case .dps2000: return 0b11 << 2
            }
        }

        /// The exact scale in nano-degrees per second per count.
        public var scale: Scale {
            switch self {
            case .dps125: return .microDegreesPerSecond(4_375)
            case .dps250: return .microDegreesPerSecond(8_750)
            case .dps500: return .microDegreesPerSecond(17_500)
            case .dps1000: return .microDegreesPerSecond(35_000)
            case .dps2000: return .microDegreesPerSecond(70_000)
            }
        }

        /// The largest rate the range measures, degrees per second.
        public var fullScale: Double {
            switch self {
            case .dps125: return 125
            case .dps250: return 250
            case .dps500: return 500
            case .dps1000: return 1000
            case .dps2000: return 2000
            }
        }
    }

    /// Gyroscope settings inside ``Configuration``.
    public struct GyroscopeConfiguration: Sendable, Hashable {
        /// The gyroscope output data rate (ODR_G uses the accelerometer's codes, 12.5 Hz...6.66 kHz).
        public var dataRate: DataRate
        /// Full-scale range.
        public var range: GyroscopeRange
        /// The LPF1 bandwidth code FTYPE (0...7; its cut-off depends on the ODR, DS12814 table 58),
        /// or `nil` to leave LPF1 off (LPF1_SEL_G = 0).
        public var lowPassFilter: UInt8?

        /// Creates settings (default 104 Hz, ±250 dps, LPF1 off).
        public init(dataRate: DataRate = .hz104, range: GyroscopeRange = .dps250, lowPassFilter: UInt8? = nil) {
            self.dataRate = dataRate
            self.range = range
            self.lowPassFilter = lowPassFilter
        }

        /// The CTRL2_G value.
        var ctrl2G: UInt8 { dataRate.rawValue << 4 | range.bits }
    }

    /// Reads temperature (when enabled), gyroscope and accelerometer in one auto-increment burst
    /// from OUT_TEMP_L (14 bytes) or OUTX_L_G (12 bytes). With BDU set the outputs are not
    /// updated mid-burst, so both vectors belong to the same sample time.
    public mutating func readInertial() throws(SensorError) -> InertialSample {
        guard configuration.dataRate != nil, let gyroscope = configuration.gyroscope else {
            throw .unsupported(chip: chip, feature: "inertial reads without both the accelerometer and the gyroscope on")
        }
        let withTemperature = configuration.temperature
        let bytes = try io.readBlock(withTemperature ? Register.outTempL : Register.outXLG, count: withTemperature ? 14 : 12)
        let base = withTemperature ? 2 : 0
        let g = gyroscope.range.scale
        let a = configuration.range.scale
        let rate = SensorVector(x: g.degreesPerSecond(int16LE(bytes, base)), y: g.degreesPerSecond(int16LE(bytes, base + 2)),
                                z: g.degreesPerSecond(int16LE(bytes, base + 4)))
        let acceleration = SensorVector(x: a.metresPerSecondSquared(int16LE(bytes, base + 6)),
                                        y: a.metresPerSecondSquared(int16LE(bytes, base + 8)),
                                        z: a.metresPerSecondSquared(int16LE(bytes, base + 10)))
        let temperature = withTemperature ? 25 + Double(int16LE(bytes, 0)) / 256 : nil
        return InertialSample(acceleration: acceleration, rotationRate: rate, temperature: temperature)
    }

    /// Whether STATUS_REG reports GDA (bit 1).
    public func isGyroscopeDataReady() throws(SensorError) -> Bool {
        try io.read(Register.status) & 0x02 != 0
    }

    /// The gyroscope self-test window at ±2000 dps: the change of each axis between self-test
    /// off and on, in degrees per second (DS12814 table 2 and ST's `lsm6dsox_self_test.c`:
    /// 150...700 dps).
    public static let gyroscopeSelfTestLimits: ClosedRange<Double> = 150...700

    /// ST's gyroscope self-test (`lsm6dsox_self_test.c`): BDU and IF_INC, 208 Hz, ±2000 dps;
    /// wait 100 ms, discard one sample and average five with ST_G off; set ST_G = 01 (positive,
    /// CTRL5_C bits 3:2), wait 100 ms, discard one and average five; clear ST_G. Each axis must
    /// change by ``gyroscopeSelfTestLimits``. Every wait for data (GDA) is bounded by
    /// ``polling``; CTRL3_C and CTRL2_G are written back afterwards, also when a step fails.
    /// Throws ``SensorError/unsupported(chip:feature:)`` when the driver has no clock.
    public mutating func gyroscopeSelfTest() throws(SensorError) {
        try runSelfTest(STSelfTest(control: Register.ctrl2G, setting: 0x5C, savedIndex: 1, enable: 0x04, ready: 0x02,
                                   output: Register.outXLG, thousandthsPerCount: 70, limits: Self.gyroscopeSelfTestLimits,
                                   label: "gyroscope ", unit: "dps"))
    }
}
