#if canImport(Glibc)
import Glibc
#endif
import HardwareInterfaces

/// The test's side of a gpio-sim line: its `value` (what the line is driven to) and its `pull`
/// (how the test drives an input), as files in a folder per line name (`/run/hil/gpio/<name>` in
/// the guest, links to `/sys/devices/platform/gpio-sim.0/gpiochip0/sim_gpioN`).
public struct SimulatedLineObserver: Sendable {
    /// The folder holding one sub-folder per line name.
    public let folder: String

    /// Creates an observer of the lines under `folder`.
    public init(folder: String) { self.folder = folder }

    /// The line's current level as gpio-sim reports it (`value`: `0` or `1`).
    public func value(of line: GPIOLineID) throws(HILFailure) -> Bool {
        let path = try self.path(line, "value")
        let text = try readSmallFile(path)
        switch text {
        case "0": return false
        case "1": return true
        default: throw HILFailure("\(path): expected 0 or 1, read \"\(text)\"")
        }
    }

    /// Sets the simulated pull of an input line, which gpio-sim turns into a level change and an
    /// edge event when the level changes.
    public func pull(_ line: GPIOLineID, high: Bool) throws(HILFailure) {
        try writeSmallFile(try path(line, "pull"), high ? "pull-up" : "pull-down")
    }

    private func path(_ line: GPIOLineID, _ attribute: String) throws(HILFailure) -> String {
        guard case .name(let name) = line else {
            throw HILFailure("the gpio-sim observer needs line names, got \(line)")
        }
        return folder + "/" + name + "/" + attribute
    }
}

/// Reads a sysfs attribute (at most 255 bytes), without the trailing newline.
func readSmallFile(_ path: String) throws(HILFailure) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw HILFailure("open \(path): \(errnoText())") }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 255) }
    guard count >= 0 else { throw HILFailure("read \(path): \(errnoText())") }
    return String(decoding: buffer[..<count], as: UTF8.self).trimmingSpaces
}

/// Writes `text` to a sysfs attribute in one write.
func writeSmallFile(_ path: String, _ text: String) throws(HILFailure) {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { throw HILFailure("open \(path) for writing: \(errnoText())") }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard count == bytes.count else { throw HILFailure("write \"\(text)\" to \(path): \(errnoText())") }
}

private func errnoText() -> String {
    let code = errno
    return "errno \(code): " + String(cString: strerror(code))
}
