#if canImport(NMEA)
import NMEA
#endif

/// Compass and accelerometer values for an ATT report. Every value is optional and left out when
/// `nil` or not finite.
public struct AttitudeInput: Sendable, Equatable {
    /// Device path (gpsd always names one).
    public var device: String?
    /// When the values were measured.
    public var time: UTCTime?
    /// `heading`: degrees true (needs the declination).
    public var heading: Double?
    /// `mheading`: degrees magnetic.
    public var magneticHeading: Double?
    /// `mag_st`: `.normal`, or `.calibrationAlarm` while uncalibrated.
    public var magnetometerStatus: GPSDSensorStatus?
    /// `pitch`: degrees.
    public var pitch: Double?
    /// `pitch_st`.
    public var pitchStatus: GPSDSensorStatus?
    /// `roll`: degrees.
    public var roll: Double?
    /// `roll_st`.
    public var rollStatus: GPSDSensorStatus?
    /// `dip`: magnetic inclination, degrees, positive when the field points down.
    public var dip: Double?
    /// `mag_x`, `mag_y`, `mag_z`, `mag_len`: the field, microtesla (gpsd leaves the unit to the device).
    public var magneticX: Double?
    /// See ``magneticX``.
    public var magneticY: Double?
    /// See ``magneticX``.
    public var magneticZ: Double?
    /// See ``magneticX``.
    public var magneticLength: Double?
    /// `acc_x`, `acc_y`, `acc_z`, `acc_len`: m/s^2.
    public var accelerationX: Double?
    /// See ``accelerationX``.
    public var accelerationY: Double?
    /// See ``accelerationX``.
    public var accelerationZ: Double?
    /// See ``accelerationX``.
    public var accelerationLength: Double?
    /// `gyro_x`, `gyro_y`, `gyro_z`: angular rate about the body axes, degrees per second.
    public var gyroX: Double?
    /// See ``gyroX``.
    public var gyroY: Double?
    /// See ``gyroX``.
    public var gyroZ: Double?
    /// `temp`: degrees Celsius.
    public var temperature: Double?

    /// Attitude values; omitted ones are left out of the report.
    public init(device: String? = nil, time: UTCTime? = nil, heading: Double? = nil, magneticHeading: Double? = nil,
                magnetometerStatus: GPSDSensorStatus? = nil, pitch: Double? = nil, pitchStatus: GPSDSensorStatus? = nil,
                roll: Double? = nil, rollStatus: GPSDSensorStatus? = nil, dip: Double? = nil,
                magneticX: Double? = nil, magneticY: Double? = nil, magneticZ: Double? = nil, magneticLength: Double? = nil,
                accelerationX: Double? = nil, accelerationY: Double? = nil, accelerationZ: Double? = nil,
                accelerationLength: Double? = nil, gyroX: Double? = nil, gyroY: Double? = nil, gyroZ: Double? = nil,
                temperature: Double? = nil) {
        self.device = device
        self.time = time
        self.heading = heading
        self.magneticHeading = magneticHeading
        self.magnetometerStatus = magnetometerStatus
        self.pitch = pitch
        self.pitchStatus = pitchStatus
        self.roll = roll
        self.rollStatus = rollStatus
        self.dip = dip
        self.magneticX = magneticX
        self.magneticY = magneticY
        self.magneticZ = magneticZ
        self.magneticLength = magneticLength
        self.accelerationX = accelerationX
        self.accelerationY = accelerationY
        self.accelerationZ = accelerationZ
        self.accelerationLength = accelerationLength
        self.gyroX = gyroX
        self.gyroY = gyroY
        self.gyroZ = gyroZ
        self.temperature = temperature
    }
}
