import HardwareInterfaces

/// One burst of raw sensor readings as the engine's sensor subsystem took it, before calibration
/// and mounting: what `fieldloc record` writes so that a replay runs calibration, mounting and the
/// attitude filter again. Vectors are in the chips' own axes.
public struct RawSensorSample: Sendable, Equatable {
    /// When the burst was read, on the engine's clock.
    public var takenAt: MonotonicInstant
    /// The accelerometer, g; `nil` when it was not read.
    public var acceleration: SIMD3<Double>?
    /// The gyroscope, degrees per second; `nil` when it was not read (no gyroscope, or a motion-only sample).
    public var rotationRate: SIMD3<Double>?
    /// The magnetometer, µT (uncalibrated); `nil` when it was not read (a motion-only sample).
    public var field: SIMD3<Double>?

    /// Creates a sample.
    public init(takenAt: MonotonicInstant, acceleration: SIMD3<Double>?, rotationRate: SIMD3<Double>?, field: SIMD3<Double>?) {
        self.takenAt = takenAt
        self.acceleration = acceleration
        self.rotationRate = rotationRate
        self.field = field
    }
}

/// One Bluetooth LE advertising report as the engine's beacon subsystem received it, copied out
/// of the scanner's borrowed buffer: what `fieldloc record` writes so that a replay parses,
/// ranges and monitors the beacons again.
public struct RecordedAdvert: Sendable, Equatable {
    /// The advertiser's address.
    public var address: BluetoothAddress
    /// Received signal strength, dBm; `nil` where the controller did not measure it.
    public var rssi: Int?
    /// The advertiser's transmit power, dBm, when the controller reported it.
    public var txPower: Int?
    /// Whether the report is a scan response.
    public var isScanResponse: Bool
    /// When it was received, on the engine's clock.
    public var receivedAt: MonotonicInstant
    /// The advertising data (the AD structures) as received.
    public var data: [UInt8]

    /// Creates a record.
    public init(address: BluetoothAddress, rssi: Int?, txPower: Int? = nil, isScanResponse: Bool = false,
                receivedAt: MonotonicInstant, data: [UInt8]) {
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
        self.isScanResponse = isScanResponse
        self.receivedAt = receivedAt
        self.data = data
    }
}
