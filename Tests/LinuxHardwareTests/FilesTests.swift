import Foundation
import LinuxHardware
import Testing

@Suite("Files, paths and the user database through LinuxHardware")
struct FilesTests {
    /// A fresh folder under the system's temporary folder, removed afterwards.
    func withFolder(_ body: (String) throws -> Void) throws {
        let folder = NSTemporaryDirectory() + "/fieldloc-files-\(UUID().uuidString)"
        try FilePaths.makeDirectory(folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    @Test("a failed open names the call, the path and the C library's reason")
    func openFailure() {
        #expect {
            _ = try SystemFile.open("/nonexistent-fieldloc/x.log")
        } throws: { error in
            guard let error = error as? FileError else { return false }
            return error.errno == .noSuchFileOrDirectory
                && error.description == "open /nonexistent-fieldloc/x.log: No such file or directory (errno 2)"
        }
    }

    @Test("a unique file is created, written, given its mode, synced, renamed, read back and removed")
    func roundTrip() throws {
        try withFolder { folder in
            let file = try SystemFile.createUnique(prefix: folder + "/.data.tmp-")
            #expect(file.path.hasPrefix(folder + "/.data.tmp-") && file.path.utf8.count == folder.utf8.count + 17)
            try Array("hello, world".utf8).withUnsafeBytes { try file.write($0) }
            try file.setPermissions(0o640)
            try file.synchronize()
            try file.close()
            try FilePaths.rename(file.path, to: folder + "/data")
            FilePaths.synchronizeDirectory(folder)
            #expect(try SystemFile.contents(of: folder + "/data", limit: 1 << 20) == Array("hello, world".utf8))
            #expect(try SystemFile.contents(of: folder + "/data", limit: 5) == Array("hello".utf8))
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/data")
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o640)
            let status = try #require(FilePaths.status(folder + "/data"))
            #expect(status.kind == .regular)
            #expect(abs(status.modificationSeconds - Int64(Date().timeIntervalSince1970)) < 600)
            #expect(FilePaths.entries(of: folder)?.contains("data") == true)
            try FilePaths.remove(folder + "/data")
            #expect(FilePaths.status(folder + "/data") == nil)
            #expect(throws: FileError("unlink", path: folder + "/data", errno: .noSuchFileOrDirectory)) {
                try FilePaths.remove(folder + "/data")
            }
        }
    }

    @Test("reading through a descriptor: chunks until the end, then 0")
    func reads() throws {
        try withFolder { folder in
            try Data("0123456789".utf8).write(to: URL(fileURLWithPath: folder + "/digits"))
            let file = try SystemFile.open(folder + "/digits")
            defer { try? file.close() }
            var buffer = [UInt8](repeating: 0, count: 4)
            var all: [UInt8] = []
            while true {
                let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0) }
                if count == 0 { break }
                all += buffer[..<count]
            }
            #expect(all == Array("0123456789".utf8))
        }
    }

    @Test("an existing folder is EEXIST; a folder's status is a directory; a missing parent is ENOENT")
    func folders() throws {
        try withFolder { folder in
            #expect(FilePaths.status(folder)?.kind == .directory)
            #expect(throws: FileError("mkdir", path: folder, errno: .fileExists)) { try FilePaths.makeDirectory(folder) }
            #expect(throws: FileError("mkdir", path: folder + "/a/b", errno: .noSuchFileOrDirectory)) {
                try FilePaths.makeDirectory(folder + "/a/b")
            }
        }
    }

    @Test("the user database: uid 0 is root, in group root; an unknown group has no id")
    func users() {
        let root = UserDatabase.user(uid: 0)
        #expect(root?.name == "root" && root?.primaryGroup == 0)
        #expect(UserDatabase.groupName(0) == "root")
        #expect(UserDatabase.groupID(named: "root") == 0)
        #expect(UserDatabase.groupID(named: "no-such-group-fieldloc") == nil)
        #expect(UserDatabase.groups(ofUser: "root", primaryGroup: 0).first == 0)
    }

    @Test("a Unix socket path nobody listens on does not answer")
    func socketProbe() throws {
        try withFolder { folder in
            #expect(!UnixSockets.answers(folder + "/none.sock"))
            #expect(!UnixSockets.answers(String(repeating: "x", count: 200)), "longer than sun_path")
        }
    }
}
