import Testing
@testable import LinuxHardware

@Suite("Process memory: resident set and the release of start-up code pages")
struct ProcessMemoryTests {
    @Test("maps lines are read field by field; writable and anonymous mappings are told apart")
    func mapsLines() throws {
        let code = try #require(ProcessMemory.Mapping("00400000-01ec0000 r-xp 00000000 fe:00 1234   /opt/fieldloc/bin/fieldlocd"))
        #expect(code.start == 0x40_0000 && code.end == 0x1ec_0000 && !code.writable && code.path == "/opt/fieldloc/bin/fieldlocd")
        let data = try #require(ProcessMemory.Mapping("01f89000-043d7000 rw-p 01b89000 fe:00 1234 /opt/fieldloc/bin/fieldlocd"))
        #expect(data.writable)
        let spaced = try #require(ProcessMemory.Mapping("7f00-8f00 r--p 00000000 fe:00 9 /srv/a b/fieldlocd"))
        #expect(spaced.path == "/srv/a b/fieldlocd")
        #expect(ProcessMemory.Mapping("7fc81c1aa000-7fc81c28e000 rw-p 00000000 00:00 0 ") == nil)
        #expect(ProcessMemory.Mapping("7fc81c1aa000-7fc81c28e000 rw-p 00000000 00:00 0") == nil)
        #expect(ProcessMemory.Mapping("zz-7f rw-p 0 0:0 0 /x") == nil)
    }

    @Test("the test executable's read-only mappings are released, it keeps running, and VmRSS is read")
    func releaseOwnCode() throws {
        let before = try #require(ProcessMemory.residentBytes())
        #expect(before > 1 << 20)
        let exe = try #require(ProcessMemory.executablePath())
        let maps = try #require(ProcessMemory.readSmallFile("/proc/self/maps"))
        let expected = maps.split(separator: "\n").compactMap(ProcessMemory.Mapping.init).filter { $0.path == exe && !$0.writable }
        #expect(!expected.isEmpty, "the executable \(exe) has read-only mappings")
        let release = try ProcessMemory.releaseExecutableCodePages()
        #expect(release.mappings == expected.count)
        #expect(release.bytes == expected.reduce(0) { $0 + Int($1.end - $1.start) })
        // The code released is still there to run: this test goes on, and so does a second release.
        let again = try ProcessMemory.releaseExecutableCodePages()
        #expect(again == release)
        let after = try #require(ProcessMemory.residentBytes())
        #expect(after > 0)
    }

    @Test("with libraries, the read-only mappings of the shared libraries are released as well, and the process runs on")
    func releaseLibraries() throws {
        let exe = try #require(ProcessMemory.executablePath())
        let maps = try #require(ProcessMemory.readSmallFile("/proc/self/maps"))
        let mappings = maps.split(separator: "\n").compactMap(ProcessMemory.Mapping.init).filter { !$0.writable }
        let own = mappings.filter { $0.path == exe }
        let libraries = mappings.filter { $0.path != exe && $0.path.hasPrefix("/") && !$0.path.hasPrefix("/dev/") }
        #expect(libraries.contains { $0.path.contains("libc.so") || $0.path.contains("libswiftCore") }, "\(libraries.map(\.path))")
        let ownOnly = try ProcessMemory.releaseExecutableCodePages()
        #expect(ownOnly.mappings == own.count)
        // (Libraries loaded meanwhile by tests running alongside only add mappings.)
        let release = try ProcessMemory.releaseExecutableCodePages(libraries: true)
        #expect(release.mappings >= own.count + libraries.count)
        let resident = try #require(ProcessMemory.residentBytes())
        #expect(resident > 0)
    }
}
