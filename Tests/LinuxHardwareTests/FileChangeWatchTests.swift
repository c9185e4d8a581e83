import Foundation
import Glibc
import Testing
@testable import LinuxHardware

@Suite("FileChangeWatch: inotify on a file's folder, or the deepest folder of its path that exists")
struct FileChangeWatchTests {
    /// Waits (up to 2 s) for the watch's descriptor to be readable, then drains it.
    static func changed(_ watch: FileChangeWatch) -> Bool {
        var descriptor = pollfd(fd: watch.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 2000) == 1 else { return false }
        return watch.drain()
    }

    /// Whether the descriptor stays quiet for 200 ms (or what is pending does not concern the file).
    static func quiet(_ watch: FileChangeWatch) -> Bool {
        var descriptor = pollfd(fd: watch.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 200) == 1 else { return true }
        return !watch.drain()
    }

    @Test("paths split into folder and name")
    func split() {
        #expect(FileChangeWatch.split("/etc/fieldloc/access.policy") == ("/etc/fieldloc", "access.policy"))
        #expect(FileChangeWatch.split("/etc/fieldloc/") == ("/etc", "fieldloc"))
        #expect(FileChangeWatch.split("/etc") == ("/", "etc"))
        #expect(FileChangeWatch.split("access.policy") == (".", "access.policy"))
    }

    @Test("a missing folder, then the file, then writes, renames and removal are seen; other files are not")
    func changes() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fcw-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/fieldloc/access.policy"
        let watch = try FileChangeWatch(path: path)
        defer { watch.close() }
        try FileManager.default.createDirectory(atPath: root + "/fieldloc", withIntermediateDirectories: false)
        #expect(Self.changed(watch), "the folder on the way was created")
        try Data("a".utf8).write(to: URL(fileURLWithPath: root + "/fieldloc/other"))
        #expect(Self.quiet(watch), "another file in the folder")
        try Data("watch *\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(Self.changed(watch), "the file was created and written")
        // An editor's save: a new file renamed over the old one.
        try Data("watch alice\n".utf8).write(to: URL(fileURLWithPath: root + "/fieldloc/.access.policy.tmp"))
        #expect(rename(root + "/fieldloc/.access.policy.tmp", path) == 0)
        #expect(Self.changed(watch), "renamed into place")
        try FileManager.default.removeItem(atPath: path)
        #expect(Self.changed(watch), "removed")
    }
}
