import CI2C
import Glibc
import HardwareInterfaces
import Synchronization

/// An I2C adapter through the kernel's i2c-dev interface (`/dev/i2c-N`) and libi2c's SMBus
/// calls, which every adapter speaks, including the kernel's SMBus-only i2c-stub.
public final class LinuxI2CBus: I2CBus, @unchecked Sendable {
    /// `/dev/i2c-N`.
    public let name: String
    /// The adapter's functionality mask (I2C_FUNCS).
    public let functionality: UInt
    private struct State {
        var fd: Int32
        var address: UInt8?
    }
    private let state: Mutex<State>

    private init(name: String, fd: Int32, functionality: UInt) {
        self.name = name
        self.functionality = functionality
        state = Mutex(State(fd: fd, address: nil))
    }

    deinit {
        state.withLock { s in
            if s.fd >= 0 { Glibc.close(s.fd) }
        }
    }

    /// Opens `/dev/i2c-<bus>`. A missing node, denied access or an adapter that cannot report its
    /// functionality is an error with the fix to apply.
    public static func open(bus: Int) throws(HardwareError) -> LinuxI2CBus {
        let path = "/dev/i2c-\(bus)"
        let (fd, code) = Sys.call { Glibc.open(path, O_RDWR | O_CLOEXEC) }
        if fd < 0 {
            let hint: String
            switch code {
            case ENOENT: hint = "no such bus: enable I2C (raspi-config nonint do_i2c 0, or dtparam=i2c_arm=on in config.txt and a reboot) and load i2c-dev (modprobe i2c-dev); i2cdetect -l lists the buses"
            case EACCES, EPERM: hint = "add the user to the i2c group (sudo usermod -aG i2c $USER) and log in again"
            default: hint = "check the adapter driver (dmesg)"
            }
            throw Sys.error(code, device: path, operation: "open", hint: hint)
        }
        var funcs: UInt = 0
        let (r, e) = Sys.ioctl(fd, UInt(I2C_FUNCS), &funcs)
        if r < 0 {
            Glibc.close(fd)
            throw Sys.error(e, device: path, operation: "I2C_FUNCS", ioctl: true, hint: "\(path) is not an I2C adapter")
        }
        return LinuxI2CBus(name: path, fd: fd, functionality: funcs)
    }

    /// Closes the adapter; later transfers throw ``HardwareError/Kind/closed``.
    public func close() {
        state.withLock { s in
            if s.fd >= 0 { Glibc.close(s.fd) }
            s.fd = -1
        }
    }

    static func required(_ operation: I2COperation) -> (UInt, String) {
        switch operation {
        case .quick: return (UInt(I2C_FUNC_SMBUS_QUICK), "SMBus quick")
        case .receiveByte: return (UInt(I2C_FUNC_SMBUS_READ_BYTE), "SMBus receive byte")
        case .readByte: return (UInt(I2C_FUNC_SMBUS_READ_BYTE_DATA), "SMBus read byte data")
        case .writeByte: return (UInt(I2C_FUNC_SMBUS_WRITE_BYTE_DATA), "SMBus write byte data")
        case .readWord: return (UInt(I2C_FUNC_SMBUS_READ_WORD_DATA), "SMBus read word data")
        case .writeWord: return (UInt(I2C_FUNC_SMBUS_WRITE_WORD_DATA), "SMBus write word data")
        case .readBlock: return (UInt(I2C_FUNC_SMBUS_READ_I2C_BLOCK), "I2C block read")
        case .writeBlock: return (UInt(I2C_FUNC_SMBUS_WRITE_I2C_BLOCK), "I2C block write")
        }
    }

    /// Performs one SMBus-style operation on the device at `address`: selects the address
    /// (`I2C_SLAVE`) when it differs from the last one, then calls libi2c. An operation the
    /// adapter lacks is ``HardwareError/Kind/unsupported``, naming the missing function; nothing
    /// answering is ``HardwareError/Kind/noAcknowledge`` with what to check.
    public func transfer(_ operation: I2COperation, at address: I2CAddress) throws(HardwareError) -> [UInt8] {
        let device = deviceName(address)
        guard operation.isValid else {
            throw HardwareError(.invalidArgument, device: device, operation: operation.description, detail: "block transfers carry 1 to 32 bytes")
        }
        let (bit, what) = Self.required(operation)
        guard functionality & bit != 0 else {
            throw HardwareError(.unsupported, device: device, operation: operation.description,
                                detail: "the adapter has no \(what) (functionality mask \(hex16(UInt16(truncatingIfNeeded: functionality >> 16)))0000)")
        }
        let result: Result<[UInt8], HardwareError> = state.withLock { s in
            guard s.fd >= 0 else { return .failure(HardwareError(.closed, device: device, operation: operation.description)) }
            if s.address != address.rawValue {
                let (r, e) = Sys.ioctl(s.fd, UInt(I2C_SLAVE), Int32(address.rawValue))
                if r < 0 {
                    let hint = e == EBUSY ? "a kernel driver is bound to this address (see /sys/bus/i2c/devices); unbind it or use that driver" : nil
                    return .failure(Sys.error(e, device: device, operation: "select address (I2C_SLAVE)", ioctl: true, hint: hint))
                }
                s.address = address.rawValue
            }
            return Self.perform(operation, fd: s.fd, device: device)
        }
        return try result.get()
    }

    static func perform(_ operation: I2COperation, fd: Int32, device: String) -> Result<[UInt8], HardwareError> {
        var buffer = [UInt8](repeating: 0, count: 32)
        let (r, code) = Sys.negatedErrno {
            switch operation {
            case .quick: return i2c_smbus_write_quick(fd, UInt8(I2C_SMBUS_WRITE))
            case .receiveByte: return i2c_smbus_read_byte(fd)
            case .readByte(let register): return i2c_smbus_read_byte_data(fd, register)
            case .writeByte(let register, let value): return i2c_smbus_write_byte_data(fd, register, value)
            case .readWord(let register): return i2c_smbus_read_word_data(fd, register)
            case .writeWord(let register, let value): return i2c_smbus_write_word_data(fd, register, value)
            case .readBlock(let register, let count): return i2c_smbus_read_i2c_block_data(fd, register, UInt8(count), &buffer)
            case .writeBlock(let register, let bytes):
                return bytes.withUnsafeBufferPointer { i2c_smbus_write_i2c_block_data(fd, register, UInt8($0.count), $0.baseAddress) }
            }
        }
        if r < 0 {
            // Adapters report an address nobody acknowledges as ENXIO or EREMOTEIO; some (the
            // kernel's i2c-stub among them) as ENODEV. During a transfer all three mean the same.
            if code == ENXIO || code == EREMOTEIO || code == ENODEV {
                return .failure(HardwareError(.noAcknowledge, device: device, operation: operation.description,
                                              detail: errnoDetail(code),
                                              hint: "nothing answers at this address: check wiring, power and the address jumper"))
            }
            return .failure(Sys.error(code, device: device, operation: operation.description))
        }
        switch operation {
        case .receiveByte, .readByte: return .success([UInt8(truncatingIfNeeded: r)])
        case .readWord: return .success([UInt8(truncatingIfNeeded: r), UInt8(truncatingIfNeeded: r >> 8)])
        case .readBlock: return .success(Array(buffer.prefix(Int(r))))
        case .quick, .writeByte, .writeWord, .writeBlock: return .success([])
        }
    }
}
