import HardwareInterfaces
import Testing

@Suite("Monotonic instants and durations")
struct ClockTests {
    @Test("advancing clamps at both ends instead of trapping")
    func clamping() {
        #expect(MonotonicInstant.distantFuture.advanced(by: .seconds(1)) == .distantFuture)
        #expect(MonotonicInstant(nanoseconds: 5).advanced(by: .seconds(-1)) == .zero)
        #expect(MonotonicInstant(nanoseconds: 1_000).advanced(by: .nanoseconds(-400)).nanoseconds == 600)
        #expect(MonotonicInstant.zero.advanced(by: .seconds(Int64.max)).nanoseconds == UInt64(Int64.max))
        #expect(MonotonicInstant(nanoseconds: .max - 1).advanced(by: .seconds(5)) == .distantFuture)
    }

    @Test("differences are signed")
    func differences() {
        let a = MonotonicInstant(nanoseconds: 3_000_000_000)
        let b = MonotonicInstant(nanoseconds: 1_000_000_000)
        #expect(a - b == .seconds(2))
        #expect(b - a == .seconds(-2))
        #expect(Duration.milliseconds(1500).secondsDouble == 1.5)
        #expect(Duration.seconds(-3).nanosecondsClamped == -3_000_000_000)
    }
}

@Suite("Addresses, rates and operations")
struct ValueTests {
    @Test("I2C addresses outside 0x03...0x77 are refused")
    func addresses() {
        #expect(I2CAddress(UInt8(0x02)) == nil)
        #expect(I2CAddress(UInt8(0x78)) == nil)
        #expect(I2CAddress(0x1E)?.description == "0x1e")
        #expect(I2CAddress(-1) == nil)
        #expect(I2CAddress(300) == nil)
    }

    @Test("baud rates are the standard ones only")
    func baud() {
        #expect(BaudRate(9600) == .b9600)
        #expect(BaudRate(9601) == nil)
        #expect(BaudRate(921600) != nil)
        #expect(BaudRate(2400) == nil)
    }

    @Test("block operations hold 1 to 32 bytes")
    func blocks() {
        #expect(I2COperation.readBlock(register: 0x28, count: 6).isValid)
        #expect(!I2COperation.readBlock(register: 0x28, count: 0).isValid)
        #expect(!I2COperation.readBlock(register: 0x28, count: 33).isValid)
        #expect(!I2COperation.writeBlock(register: 0, bytes: []).isValid)
        #expect(I2COperation.readWord(register: 3).responseLength == 2)
        #expect(I2COperation.writeByte(register: 0x20, value: 0x60).description == "write 0x60 to register 0x20")
        #expect(hex16(0x1234) == "0x1234")
    }

    @Test("errors print device, operation, kind, detail and hint")
    func errorText() {
        let error = HardwareError(.permissionDenied, device: "/dev/ttyAMA0", operation: "open",
                                  detail: "errno 13", hint: "add the user to the dialout group")
        #expect(error.description == "/dev/ttyAMA0: open: permission denied (errno 13). add the user to the dialout group")
        #expect(!error.isTransient)
        #expect(HardwareError(.noAcknowledgeData, device: "x", operation: "y").isNoAcknowledge)
    }
}
