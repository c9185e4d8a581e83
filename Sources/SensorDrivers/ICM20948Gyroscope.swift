import HardwareInterfaces

extension ICM20948 {
    /// Gyroscope full-scale range (GYRO_FS_SEL, GYRO_CONFIG_1 bits 2:1) and its sensitivity
    /// (DS-000189 table 1: 131, 65.5, 32.8, 16.4 LSB/dps).
    public enum GyroscopeRange: UInt8, Sendable, CaseIterable {
        /// ±250 dps, 131 LSB/dps.
        case dps250 = 0
        /// ±500 dps, 65.5 LSB/dps.
        case dps500 = 1
        /// ±1000 dps, 32.8 LSB/dps.
        case dps1000 = 2
        /// ±2000 dps, 16.4 LSB/dps.
        case dps2000 = 3

        /// The exact scale in nano-degrees per second per count.
        public var scale: Scale {
            switch self {
            case .dps250: return .tenthCountsPerDegreePerSecond(1310)
            case .dps500: return .tenthCountsPerDegreePerSecond(655)
            case .dps1000: return .tenthCountsPerDegreePerSecond(328)
            case .dps2000: return .tenthCountsPerDegreePerSecond(164)
            }
        }

        /// The largest rate the range measures, degrees per second.
        public var fullScale: Double { 250 * Double(1 << Int(rawValue)) }
    }

    /// Gyroscope settings inside ``Configuration``.
    public struct GyroscopeConfiguration: Sendable, Hashable {
        /// Full-scale range.
        public var range: GyroscopeRange
        /// GYRO_SMPLRT_DIV: the output data rate is 1125 Hz / (1 + divider) while the DLPF is on.
        public var sampleRateDivider: UInt8
        /// The digital low-pass filter setting (GYRO_DLPFCFG 0...7, 196.6 Hz ... 361.4 Hz 3-dB
        /// bandwidth, DS-000189 table 16), or `nil` to bypass it (GYRO_FCHOICE = 0, 9 kHz).
        public var lowPassFilter: UInt8?

        /// Creates settings (default ±250 dps, divider 10 = 102.3 Hz, DLPF 1 = 151.8 Hz).
        public init(range: GyroscopeRange = .dps250, sampleRateDivider: UInt8 = 10, lowPassFilter: UInt8? = 1) {
            self.range = range
            self.sampleRateDivider = sampleRateDivider
            self.lowPassFilter = lowPassFilter
        }

        /// The output data rate in hertz (with the DLPF on).
        public var dataRate: Double { 1125 / (1 + Double(sampleRateDivider)) }

        /// The GYRO_CONFIG_1 value.
        var config1: UInt8 {
            var value = range.rawValue << 1
            if let dlpf = lowPassFilter { value |= dlpf << 3 | 0x01 }
            return value
        }
    }

    /// Reads accelerometer, gyroscope and temperature in one 14-byte burst from ACCEL_XOUT_H,
    /// so all three come from one sample; °C = raw / 333.87 + 21.
    public mutating func readInertial() throws(SensorError) -> InertialSample {
        guard let configuration, let gyroscope = configuration.gyroscope else {
            throw .unsupported(chip: chip, feature: "inertial reads with the gyroscope off (configure a gyroscope first)")
        }
        let bytes = try io.readBlock(Register.accelXOutH, count: 14)
        let a = configuration.range.scale
        let g = gyroscope.range.scale
        let acceleration = SensorVector(x: a.metresPerSecondSquared(int16BE(bytes, 0)), y: a.metresPerSecondSquared(int16BE(bytes, 2)),
                                        z: a.metresPerSecondSquared(int16BE(bytes, 4)))
        let rate = SensorVector(x: g.degreesPerSecond(int16BE(bytes, 6)), y: g.degreesPerSecond(int16BE(bytes, 8)),
                                z: g.degreesPerSecond(int16BE(bytes, 10)))
        let temperature = configuration.temperature ? Double(int16BE(bytes, 12)) / 333.87 + 21 : nil
        return InertialSample(acceleration: acceleration, rotationRate: rate, temperature: temperature)
    }

    /// Whether INT_STATUS_1 reports RAW_DATA_0_RDY (one flag for accelerometer and gyroscope).
    public func isGyroscopeDataReady() throws(SensorError) -> Bool {
        try io.read(Register.intStatus1) & 0x01 != 0
    }

    /// InvenSense criterion A for the gyroscope: the response must exceed this fraction of the
    /// factory response.
    public static let gyroscopeSelfTestMinimumRatio = 0.5
    /// Criterion B, when a factory code reads 0: the smallest response, dps.
    public static let gyroscopeSelfTestMinimumResponse = 60.0
    /// Criterion C: the largest rate of a still chip with self-test off, dps.
    public static let gyroscopeSelfTestMaximumOffset = 20.0

    /// InvenSense's gyroscope self-test: awake with every axis on, ±250 dps, DLPF 2, divider 0
    /// (1125 Hz); wait 20 ms and average ``selfTestSamples`` samples (each after RAW_DATA_0_RDY)
    /// with self-test off; set X/Y/ZGYRO_CTEN in GYRO_CONFIG_2, wait 20 ms and average again;
    /// clear them; read SELF_TEST_X/Y/Z_GYRO in bank 1. Each axis's response (on − off) must be
    /// more than ``gyroscopeSelfTestMinimumRatio`` of ``factoryResponse(code:)`` (or, when a code
    /// is 0, at least ``gyroscopeSelfTestMinimumResponse``), and the rate with self-test off at most
    /// ``gyroscopeSelfTestMaximumOffset`` (the chip must lie still). Every wait is bounded by
    /// ``polling``; the previous configuration is written again afterwards (or the chip put back to
    /// sleep), also when a step fails, and bank 0 is selected.
    public mutating func gyroscopeSelfTest() throws(SensorError) {
        guard let clock else {
            throw .unsupported(chip: chip, feature: "self-test without a clock (open it with init(bus:address:clock:))")
        }
        let saved = configuration
        let result: Result<(off: [Double], on: [Double], codes: [UInt8]), SensorError>
        do {
            result = .success(try measureSelfTest(InvenSenseSelfTest(
                powerManagement2: 0x00,  // every axis on
                bank2Setup: [(Register.gyroSampleRateDiv, 0x00), (Register.gyroConfig1, 2 << 3 | 0x01)],  // DLPF 2, ±250 dps, FCHOICE
                config2: Register.gyroConfig2, enable: 0x38, output: Register.gyroXOutH, codes: Register.selfTestXGyro), clock))
        } catch {
            result = .failure(error)
        }
        try io.write(Register.bankSelect, 0 << 4)
        if let saved {
            try configure(saved)
        } else {
            try powerDown()
        }
        let (off, on, codes) = try result.get()
        let factory = codes.map(Self.factoryResponse(code:))
        var failures: [String] = []
        for (index, axis) in ["X", "Y", "Z"].enumerated() {
            let response = on[index] - off[index]
            if factory.contains(nil) {
                let dps = response / 131
                if dps < Self.gyroscopeSelfTestMinimumResponse {
                    failures.append("gyroscope \(axis) response \(dps) dps below \(Self.gyroscopeSelfTestMinimumResponse) (no factory code)")
                }
            } else if let expected = factory[index] {
                let ratio = response / expected
                if !(ratio > Self.gyroscopeSelfTestMinimumRatio) {
                    failures.append("gyroscope \(axis) response \(response) counts is \(ratio) of the factory \(expected) (code \(codes[index])), not above \(Self.gyroscopeSelfTestMinimumRatio)")
                }
            }
            let offset = abs(off[index]) / 131
            if offset > Self.gyroscopeSelfTestMaximumOffset {
                failures.append("gyroscope \(axis) reads \(offset) dps at rest, above \(Self.gyroscopeSelfTestMaximumOffset)")
            }
        }
        guard failures.isEmpty else {
            throw .selfTestFailed(chip: chip, device: device, detail: failures.joined(separator: ", "))
        }
    }
}
