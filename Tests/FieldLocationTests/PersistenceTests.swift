import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import FieldLocation
import Foundation
import Heading
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Error paths of the atomic writer and the calibration store, in process. Kill -9 at random moments
/// and a really full disk are tried out of process by `.ci/persistence-trials.sh` (a write that fails
/// part-way needs ENOSPC or RLIMIT_FSIZE, which would hit every test running in this process).
@Suite("Persistence: atomic writes and the calibration store")
struct PersistenceTests {
    /// A fresh folder, removed (with anything left in it) when `body` returns.
    func withFolder(_ body: (String) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fieldloc-persist-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer {
            _ = chmod(dir, 0o755)
            try? FileManager.default.removeItem(atPath: dir)
        }
        try body(dir)
    }

    /// Names in `dir` that are temporary files of the atomic writer.
    func temporaries(in dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }
    }

    func calibration(seed: UInt64, coverage: Double = 1) throws -> StoredCalibration {
        var state = seed
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        var points: [Vector3] = []
        for _ in 0..<200 {
            let z = (next() * 2 - 1) * coverage
            let t = next() * 2 * .pi
            let r = (1 - z * z).squareRoot()
            points.append(Vector3(47 * r * cos(t) + Double(seed), 47 * r * sin(t) - 4, 47 * z + 9))
        }
        return StoredCalibration(try CalibrationFitter.fit(points, expectedField: 47), board: "sim", sensor: "lsm303agr-mag")
    }

    @Test("a directory where the file should be: the rename fails naming the path, the directory and folder are as before")
    func directoryInPlaceOfFile() throws {
        try withFolder { dir in
            let path = dir + "/state.json"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            try Data("inside".utf8).write(to: URL(fileURLWithPath: path + "/keep"))
            do throws(AtomicWriteError) {
                try AtomicFile.write(Data("{}".utf8), to: path)
                Issue.record("wrote over a directory")
            } catch {
                #expect(error.step == "rename to")
                #expect(error.path == path)
                #expect(error.errno == EISDIR)
                #expect(error.description.hasPrefix("rename to \(path): "), "\(error.description)")
            }
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
            #expect(FileManager.default.contents(atPath: path + "/keep") == Data("inside".utf8))
            #expect(try temporaries(in: dir).isEmpty)
        }
    }

    @Test("a file where a folder should be: the folder step fails naming it with ENOTDIR, nothing is created")
    func fileInPlaceOfFolder() throws {
        try withFolder { dir in
            let blocker = dir + "/state"
            try Data("not a folder".utf8).write(to: URL(fileURLWithPath: blocker))
            for path in [blocker + "/cal.json", blocker + "/deeper/cal.json"] {
                do throws(AtomicWriteError) {
                    try AtomicFile.write(Data("{}".utf8), to: path)
                    Issue.record("wrote \(path) through a file")
                } catch {
                    #expect(error.step == "create folder")
                    #expect(error.errno == ENOTDIR)
                    #expect(error.description.contains(blocker), "\(error.description)")
                }
            }
            #expect(FileManager.default.contents(atPath: blocker) == Data("not a folder".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["state"])
        }
    }

    @Test("the store fails on a directory at its file's path with an error naming the file, and keeps nothing half-written")
    func storeOverDirectory() throws {
        try withFolder { dir in
            let store = CalibrationStore(directory: dir)
            let path = store.path(board: "sim", sensor: "lsm303agr-mag")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            let first = try calibration(seed: 1)
            do throws(CalibrationFileError) {
                try store.save(first, board: "sim", sensor: "lsm303agr-mag", force: true)
                Issue.record("saved over a directory")
            } catch {
                guard case .io(let file, let detail) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(file == path)
                #expect(error.description.hasPrefix(path + ": "))
                #expect(detail.contains("rename"), "\(detail)")
            }
            #expect(try temporaries(in: dir).isEmpty)
        }
    }

    @Test("a corrupted stored calibration is reported with its path and is not replaced without force")
    func corruptedStoredFile() throws {
        try withFolder { dir in
            let store = CalibrationStore(directory: dir)
            let path = store.path(board: "sim", sensor: "lsm303agr-mag")
            let torn = Data(try calibration(seed: 2).json().utf8.prefix(200))
            try torn.write(to: URL(fileURLWithPath: path))
            #expect(throws: CalibrationFileError.self) { try store.load(board: "sim", sensor: "lsm303agr-mag") }
            do throws(CalibrationFileError) {
                _ = try store.load(board: "sim", sensor: "lsm303agr-mag")
            } catch {
                #expect(error.description.hasPrefix(path + ": "), "\(error.description)")
            }
            let good = try calibration(seed: 3)
            do throws(CalibrationFileError) {
                try store.save(good, board: "sim", sensor: "lsm303agr-mag")
                Issue.record("replaced an unreadable calibration without force")
            } catch {
                #expect(error.description.hasPrefix(path + ": "), "\(error.description)")
            }
            #expect(FileManager.default.contents(atPath: path) == torn)
            // With force the damaged file is replaced, and what was written reads back.
            #expect(try store.save(good, board: "sim", sensor: "lsm303agr-mag", force: true) == path)
            #expect(try store.load(board: "sim", sensor: "lsm303agr-mag") == good)
            #expect(try temporaries(in: dir).isEmpty)
        }
    }

    @Test("a stale temporary file left by a killed writer does not hide or replace the stored calibration, and a later write removes it once old")
    func staleTemporary() throws {
        try withFolder { dir in
            let store = CalibrationStore(directory: dir)
            let first = try calibration(seed: 4)
            let path = try store.save(first, board: "sim", sensor: "lsm303agr-mag")
            let stale = dir + "/." + (path as NSString).lastPathComponent + ".tmp-AbC123"
            try Data(try calibration(seed: 5).json().utf8.prefix(100)).write(to: URL(fileURLWithPath: stale))
            #expect(try store.load(board: "sim", sensor: "lsm303agr-mag") == first)
            let second = try calibration(seed: 6)
            try store.save(second, board: "sim", sensor: "lsm303agr-mag", force: true)
            #expect(try store.load(board: "sim", sensor: "lsm303agr-mag") == second)
            #expect(FileManager.default.contents(atPath: path) == Data(second.json().utf8))
            // That temporary file is new, so it may be another writer's: it stays. Once it is older
            // than a write could take, the next write removes it; other names are never touched.
            #expect(FileManager.default.fileExists(atPath: stale))
            let unrelated = dir + "/." + (path as NSString).lastPathComponent + ".tmp-AbC123.keep"
            try Data("x".utf8).write(to: URL(fileURLWithPath: unrelated))
            for file in [stale, unrelated] {
                var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
                #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
            }
            try store.save(first, board: "sim", sensor: "lsm303agr-mag", force: true)
            #expect(!FileManager.default.fileExists(atPath: stale))
            #expect(FileManager.default.fileExists(atPath: unrelated))
            #expect(try store.load(board: "sim", sensor: "lsm303agr-mag") == first)
        }
    }

    @Test("the file gets the mode asked for, and a replacement takes the place of the old inode")
    func modeAndReplacement() throws {
        try withFolder { dir in
            let path = dir + "/policy"
            try AtomicFile.write(Data("one".utf8), to: path, mode: 0o600)
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            let firstInode = info.st_ino
            // A reader holding the old file keeps reading the old content (no in-place rewrite).
            let reader = open(path, O_RDONLY)
            #expect(reader >= 0)
            defer { close(reader) }
            try AtomicFile.write(Data("two, longer".utf8), to: path, mode: 0o640)
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o640)
            #expect(info.st_ino != firstInode)
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = read(reader, &buffer, buffer.count)
            #expect(n == 3 && Array(buffer.prefix(3)) == Array("one".utf8))
            #expect(FileManager.default.contents(atPath: path) == Data("two, longer".utf8))
            #expect(try temporaries(in: dir).isEmpty)
        }
    }

    @Test("a folder without write permission: the temporary file cannot be created, the error says so and names the folder",
          .enabled(if: geteuid() != 0, "root writes into any folder; run the tests as a user to check this path"))
    func unwritableFolder() throws {
        try withFolder { dir in
            let path = dir + "/cal.json"
            try AtomicFile.write(Data("old".utf8), to: path)
            #expect(chmod(dir, 0o555) == 0)
            do throws(AtomicWriteError) {
                try AtomicFile.write(Data("new".utf8), to: path)
                Issue.record("wrote into a read-only folder")
            } catch {
                #expect(error.step == "create temporary file in")
                #expect(error.path == dir)
                #expect(error.errno == EACCES)
                #expect(error.description.contains("no permission to write there"), "\(error.description)")
            }
            #expect(FileManager.default.contents(atPath: path) == Data("old".utf8))
        }
    }

    @Test("saving over a stored calibration with an absurd residual does not trap")
    func absurdStoredResidual() throws {
        try withFolder { dir in
            let store = CalibrationStore(directory: dir)
            var damaged = try calibration(seed: 7)
            damaged.residual_relative = 1e300
            let path = store.path(board: "sim", sensor: "lsm303agr-mag")
            try Data(damaged.json().utf8).write(to: URL(fileURLWithPath: path))
            // Judging it prints the residual as a percentage: beyond any Int, so it reads as infinite.
            let stored = try #require(try store.load(board: "sim", sensor: "lsm303agr-mag"))
            let quality = try stored.calibration(file: path).quality
            #expect(quality.verdict == .poor)
            #expect(quality.reasons.contains { $0.hasPrefix("residual ∞ % of the field") }, "\(quality.reasons)")
            // Saving without force judges the stored calibration first.
            _ = try? store.save(try calibration(seed: 8), board: "sim", sensor: "lsm303agr-mag")
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }
}
