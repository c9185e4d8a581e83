import Devices
import HardwareInterfaces

/// MEMSIC MMC5983MA magnetometer (datasheet Rev A), at 0x30.
///
/// Output is 18-bit offset binary: X = Xout0 << 10 | Xout1 << 2 | XYZout2 bits 7:6 (Y in
/// bits 5:4, Z in 3:2); field [G] = (X - 131072) / 16384. The control registers are write-only,
/// so the driver keeps shadow copies. ``readWithOffsetRemoval()`` measures after a SET and
/// after a RESET pulse and returns `(set - reset) / 2`, free of the bridge offset.
public struct MMC5983MA: Magnetometer {
    /// Register addresses and bits from the datasheet.
    public enum Register {
        /// The fixed address.
        public static let address: UInt8 = 0x30
        /// Xout0; Xout1, Yout0/1, Zout0/1, XYZout2 follow (7 bytes).
        public static let xOut0: UInt8 = 0x00
        /// Tout: °C = 0.8 * raw - 75.
        public static let tOut: UInt8 = 0x07
        /// Status: bit 0 Meas_M_Done, bit 1 Meas_T_Done, bit 4 OTP_Rd_Done.
        public static let status: UInt8 = 0x08
        /// Internal Control 0: TM_M, TM_T, INT_meas_done_en, SET, RESET, Auto_SR_en, OTP_Read.
        public static let control0: UInt8 = 0x09
        /// Internal Control 1: BW bits 1:0, inhibits, SW_RST bit 7.
        public static let control1: UInt8 = 0x0A
        /// Internal Control 2: Cm_freq bits 2:0, Cmm_en bit 3, Prd_set bits 6:4, En_prd_set bit 7.
        public static let control2: UInt8 = 0x0B
        /// Internal Control 3: self-test currents, SPI 3-wire.
        public static let control3: UInt8 = 0x0C
        /// Product ID.
        public static let productID: UInt8 = 0x2F
        /// The value Product ID reads.
        public static let identity: UInt8 = 0x30
        /// Control 0: start a magnetic measurement.
        public static let tmM: UInt8 = 0x01
        /// Control 0: start a temperature measurement.
        public static let tmT: UInt8 = 0x02
        /// Control 0: SET pulse.
        public static let set: UInt8 = 0x08
        /// Control 0: RESET pulse.
        public static let reset: UInt8 = 0x10
        /// Control 0: automatic SET/RESET per measurement.
        public static let autoSetReset: UInt8 = 0x20
        /// Control 2: continuous-mode enable.
        public static let continuousEnable: UInt8 = 0x08
    }

    /// 16384 counts per gauss at 18 bits.
    public static let scale = Scale.countsPerGauss(16384)
    /// The 18-bit output for zero field.
    public static let nullValue = 131_072

    /// Filter bandwidth (BW bits), which sets the measurement time.
    public enum Bandwidth: UInt8, Sendable, CaseIterable {
        /// 100 Hz, 8 ms per measurement.
        case hz100 = 0
        /// 200 Hz, 4 ms.
        case hz200 = 1
        /// 400 Hz, 2 ms.
        case hz400 = 2
        /// 800 Hz, 0.5 ms.
        case hz800 = 3
    }

    /// Continuous-mode rates (Cm_freq bits).
    public enum ContinuousRate: UInt8, Sendable, CaseIterable {
        /// 1 Hz.
        case hz1 = 1
        /// 10 Hz.
        case hz10 = 2
        /// 20 Hz.
        case hz20 = 3
        /// 50 Hz.
        case hz50 = 4
        /// 100 Hz.
        case hz100 = 5
        /// 200 Hz (bandwidth 200 Hz or more).
        case hz200 = 6
        /// 1000 Hz (bandwidth 800 Hz only).
        case hz1000 = 7
    }

    /// Measurement mode.
    public enum Mode: Sendable, Hashable {
        /// One measurement per ``MMC5983MA/read()``.
        case singleShot
        /// Continuous at a rate.
        case continuous(ContinuousRate)
        /// No measurements (the power-on state).
        case powerDown
    }

    /// Settings for ``configure(_:)``.
    public struct Configuration: Sendable, Hashable {
        /// Measurement mode.
        public var mode: Mode
        /// Filter bandwidth.
        public var bandwidth: Bandwidth
        /// Automatic SET/RESET per measurement (Auto_SR_en).
        public var autoSetReset: Bool
        /// Whether ``MMC5983MA/read()`` also measures the temperature (single-shot mode).
        public var temperature: Bool

        /// Creates settings (default single-shot, 100 Hz bandwidth, automatic SET/RESET, temperature on).
        public init(mode: Mode = .singleShot, bandwidth: Bandwidth = .hz100, autoSetReset: Bool = true,
                    temperature: Bool = true) {
            self.mode = mode
            self.bandwidth = bandwidth
            self.autoSetReset = autoSetReset
            self.temperature = temperature
        }
    }

    let io: RegisterIO
    let clock: any MonotonicClock
    /// The wait for Meas_M_Done / Meas_T_Done (8 ms at 100 Hz bandwidth).
    public var polling = ReadyPolling(attempts: 20, interval: .milliseconds(1))
    /// Shadow copy of Internal Control 0 without its self-clearing trigger bits.
    public private(set) var control0: UInt8 = 0x00
    /// Shadow copy of Internal Control 1.
    public private(set) var control1: UInt8 = 0x00
    /// Shadow copy of Internal Control 2.
    public private(set) var control2: UInt8 = 0x00
    /// The configuration last written.
    public private(set) var configuration = Configuration(mode: .powerDown)

    /// The chip.
    public var chip: SensorChip { .mmc5983ma }
    /// `MMC5983MA at /dev/i2c-1@0x30`.
    public var device: String { io.device }

    /// Opens the chip at `address` (0x30) and checks the Product ID first.
    public init(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock) throws(SensorError) {
        io = RegisterIO(bus: bus, address: address, chip: .mmc5983ma)
        self.clock = clock
        try identify()
    }

    /// Checks Product ID (0x2F) = 0x30.
    public func identify() throws(SensorError) {
        try io.expectIdentity()
    }

    /// Writes Internal Control 1 (bandwidth), Internal Control 2 (continuous mode and rate, or
    /// off) and Internal Control 0 (Auto_SR_en). 200 Hz needs bandwidth 200 Hz or more and
    /// 1000 Hz needs 800 Hz.
    public mutating func configure(_ configuration: Configuration) throws(SensorError) {
        var c2: UInt8 = 0
        if case .continuous(let rate) = configuration.mode {
            if rate == .hz200 && configuration.bandwidth == .hz100 {
                throw .unsupported(chip: chip, feature: "200 Hz continuous rate at 100 Hz bandwidth")
            }
            if rate == .hz1000 && configuration.bandwidth != .hz800 {
                throw .unsupported(chip: chip, feature: "1000 Hz continuous rate below 800 Hz bandwidth")
            }
            c2 = Register.continuousEnable | rate.rawValue
        }
        let c1 = configuration.bandwidth.rawValue
        let c0: UInt8 = configuration.autoSetReset ? Register.autoSetReset : 0
        try io.write(Register.control1, c1)
        control1 = c1
        try io.write(Register.control2, c2)
        control2 = c2
        try io.write(Register.control0, c0)
        control0 = c0
        self.configuration = configuration
    }

    /// Reads one sample. In single-shot mode it starts a measurement (TM_M with the Auto_SR_en
    /// shadow bit), waits for Meas_M_Done within ``polling`` and reads 7 bytes from 0x00; with
    /// temperature on it then measures the temperature (TM_T, Meas_T_Done, Tout). In continuous
    /// mode it reads the latest field.
    public mutating func read() throws(SensorError) -> MagnetometerSample {
        switch configuration.mode {
        case .powerDown:
            throw .unsupported(chip: chip, feature: "reading while powered down (configure a mode first)")
        case .continuous:
            return MagnetometerSample(field: Self.microtesla(try readCounts()))
        case .singleShot:
            let counts = try measureCounts()
            var temperature: Double?
            if configuration.temperature {
                try io.write(Register.control0, control0 | Register.tmT)
                try io.waitFor(0x02, in: Register.status, polling: polling, clock: clock)
                temperature = 0.8 * Double(try io.read(Register.tOut)) - 75
            }
            return MagnetometerSample(field: Self.microtesla(counts), temperature: temperature)
        }
    }

    /// Measures after a SET pulse and after a RESET pulse and returns the field
    /// `(set - reset) / 2` and the bridge offset `(set + reset) / 2 - 131072`, both in µT.
    /// Works in single-shot or power-down mode (not while continuous mode runs).
    public mutating func readWithOffsetRemoval() throws(SensorError) -> (sample: MagnetometerSample, offset: SensorVector) {
        if case .continuous = configuration.mode {
            throw .unsupported(chip: chip, feature: "SET/RESET offset removal in continuous mode")
        }
        let base = control0 & ~Register.autoSetReset
        try io.write(Register.control0, base | Register.set)
        clock.sleep(for: .microseconds(500))
        let set = try measureCounts(control: base)
        try io.write(Register.control0, base | Register.reset)
        clock.sleep(for: .microseconds(500))
        let reset = try measureCounts(control: base)
        let field = (x: (set.x - reset.x) / 2, y: (set.y - reset.y) / 2, z: (set.z - reset.z) / 2)
        let s = Self.scale
        let offset = SensorVector(x: s.microtesla((set.x + reset.x) / 2 - Self.nullValue),
                             y: s.microtesla((set.y + reset.y) / 2 - Self.nullValue),
                             z: s.microtesla((set.z + reset.z) / 2 - Self.nullValue))
        let sample = MagnetometerSample(field: SensorVector(x: s.microtesla(field.x), y: s.microtesla(field.y), z: s.microtesla(field.z)))
        return (sample, offset)
    }

    /// The window for the magnitude of the field the SET/RESET check measures, in µT.
    ///
    /// Not a datasheet limit (MEMSIC publishes no self-test limits for this part): Earth's field is
    /// 22...67 µT everywhere (WMM), so a working bridge whose SET and RESET pulses flip its
    /// polarity measures at least 10 µT; more than 200 µT means a magnet nearby, which makes the
    /// check meaningless.
    public static let selfTestFieldLimits: ClosedRange<Double> = 10...200

    /// The largest 18-bit count; a reading of 0 or this value is clipped.
    static let fullScaleCount = 262_143

    /// There is no documented self-test for this part (the St_enp/St_enm coil currents of
    /// Internal Control 3 come without limits), so this runs the SET/RESET bridge check: a SET
    /// pulse and a measurement, a RESET pulse and a measurement (as
    /// ``readWithOffsetRemoval()``), then Internal Control 0 is written back from its shadow
    /// copy. It fails when a reading is clipped (0 or 262143 counts: a saturated or dead bridge
    /// or ADC) or when the field `(set - reset) / 2` has a magnitude outside
    /// ``selfTestFieldLimits`` (the pulses did not flip the bridge, or a magnet is near). The
    /// detail names every axis with its SET, RESET and offset counts. Every wait is bounded by
    /// ``polling``. Not available while continuous mode runs.
    public mutating func selfTest() throws(SensorError) {
        if case .continuous = configuration.mode {
            throw .unsupported(chip: chip, feature: "the SET/RESET self-test in continuous mode")
        }
        let base = control0 & ~Register.autoSetReset
        let result: Result<(set: (x: Int, y: Int, z: Int), reset: (x: Int, y: Int, z: Int)), SensorError>
        do {
            try io.write(Register.control0, base | Register.set)
            clock.sleep(for: .microseconds(500))
            let set = try measureCounts(control: base)
            try io.write(Register.control0, base | Register.reset)
            clock.sleep(for: .microseconds(500))
            let reset = try measureCounts(control: base)
            result = .success((set, reset))
        } catch {
            result = .failure(error)
        }
        try io.write(Register.control0, control0)
        let (set, reset) = try result.get()
        var failures: [String] = []
        let axes = [("X", set.x, reset.x), ("Y", set.y, reset.y), ("Z", set.z, reset.z)]
        for (axis, s, r) in axes where [s, r].contains(where: { $0 == 0 || $0 == Self.fullScaleCount }) {
            failures.append("\(axis) clipped (SET \(s), RESET \(r) counts, allowed 1...\(Self.fullScaleCount - 1))")
        }
        let field = axes.map { Self.scale.microtesla(($0.1 - $0.2) / 2) }
        let magnitude = (field[0] * field[0] + field[1] * field[1] + field[2] * field[2]).squareRoot()
        if failures.isEmpty && !Self.selfTestFieldLimits.contains(magnitude) {
            let perAxis = axes.map { "\($0.0) SET \($0.1) RESET \($0.2) offset \(($0.1 + $0.2) / 2 - Self.nullValue)" }
            failures.append("field \(magnitude) µT outside \(Self.selfTestFieldLimits) µT (\(perAxis.joined(separator: "; ")) counts)")
        }
        guard failures.isEmpty else {
            throw .selfTestFailed(chip: chip, device: device, detail: failures.joined(separator: ", "))
        }
    }

    private func measureCounts(control: UInt8? = nil) throws(SensorError) -> (x: Int, y: Int, z: Int) {
        try io.write(Register.control0, (control ?? control0) | Register.tmM)
        try io.waitFor(0x01, in: Register.status, polling: polling, clock: clock)
        return try readCounts()
    }

    /// The 18-bit unsigned counts of X, Y, Z.
    private func readCounts() throws(SensorError) -> (x: Int, y: Int, z: Int) {
        let b = try io.readBlock(Register.xOut0, count: 7)
        let x = Int(b[0]) << 10 | Int(b[1]) << 2 | Int(b[6] >> 6 & 0x03)
        let y = Int(b[2]) << 10 | Int(b[3]) << 2 | Int(b[6] >> 4 & 0x03)
        let z = Int(b[4]) << 10 | Int(b[5]) << 2 | Int(b[6] >> 2 & 0x03)
        return (x, y, z)
    }

    private static func microtesla(_ counts: (x: Int, y: Int, z: Int)) -> SensorVector {
        SensorVector(x: scale.microtesla(counts.x - nullValue), y: scale.microtesla(counts.y - nullValue),
                z: scale.microtesla(counts.z - nullValue))
    }

    /// Whether Status reports Meas_M_Done.
    public func isDataReady() throws(SensorError) -> Bool {
        try io.read(Register.status) & 0x01 != 0
    }

    /// Turns continuous mode off (Internal Control 2 = 0).
    public mutating func powerDown() throws(SensorError) {
        try io.write(Register.control2, 0x00)
        control2 = 0x00
        configuration.mode = .powerDown
    }
}
