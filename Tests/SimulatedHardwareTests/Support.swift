import HardwareInterfaces
import SimulatedHardware
import Testing

/// A clock and a bus with one device attached, for chip tests.
func rig(_ device: any SimulatedI2CDevice, at raw: UInt8, reporting: NoAcknowledgeReporting = .linux) throws -> (ManualClock, SimulatedI2CBus, I2CAddress) {
    let clock = ManualClock()
    let bus = SimulatedI2CBus(name: "test-i2c", clock: clock, noAcknowledgeReporting: reporting)
    let address = try #require(I2CAddress(raw))
    bus.attach(device, at: address)
    return (clock, bus, address)
}

/// Signed 16-bit from two bytes.
func int16(_ lo: UInt8, _ hi: UInt8) -> Int { Int(Int16(bitPattern: UInt16(lo) | UInt16(hi) << 8)) }

/// Three little-endian axes.
func axesLE(_ b: [UInt8]) -> [Int] { [int16(b[0], b[1]), int16(b[2], b[3]), int16(b[4], b[5])] }

/// Three big-endian axes.
func axesBE(_ b: [UInt8]) -> [Int] { [int16(b[1], b[0]), int16(b[3], b[2]), int16(b[5], b[4])] }

/// The kind of a thrown hardware error, or `nil` when the call succeeded.
func kind<T>(_ body: () throws(HardwareError) -> T) -> HardwareError.Kind? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.kind
    }
}

