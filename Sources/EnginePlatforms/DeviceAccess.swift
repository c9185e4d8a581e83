import BoardConfig
import Foundation

/// What an in-process manager may do on a board: on Linux, access to the device nodes is the
/// authorisation (read/write on the receiver's UART, the I2C bus and the GPIO chip), as Core
/// Location's prompt is on a phone; the access policy can lower it further.
public enum DeviceAccess {
    /// The nodes a board needs, with what each is for.
    public static func nodes(for board: BoardDescription) -> [(path: String, purpose: String)] {
        guard !board.simulated else { return [] }
        var out: [(String, String)] = []
        if let uart = board.receiver?.uart { out.append((uart, "the receiver (group dialout)")) }
        if board.magnetometer != nil, let bus = board.i2cBus { out.append(("/dev/i2c-\(bus)", "the sensors (group i2c)")) }
        if let chip = board.gpio?.chip {
            out.append((chip.hasPrefix("/") ? chip : "/dev/" + chip, "the receiver's control lines (group gpio)"))
        }
        return out
    }

    /// `nil` when every node the board needs for locations is readable and writable, else why not.
    public static func problem(for board: BoardDescription) -> String? {
        let missing = nodes(for: board).filter {
            !(FileManager.default.isReadableFile(atPath: $0.path) && FileManager.default.isWritableFile(atPath: $0.path))
        }
        guard let first = missing.first else { return nil }
        let exists = FileManager.default.fileExists(atPath: first.path)
        return exists
            ? "no read/write access to \(first.path), \(first.purpose): add the user to that group and log in again"
            : "\(first.path) (\(first.purpose)) does not exist: check the board file and that the interface is enabled"
    }
}
