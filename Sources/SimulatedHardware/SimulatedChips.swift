import Devices
import HardwareInterfaces

// The simulator's columns of the device catalogue, keyed by its enums (the catalogue sits below
// this target): the register model of each sensor chip and the emulator of each receiver model.

extension SensorChip {
    /// Attaches this chip's simulated register model to `bus` at `address`. A host chip brings
    /// its companions at their addresses (an ICM-20948 its AK09916 at 0x0C, answering only while
    /// the ICM's bypass is open); a companion attached alone always answers.
    public func attachSimulated(at address: I2CAddress, on bus: SimulatedI2CBus) {
        switch self {
        case .lsm303agrAccelerometer: bus.attach(SimulatedRegisterDevice(LSM303AGRAccelerometerModel()), at: address)
        case .lsm303agrMagnetometer: bus.attach(SimulatedRegisterDevice(LSM303AGRMagnetometerModel()), at: address)
        case .lis3mdl: bus.attach(SimulatedRegisterDevice(LIS3MDLModel()), at: address)
        case .lsm6dsox: bus.attach(SimulatedRegisterDevice(LSM6DSOXModel()), at: address)
        case .qmc5883l: bus.attach(SimulatedRegisterDevice(QMC5883LModel()), at: address)
        case .mmc5983ma: bus.attach(SimulatedRegisterDevice(MMC5983MAModel()), at: address)
        case .ak09916: bus.attach(SimulatedRegisterDevice(AK09916Model()), at: address)
        case .icm20948:
            let (icm, ak) = makeICM20948()
            bus.attach(icm, at: address)
            if let akAddress = SensorChip.ak09916.addresses.first.flatMap({ I2CAddress($0) }) { bus.attach(ak, at: akAddress) }
        }
    }
}

/// Points a simulated chip's sensing elements at the world: a magnetometer's at `field`, an
/// accelerometer's at `acceleration`, a gyroscope's at `rotationRate`. Any other device is left
/// as it is.
public func connectSimulatedSensor(_ device: any SimulatedI2CDevice, field: PhysicalSource, acceleration: PhysicalSource,
                                   rotationRate: PhysicalSource) {
    if let d = device as? SimulatedRegisterDevice<LSM303AGRMagnetometerModel> { d.withModel { $0.field = field } }
    if let d = device as? SimulatedRegisterDevice<LIS3MDLModel> { d.withModel { $0.field = field } }
    if let d = device as? SimulatedRegisterDevice<QMC5883LModel> { d.withModel { $0.field = field } }
    if let d = device as? SimulatedRegisterDevice<AK09916Model> { d.withModel { $0.field = field } }
    if let d = device as? SimulatedRegisterDevice<MMC5983MAModel> { d.withModel { $0.field = field } }
    if let d = device as? SimulatedRegisterDevice<LSM303AGRAccelerometerModel> { d.withModel { $0.acceleration = acceleration } }
    if let d = device as? SimulatedRegisterDevice<LSM6DSOXModel> {
        d.withModel {
            $0.acceleration = acceleration
            $0.angularRate = rotationRate
        }
    }
    if let d = device as? SimulatedRegisterDevice<ICM20948Model> {
        d.withModel {
            $0.acceleration = acceleration
            $0.angularRate = rotationRate
        }
    }
}

extension ReceiverEmulator.Family {
    /// The emulator that imitates `model`: u-blox M8 with legacy CFG messages, later u-blox
    /// generations with configuration keys, CASIC, and MediaTek for the rest (a generic NMEA
    /// receiver, and the families the emulator does not speak, stream NMEA as an MT3339 does).
    public init(model: ReceiverModel) {
        switch model {
        case .ubloxM8: self = .ublox8
        case .ubloxM9: self = .ublox9
        case .ubloxM10, .ubloxF9, .ublox6, .ublox7: self = .ublox10
        case .at6558: self = .casic
        case .mt3339, .airoha, .goke, .genericNMEA: self = .mediatek
        }
    }

    /// The catalogue's model the emulator imitates; its power profile is the emulator's.
    public var model: ReceiverModel {
        switch self {
        case .ublox8: return .ubloxM8
        case .ublox9: return .ubloxM9
        case .ublox10: return .ubloxM10
        case .mediatek: return .mt3339
        case .casic: return .at6558
        }
    }
}
