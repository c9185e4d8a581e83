import HardwareInterfaces
import SensorDrivers
import Testing

/// The motion latch registers, re-declared from the datasheets: LSM303AGR DocID027765
/// (interrupt generator 1) and LSM6DSOX DS12814 / AN5272 (wake-up).
private enum AGR {
    static let address: UInt8 = 0x19
    static let whoAmI: UInt8 = 0x0F
    static let tempCfg: UInt8 = 0x1F, ctrl1: UInt8 = 0x20, ctrl2: UInt8 = 0x21, ctrl3: UInt8 = 0x22
    static let ctrl4: UInt8 = 0x23, ctrl5: UInt8 = 0x24, reference: UInt8 = 0x26
    static let int1Cfg: UInt8 = 0x30, int1Src: UInt8 = 0x31, int1Ths: UInt8 = 0x32, int1Duration: UInt8 = 0x33
}

private enum DSOX {
    static let address: UInt8 = 0x6A
    static let whoAmI: UInt8 = 0x0F
    static let ctrl1XL: UInt8 = 0x10, ctrl2G: UInt8 = 0x11, ctrl3C: UInt8 = 0x12, ctrl4C: UInt8 = 0x13
    static let ctrl6C: UInt8 = 0x15, ctrl8XL: UInt8 = 0x17, wakeUpSrc: UInt8 = 0x1B
    static let tapCfg0: UInt8 = 0x56, tapCfg2: UInt8 = 0x58, wakeUpThs: UInt8 = 0x5B, wakeUpDur: UInt8 = 0x5C
    static let md1Cfg: UInt8 = 0x5E
}

/// The motion detector's threshold (0.015 g standard deviation of |a|) as the peak of a
/// sinusoid with that standard deviation: 0.0212 g.
private let detectorPeak = 0.015 * 2.0.squareRoot()

@Suite("Motion latch: LSM303AGR interrupt generator 1")
struct LSM303AGRMotionLatchTests {
    func open(_ bus: ScriptedI2CBus) throws -> LSM303AGRAccelerometer {
        bus.read(AGR.address, AGR.whoAmI, 0x33)
        return try LSM303AGRAccelerometer(bus: bus, address: address(AGR.address))
    }

    func scriptArm(_ bus: ScriptedI2CBus, steps: UInt8, stale: UInt8 = 0x00) {
        bus.write(AGR.address, AGR.tempCfg, 0x00)
        bus.write(AGR.address, AGR.ctrl4, 0x80)  // BDU, ±2 g, HR off
        bus.write(AGR.address, AGR.ctrl1, 0x2F)  // 10 Hz, LPen, XYZ
        bus.write(AGR.address, AGR.ctrl2, 0x01)  // HPM normal, HPCF 00, HPIS1
        bus.write(AGR.address, AGR.ctrl3, 0x40)  // I1_AOI1
        bus.write(AGR.address, AGR.ctrl5, 0x08)  // LIR_INT1
        bus.write(AGR.address, AGR.int1Ths, steps)
        bus.write(AGR.address, AGR.int1Duration, 0x00)
        bus.read(AGR.address, AGR.reference, 0x00)  // resets the high-pass filter
        bus.write(AGR.address, AGR.int1Cfg, 0x2A)  // XHIE | YHIE | ZHIE, OR
        bus.read(AGR.address, AGR.int1Src, stale)  // clears an older event
    }

    @Test func armReadClearAndDisarmRestoresTheConfiguration() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        bus.write(AGR.address, AGR.tempCfg, 0xC0)
        bus.write(AGR.address, AGR.ctrl4, 0x88)
        bus.write(AGR.address, AGR.ctrl1, 0x57)
        try driver.configure(.init())
        #expect(!driver.motionLatchArmed)
        scriptArm(bus, steps: 1, stale: 0x42)  // a stale X-high event is read away
        let applied = try driver.armMotionLatch(threshold: detectorPeak)
        #expect(close(applied, 0.016), "0.0212 g rounds down to one 16 mg step")
        #expect(driver.motionLatchArmed && driver.motionLatchRate == 10)
        bus.read(AGR.address, AGR.int1Src, 0x00)
        #expect(try driver.takeMotionLatch() == false)
        bus.read(AGR.address, AGR.int1Src, 0x48)  // IA | YH
        #expect(try driver.takeMotionLatch() == true)
        bus.read(AGR.address, AGR.int1Src, 0x15)  // low events only, IA clear: no motion
        #expect(try driver.takeMotionLatch() == false)
        bus.write(AGR.address, AGR.int1Cfg, 0x00)
        bus.write(AGR.address, AGR.ctrl3, 0x00)
        bus.write(AGR.address, AGR.ctrl5, 0x00)
        bus.write(AGR.address, AGR.ctrl2, 0x00)
        bus.write(AGR.address, AGR.tempCfg, 0xC0)  // the configuration from before arming
        bus.write(AGR.address, AGR.ctrl4, 0x88)
        bus.write(AGR.address, AGR.ctrl1, 0x57)
        try driver.disarmMotionLatch()
        #expect(!driver.motionLatchArmed && driver.configuration == .init())
        try driver.disarmMotionLatch()  // not armed: nothing on the bus
        #expect(sensorError { () throws(SensorError) in _ = try driver.takeMotionLatch() }
                == .unsupported(chip: .lsm303agrAccelerometer, feature: "reading a motion latch that is not armed"))
        bus.finish()
    }

    @Test func thresholdsRoundDownToSixteenMilligStepsBetweenOneAndOneHundredTwentySeven() throws {
        for (threshold, steps) in [(0.001, UInt8(1)), (0.048, 3), (0.05, 3), (5.0, 127)] {
            let bus = ScriptedI2CBus()
            var driver = try open(bus)
            scriptArm(bus, steps: steps)
            #expect(close(try driver.armMotionLatch(threshold: threshold), Double(steps) * 0.016))
            bus.finish()
        }
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        #expect(sensorError { () throws(SensorError) in _ = try driver.armMotionLatch(threshold: 0) }
                == .unsupported(chip: .lsm303agrAccelerometer, feature: "a motion threshold of 0.0 g"))
        bus.finish()  // nothing written
    }

    @Test func armingAgainKeepsTheConfigurationToGoBackTo() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        scriptArm(bus, steps: 1)
        try driver.armMotionLatch(threshold: detectorPeak)
        scriptArm(bus, steps: 2)
        try driver.armMotionLatch(threshold: 0.04)
        bus.write(AGR.address, AGR.int1Cfg, 0x00)
        bus.write(AGR.address, AGR.ctrl3, 0x00)
        bus.write(AGR.address, AGR.ctrl5, 0x00)
        bus.write(AGR.address, AGR.ctrl2, 0x00)
        bus.write(AGR.address, AGR.ctrl1, 0x0F)  // powered down before arming: ODR 0, LPen kept
        try driver.disarmMotionLatch()
        #expect(driver.configuration.dataRate == nil)
        bus.finish()
    }
}

@Suite("Motion latch: LSM6DSOX wake-up")
struct LSM6DSOXMotionLatchTests {
    func open(_ bus: ScriptedI2CBus) throws -> LSM6DSOX {
        bus.read(DSOX.address, DSOX.whoAmI, 0x6C)
        return try LSM6DSOX(bus: bus, address: address(DSOX.address))
    }

    @Test func armReadClearAndDisarmRestoresAccelerometerAndGyroscope() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        let configuration = LSM6DSOX.Configuration(gyroscope: .init(dataRate: .hz104, range: .dps1000, lowPassFilter: 3))
        bus.write(DSOX.address, DSOX.ctrl3C, 0x44)
        bus.write(DSOX.address, DSOX.ctrl4C, 0x02)
        bus.write(DSOX.address, DSOX.ctrl6C, 0x03)
        bus.write(DSOX.address, DSOX.ctrl2G, 0x48)
        bus.write(DSOX.address, DSOX.ctrl1XL, 0x40)
        try driver.configure(configuration)
        bus.write(DSOX.address, DSOX.ctrl3C, 0x44)
        bus.write(DSOX.address, DSOX.ctrl2G, 0x00)  // gyroscope off while armed
        bus.write(DSOX.address, DSOX.ctrl1XL, 0x20)  // 26 Hz, ±2 g
        bus.write(DSOX.address, DSOX.ctrl8XL, 0x80)  // HPCF_XL 100: ODR/100
        bus.write(DSOX.address, DSOX.tapCfg0, 0x51)  // INT_CLR_ON_READ, SLOPE_FDS (high-pass), LIR
        bus.write(DSOX.address, DSOX.wakeUpDur, 0x10)  // WAKE_THS_W: FS/256 per step
        bus.write(DSOX.address, DSOX.wakeUpThs, 0x02)  // 0.0212 g -> 2 steps of 7.8 mg
        bus.write(DSOX.address, DSOX.md1Cfg, 0x20)  // INT1_WU
        bus.write(DSOX.address, DSOX.tapCfg2, 0x80)  // INTERRUPTS_ENABLE
        bus.read(DSOX.address, DSOX.wakeUpSrc, 0x0C)  // a stale X wake-up, read away
        let applied = try driver.armMotionLatch(threshold: detectorPeak)
        #expect(close(applied, 2.0 / 128))
        #expect(driver.motionLatchArmed && driver.motionLatchRate == 26)
        bus.read(DSOX.address, DSOX.wakeUpSrc, 0x10)  // SLEEP_STATE only: no motion
        #expect(try driver.takeMotionLatch() == false)
        bus.read(DSOX.address, DSOX.wakeUpSrc, 0x09)  // WU_IA | Z_WU
        #expect(try driver.takeMotionLatch() == true)
        for register in [DSOX.tapCfg2, DSOX.md1Cfg, DSOX.wakeUpThs, DSOX.wakeUpDur, DSOX.tapCfg0, DSOX.ctrl8XL] {
            bus.write(DSOX.address, register, 0x00)
        }
        bus.write(DSOX.address, DSOX.ctrl3C, 0x44)
        bus.write(DSOX.address, DSOX.ctrl4C, 0x02)
        bus.write(DSOX.address, DSOX.ctrl6C, 0x03)
        bus.write(DSOX.address, DSOX.ctrl2G, 0x48)
        bus.write(DSOX.address, DSOX.ctrl1XL, 0x40)
        try driver.disarmMotionLatch()
        #expect(!driver.motionLatchArmed && driver.configuration == configuration)
        bus.finish()
    }

    @Test func thresholdsRoundDownToFullScaleOver256BetweenOneAndSixtyThreeSteps() throws {
        for (threshold, steps) in [(0.001, UInt8(1)), (0.03125, 4), (0.1, 12), (2.0, 63)] {
            let bus = ScriptedI2CBus()
            var driver = try open(bus)
            bus.write(DSOX.address, DSOX.ctrl3C, 0x44)
            bus.write(DSOX.address, DSOX.ctrl2G, 0x00)
            bus.write(DSOX.address, DSOX.ctrl1XL, 0x20)
            bus.write(DSOX.address, DSOX.ctrl8XL, 0x80)
            bus.write(DSOX.address, DSOX.tapCfg0, 0x51)
            bus.write(DSOX.address, DSOX.wakeUpDur, 0x10)
            bus.write(DSOX.address, DSOX.wakeUpThs, steps)
            bus.write(DSOX.address, DSOX.md1Cfg, 0x20)
            bus.write(DSOX.address, DSOX.tapCfg2, 0x80)
            bus.read(DSOX.address, DSOX.wakeUpSrc, 0x00)
            #expect(close(try driver.armMotionLatch(threshold: threshold), Double(steps) / 128))
            bus.finish()
        }
    }
}

/// The ICM-20948's wake-on-motion registers, re-declared from DS-000189.
private enum ICM {
    static let address: UInt8 = 0x69
    static let whoAmI: UInt8 = 0x00, bankSelect: UInt8 = 0x7F
    // Bank 0.
    static let userCtrl: UInt8 = 0x03, lpConfig: UInt8 = 0x05, pwrMgmt1: UInt8 = 0x06, pwrMgmt2: UInt8 = 0x07
    static let intPinCfg: UInt8 = 0x0F, intEnable: UInt8 = 0x10, intStatus: UInt8 = 0x19
    // Bank 2.
    static let accelDiv1: UInt8 = 0x10, accelDiv2: UInt8 = 0x11, accelIntelCtrl: UInt8 = 0x12, accelWomThr: UInt8 = 0x13
    static let accelConfig: UInt8 = 0x14
}

@Suite("Motion latch: ICM-20948 wake-on-motion")
struct ICM20948MotionLatchTests {
    func open(_ bus: ScriptedI2CBus) throws -> ICM20948 {
        bus.write(ICM.address, ICM.bankSelect, 0x00)
        bus.read(ICM.address, ICM.whoAmI, 0xEA)
        return try ICM20948(bus: bus, address: address(ICM.address))
    }

    /// ``ICM20948/configure(_:)``'s writes for the accelerometer alone at `divider` and ACCEL_CONFIG `config`.
    func scriptConfigure(_ bus: ScriptedI2CBus, divider: UInt8, config: UInt8) {
        bus.write(ICM.address, ICM.pwrMgmt1, 0x01)
        bus.write(ICM.address, ICM.pwrMgmt2, 0x07)
        bus.write(ICM.address, ICM.userCtrl, 0x00)
        bus.write(ICM.address, ICM.intPinCfg, 0x02)
        bus.write(ICM.address, ICM.bankSelect, 0x20)
        bus.write(ICM.address, ICM.accelDiv1, 0x00)
        bus.write(ICM.address, ICM.accelDiv2, divider)
        bus.write(ICM.address, ICM.accelConfig, config)
        bus.write(ICM.address, ICM.bankSelect, 0x00)
    }

    func scriptArm(_ bus: ScriptedI2CBus, steps: UInt8, stale: UInt8 = 0x00) {
        scriptConfigure(bus, divider: 127, config: 0x29)  // 8.8 Hz, ±2 g, DLPF 5
        bus.write(ICM.address, ICM.bankSelect, 0x20)
        bus.write(ICM.address, ICM.accelWomThr, steps)
        bus.write(ICM.address, ICM.accelIntelCtrl, 0x03)  // ACCEL_INTEL_EN, compare with the previous sample
        bus.write(ICM.address, ICM.bankSelect, 0x00)
        bus.write(ICM.address, ICM.intPinCfg, 0x22)  // INT1_LATCH__EN, BYPASS_EN kept
        bus.write(ICM.address, ICM.intEnable, 0x08)  // WOM_INT_EN
        bus.write(ICM.address, ICM.lpConfig, 0x60)  // ACCEL_CYCLE
        bus.read(ICM.address, ICM.intStatus, stale)
    }

    /// The disarm's writes before the configuration from before arming goes back.
    func scriptDisarm(_ bus: ScriptedI2CBus) {
        bus.write(ICM.address, ICM.intEnable, 0x00)
        bus.write(ICM.address, ICM.lpConfig, 0x40)
        bus.write(ICM.address, ICM.bankSelect, 0x20)
        bus.write(ICM.address, ICM.accelIntelCtrl, 0x00)
        bus.write(ICM.address, ICM.accelWomThr, 0x00)
        bus.write(ICM.address, ICM.bankSelect, 0x00)
    }

    @Test func armReadClearAndDisarmRestoresTheConfiguration() throws {
        let bus = ScriptedI2CBus()
        var driver = try open(bus)
        scriptConfigure(bus, divider: 10, config: 0x09)
        try driver.configure(.init())
        // 0.0212 g: 5 steps of 4 mg.
        scriptArm(bus, steps: 5, stale: 0x08)
        let applied = try driver.armMotionLatch(threshold: detectorPeak)
        #expect(close(applied, 0.020))
        #expect(driver.motionLatchArmed && close(driver.motionLatchRate, 1125.0 / 128))
        bus.read(ICM.address, ICM.intStatus, 0x00)
        #expect(try driver.takeMotionLatch() == false)
        bus.read(ICM.address, ICM.intStatus, 0x08)
        #expect(try driver.takeMotionLatch() == true)
        scriptDisarm(bus)
        scriptConfigure(bus, divider: 10, config: 0x09)
        try driver.disarmMotionLatch()
        #expect(!driver.motionLatchArmed && driver.configuration == .init())
        #expect(throws: SensorError.self) { try driver.takeMotionLatch() }
        bus.finish()
    }

    @Test func aSleepingChipGoesBackToSleepAndThresholdsRoundDownBetweenOneAndTwoHundredFiftyFiveSteps() throws {
        for (threshold, steps) in [(0.001, UInt8(1)), (0.0212, 5), (0.1, 25), (3.0, 255)] {
            let bus = ScriptedI2CBus()
            var driver = try open(bus)
            scriptArm(bus, steps: steps)
            #expect(close(try driver.armMotionLatch(threshold: threshold), Double(steps) * 0.004))
            scriptDisarm(bus)
            bus.write(ICM.address, ICM.intPinCfg, 0x02)
            bus.write(ICM.address, ICM.pwrMgmt1, 0x41)  // asleep, as before arming
            try driver.disarmMotionLatch()
            #expect(driver.configuration == nil)
            bus.finish()
        }
    }
}
