import Glibc

/// This process's resident memory, as the kernel accounts it, and a way to give back the code
/// pages that only start-up needed.
///
/// A long-running program touches much of its code once, while it starts: argument parsing, the
/// board file, the runtime's and libraries' initialisers. Those pages are clean and file-backed,
/// so the kernel could drop them at any time, but until it needs the memory they stay mapped and
/// count in the resident set, together with the neighbours the kernel maps around each fault.
/// ``releaseExecutableCodePages()`` asks the kernel to reclaim them now (`MADV_PAGEOUT`, Linux
/// 5.4 and later); the pages the program goes on using fault back in from the page cache or the
/// disk. Nothing the program wrote is touched: only read-only mappings of its own executable
/// file (and, when asked, of its shared libraries) are named, never its data, heap or stacks.
public enum ProcessMemory {
    /// The resident set of this process (`VmRSS` of `/proc/self/status`), in bytes, or nil when
    /// it cannot be read.
    public static func residentBytes() -> Int? {
        guard let text = readSmallFile("/proc/self/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.dropFirst(6).filter { $0.isNumber }
            if let kib = Int(String(digits)) { return kib * 1024 }
        }
        return nil
    }

    /// What ``releaseExecutableCodePages()`` did.
    public struct Release: Sendable, Equatable {
        /// Read-only mappings of the executable that were advised.
        public var mappings: Int
        /// Their total length in bytes (mapped, not necessarily resident).
        public var bytes: Int
    }

    /// Why the code pages could not be released.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What failed, with the system's reason.
        public var description: String
    }

    /// Advises the kernel to reclaim the resident pages of the executable's read-only mappings
    /// (its code and constant data): `madvise(MADV_PAGEOUT)` on each `r-xp` and `r--p` line of
    /// `/proc/self/maps` whose file is `/proc/self/exe`; with `libraries`, on those of every other
    /// mapped file as well (the Swift runtime, Foundation and ICU, the C library), whose pages
    /// the kernel only reclaims where no other process maps them. Pages the process still uses are faulted
    /// back in on their next use. Returns what was advised. Fails when the maps cannot be read, or
    /// on a kernel without `MADV_PAGEOUT` (EINVAL at the first mapping, so nothing is released);
    /// the pages are only advice, so a failure leaves the process as it was apart from that.
    public static func releaseExecutableCodePages(libraries: Bool = false) throws(Failure) -> Release {
        guard let executable = executablePath() else {
            throw Failure(description: "cannot resolve /proc/self/exe: \(String(cString: strerror(errno)))")
        }
        guard let maps = readSmallFile("/proc/self/maps") else {
            throw Failure(description: "cannot read /proc/self/maps: \(String(cString: strerror(errno)))")
        }
        var release = Release(mappings: 0, bytes: 0)
        for line in maps.split(separator: "\n") {
            guard let mapping = Mapping(line), !mapping.writable,
                  mapping.path == executable || (libraries && mapping.path.hasPrefix("/") && !mapping.path.hasPrefix("/dev/"))
            else { continue }
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start), mapping.end > mapping.start else { continue }
            let length = Int(mapping.end - mapping.start)
            // Random access first: the pages faulted back later are read one at a time, not with
            // the read-ahead and large page-cache folios that start-up's sequential faults got.
            if madvise(start, length, MADV_RANDOM) != 0 || madvise(start, length, pageOut) != 0 {
                let code = errno
                throw Failure(description: "madvise(MADV_RANDOM, MADV_PAGEOUT) on \(mapping.path): \(String(cString: strerror(code)))"
                              + (code == EINVAL ? " (the kernel predates Linux 5.4)" : ""))
            }
            release.mappings += 1
            release.bytes += length
        }
        // What the page cache still holds of the file (read ahead at start-up, never mapped, or
        // shared with nobody) is dropped too, so that a page faulted back in brings no neighbours.
        let fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
            close(fd)
        }
        return release
    }

    /// Returns the heap's free pages to the kernel (`malloc_trim(0)`: the top of each arena is
    /// shrunk and whole free pages inside it are discarded). Returns whether any memory was
    /// released.
    @discardableResult
    public static func releaseFreeHeap() -> Bool {
        // <malloc.h> is not part of the Glibc module; the function is looked up (a C library
        // without it, such as musl, releases nothing).
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return false }
        typealias MallocTrim = @convention(c) (Int) -> Int32
        return unsafeBitCast(symbol, to: MallocTrim.self)(0) == 1
    }

    /// `MADV_PAGEOUT` (linux/mman.h); not every C library's headers name it.
    static let pageOut: Int32 = 21

    /// One line of `/proc/PID/maps`: `start-end perms offset dev inode path`.
    struct Mapping {
        var start: UInt
        var end: UInt
        var writable: Bool
        var path: Substring

        init?(_ line: Substring) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                  fields[1].count == 4 else { return nil }
            self.start = start
            self.end = end
            writable = fields[1].dropFirst().first == "w"
            path = fields[5].drop { $0 == " " }
        }
    }

    /// The executable's path as `/proc/self/maps` names it.
    static func executablePath() -> Substring? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return Substring(String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// A procfs file as text (see ``Sys/readFile(_:limit:)``).
    static func readSmallFile(_ path: String) -> String? {
        Sys.readFile(path, limit: 4 << 20).map { String(decoding: $0, as: UTF8.self) }
    }
}
