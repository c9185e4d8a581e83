/// A 7-bit I2C device address in the range a scan may use (0x03 through 0x77).
///
/// Addresses 0x00-0x02 and 0x78-0x7F are reserved by the I2C specification (general call, CBUS,
/// 10-bit addressing) and are refused, so a typo in a board file fails when it is read.
public struct I2CAddress: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The address, 0x03 through 0x77.
    public let rawValue: UInt8

    /// Creates an address, or `nil` outside 0x03...0x77.
    public init?(_ rawValue: UInt8) {
        guard (0x03...0x77).contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// Creates an address from an integer, or `nil` outside 0x03...0x77.
    public init?(_ value: Int) {
        guard (0x03...0x77).contains(value) else { return nil }
        self.rawValue = UInt8(value)
    }

    public static func < (a: I2CAddress, b: I2CAddress) -> Bool { a.rawValue < b.rawValue }

    /// `0x1e`.
    public var description: String { hex(rawValue) }
}

/// One SMBus-style transaction on an I2C bus.
///
/// These are the transfers the Linux SMBus interface (`ioctl(I2C_SMBUS)`, libi2c's
/// `i2c_smbus_*`) offers and that every adapter, including the kernel's SMBus-only `i2c-stub`,
/// speaks. Wire sequences (S start, Sr repeated start, A/N acknowledge/not, P stop):
///
/// | operation | on the wire |
/// | --- | --- |
/// | `quick` | S Addr+W A P |
/// | `receiveByte` | S Addr+R A [data] N P |
/// | `readByte(r)` | S Addr+W A r A Sr Addr+R A [data] N P |
/// | `writeByte(r, v)` | S Addr+W A r A v A P |
/// | `readWord(r)` | S Addr+W A r A Sr Addr+R A [lo] A [hi] N P |
/// | `writeWord(r, v)` | S Addr+W A r A lo A hi A P |
/// | `readBlock(r, n)` | S Addr+W A r A Sr Addr+R A [d0] A ... [dn-1] N P |
/// | `writeBlock(r, d)` | S Addr+W A r A d0 A ... dn-1 A P |
///
/// Block transfers carry 1 to 32 bytes (the SMBus limit). A block read walks consecutive
/// registers only where the device auto-increments its register pointer; some ST parts need bit 7
/// of the register set for that, and that is the driver's business, not the bus's.
public enum I2COperation: Hashable, Sendable, CustomStringConvertible {
    /// Address only, no data: the probe `i2cdetect -q` uses.
    case quick
    /// One byte read with no register (SMBus receive byte): the probe `i2cdetect -r` uses.
    case receiveByte
    /// Reads the byte at `register`.
    case readByte(register: UInt8)
    /// Writes `value` to `register`.
    case writeByte(register: UInt8, value: UInt8)
    /// Reads a little-endian 16-bit word at `register` (SMBus read word).
    case readWord(register: UInt8)
    /// Writes a little-endian 16-bit word to `register`.
    case writeWord(register: UInt8, value: UInt16)
    /// Reads `count` bytes (1...32) starting at `register` in one burst (I2C block read).
    case readBlock(register: UInt8, count: Int)
    /// Writes 1 to 32 `bytes` starting at `register` in one burst (I2C block write).
    case writeBlock(register: UInt8, bytes: [UInt8])

    /// The largest block an SMBus transfer carries.
    public static let maximumBlockLength = 32

    /// The number of bytes the operation returns.
    public var responseLength: Int {
        switch self {
        case .quick, .writeByte, .writeWord, .writeBlock: return 0
        case .receiveByte, .readByte: return 1
        case .readWord: return 2
        case .readBlock(_, let count): return count
        }
    }

    /// The register the operation addresses, if any.
    public var register: UInt8? {
        switch self {
        case .quick, .receiveByte: return nil
        case .readByte(let r), .writeByte(let r, _), .readWord(let r), .writeWord(let r, _),
             .readBlock(let r, _), .writeBlock(let r, _): return r
        }
    }

    /// Whether the operation is well formed (block lengths within 1...32).
    public var isValid: Bool {
        switch self {
        case .readBlock(_, let count): return (1...Self.maximumBlockLength).contains(count)
        case .writeBlock(_, let bytes): return (1...Self.maximumBlockLength).contains(bytes.count)
        default: return true
        }
    }

    /// For error messages: `read register 0x0f`, `write 0x60 to register 0x20`.
    public var description: String {
        switch self {
        case .quick: return "quick write"
        case .receiveByte: return "receive byte"
        case .readByte(let r): return "read register \(hex(r))"
        case .writeByte(let r, let v): return "write \(hex(v)) to register \(hex(r))"
        case .readWord(let r): return "read word at register \(hex(r))"
        case .writeWord(let r, let v): return "write word \(hex16(v)) to register \(hex(r))"
        case .readBlock(let r, let n): return "read \(n) bytes from register \(hex(r))"
        case .writeBlock(let r, let b): return "write \(b.count) bytes to register \(hex(r))"
        }
    }
}

/// An I2C bus, addressed per call, that drivers talk to.
///
/// The one required primitive is ``transfer(_:at:)``; every register helper is derived from it,
/// so a new backend (Linux i2c-dev, a simulated register map, a recording mock) is one method.
/// An implementation returns only once the bus is idle again, so a caller may power a peripheral
/// down straight after a call. Drivers never see a file descriptor or a path.
public protocol I2CBus: Sendable {
    /// A name for messages, for example `/dev/i2c-1`.
    var name: String { get }

    /// Performs `operation` with the device at `address` and returns the bytes read
    /// (``I2COperation/responseLength`` of them; empty for writes).
    func transfer(_ operation: I2COperation, at address: I2CAddress) throws(HardwareError) -> [UInt8]
}

extension I2CBus {
    /// Reads one register.
    public func readRegister(_ register: UInt8, at address: I2CAddress) throws(HardwareError) -> UInt8 {
        let bytes = try transfer(.readByte(register: register), at: address)
        guard let first = bytes.first else {
            throw HardwareError(.bus, device: deviceName(address), operation: "read register \(hex(register))",
                                detail: "short read: no byte returned")
        }
        return first
    }

    /// Writes one register.
    public func writeRegister(_ register: UInt8, _ value: UInt8, at address: I2CAddress) throws(HardwareError) {
        _ = try transfer(.writeByte(register: register, value: value), at: address)
    }

    /// Reads `count` consecutive bytes starting at `register`, in bursts of at most 32 bytes.
    /// A short burst from the backend is an error, never silently padded.
    public func readRegisters(_ register: UInt8, count: Int, at address: I2CAddress) throws(HardwareError) -> [UInt8] {
        guard count > 0 else { return [] }
        var result: [UInt8] = []
        result.reserveCapacity(count)
        var start = Int(register)
        while result.count < count {
            let chunk = min(I2COperation.maximumBlockLength, count - result.count)
            guard start <= 0xFF else {
                throw HardwareError(.invalidArgument, device: deviceName(address),
                                    operation: "read \(count) bytes from register \(hex(register))",
                                    detail: "the range passes register 0xff")
            }
            let bytes = try transfer(.readBlock(register: UInt8(start), count: chunk), at: address)
            guard bytes.count == chunk else {
                throw HardwareError(.bus, device: deviceName(address),
                                    operation: "read \(chunk) bytes from register \(hex(UInt8(start)))",
                                    detail: "short read: \(bytes.count) of \(chunk) bytes")
            }
            result += bytes
            start += chunk
        }
        return result
    }

    /// Writes `bytes` to consecutive registers starting at `register`, in bursts of at most 32 bytes.
    public func writeRegisters(_ register: UInt8, _ bytes: [UInt8], at address: I2CAddress) throws(HardwareError) {
        var offset = 0
        while offset < bytes.count {
            let chunk = Array(bytes[offset..<min(bytes.count, offset + I2COperation.maximumBlockLength)])
            let start = Int(register) + offset
            guard start <= 0xFF else {
                throw HardwareError(.invalidArgument, device: deviceName(address),
                                    operation: "write \(bytes.count) bytes to register \(hex(register))",
                                    detail: "the range passes register 0xff")
            }
            _ = try transfer(.writeBlock(register: UInt8(start), bytes: chunk), at: address)
            offset += chunk.count
        }
    }

    /// Reads a little-endian SMBus word.
    public func readWord(_ register: UInt8, at address: I2CAddress) throws(HardwareError) -> UInt16 {
        let bytes = try transfer(.readWord(register: register), at: address)
        guard bytes.count == 2 else {
            throw HardwareError(.bus, device: deviceName(address), operation: "read word at register \(hex(register))",
                                detail: "short read: \(bytes.count) of 2 bytes")
        }
        return UInt16(bytes[0]) | UInt16(bytes[1]) << 8
    }

    /// Sets and clears bits of one register with a read, modify and write. Returns the value written.
    @discardableResult
    public func updateRegister(
        _ register: UInt8, at address: I2CAddress, setting set: UInt8 = 0, clearing clear: UInt8 = 0
    ) throws(HardwareError) -> UInt8 {
        let old = try readRegister(register, at: address)
        let new = (old & ~clear) | set
        if new != old { try writeRegister(register, new, at: address) }
        return new
    }

    /// Whether a device acknowledges `address`, probed the way `i2cdetect` does by default: a
    /// receive byte for 0x30-0x37 and 0x50-0x5F (EEPROM ranges, where a quick write can corrupt
    /// data), a quick write elsewhere; an adapter without quick write falls back to receive byte.
    /// Errors other than no-acknowledge are thrown.
    public func probe(_ address: I2CAddress) throws(HardwareError) -> Bool {
        let useRead = (0x30...0x37).contains(address.rawValue) || (0x50...0x5F).contains(address.rawValue)
        do {
            _ = try transfer(useRead ? .receiveByte : .quick, at: address)
            return true
        } catch {
            if error.isNoAcknowledge { return false }
            if error.kind == .unsupported && !useRead {
                do {
                    _ = try transfer(.receiveByte, at: address)
                    return true
                } catch {
                    if error.isNoAcknowledge { return false }
                    throw error
                }
            }
            throw error
        }
    }

    /// `/dev/i2c-1@0x1e`, for messages.
    public func deviceName(_ address: I2CAddress) -> String { "\(name)@\(address)" }
}

/// `0x0f`: two lowercase hex digits.
public func hex(_ value: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "0x" + String(digits[Int(value >> 4)]) + String(digits[Int(value & 0x0F)])
}

/// `0x1234`: four lowercase hex digits.
public func hex16(_ value: UInt16) -> String {
    hex(UInt8(value >> 8)) + String(hex(UInt8(value & 0xFF)).dropFirst(2))
}
