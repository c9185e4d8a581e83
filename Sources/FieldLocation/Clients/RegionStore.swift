import Beacons
import FieldLocationStore
import Foundation
import LocationAPI
import LocationServices

/// Regions persisted per client name, written atomically (temp file, fsync, rename).
public enum RegionStore {
    /// Why a regions file could not be used.
    public struct StoreError: Error, Sendable, CustomStringConvertible {
        /// The file.
        public var path: String
        /// What went wrong.
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The file of a client's regions.
    public static func path(directory: String, client: String) -> String {
        let safe = String(client.unicodeScalars.map { scalar -> Character in
            let c = Character(scalar)
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : "_"
        })
        return directory + "/regions-" + (safe.isEmpty ? "default" : safe) + ".json"
    }

    struct File: Codable {
        var version = 1
        var regions: [RegionMonitor.Entry]
        /// Beacon regions (absent from files written before there were any).
        var beaconRegions: [BeaconRegion]? = nil
    }

    /// Loads a regions file; `nil` when there is none. Errors name the file and what is wrong.
    public static func load(_ path: String) throws(StoreError) -> RegionMonitor? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw StoreError(path: path, reason: "cannot be read") }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw StoreError(path: path, reason: "not a regions file: \(DecodingProblem.describe(error))")
        }
        guard file.version == 1 else { throw StoreError(path: path, reason: "version \(file.version) is not 1") }
        for (i, entry) in file.regions.enumerated() {
            if let problem = entry.region.validate() {
                let line = lineOf(identifier: entry.region.identifier, in: data).map { "line \($0), " } ?? ""
                throw StoreError(path: path, reason: "\(line)key 'regions.\(i).region': \(problem)")
            }
        }
        return RegionMonitor(entries: file.regions)
    }

    /// The line (from 1) of the first `"identifier"` key holding `identifier` in a JSON file.
    static func lineOf(identifier: String, in data: Data) -> Int? {
        guard let quoted = try? JSONEncoder().encode(identifier) else { return nil }
        let bytes = [UInt8](data), needle = [UInt8](quoted)
        let key = Array("\"identifier\"".utf8)
        var i = 0
        while i + key.count <= bytes.count {
            if bytes[i] == key[0], Array(bytes[i..<(i + key.count)]) == key {
                var j = i + key.count
                while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x3A || bytes[j] == 0x0A || bytes[j] == 0x09 { j += 1 }
                if j + needle.count <= bytes.count, Array(bytes[j..<(j + needle.count)]) == needle {
                    return 1 + bytes[..<i].lazy.filter { $0 == 0x0A }.count
                }
            }
            i += 1
        }
        return nil
    }

    /// Loads the beacon regions of a regions file; none when there is no file or it has none.
    public static func loadBeaconRegions(_ path: String) throws(StoreError) -> [BeaconRegion] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard let data = FileManager.default.contents(atPath: path) else { throw StoreError(path: path, reason: "cannot be read") }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw StoreError(path: path, reason: "not a regions file: \(DecodingProblem.describe(error))")
        }
        let regions = file.beaconRegions ?? []
        for region in regions {
            if let problem = region.validate() { throw StoreError(path: path, reason: "beacon region '\(region.identifier)': \(problem)") }
        }
        return regions
    }

    /// Saves a monitor's regions and the client's beacon regions atomically.
    public static func save(_ monitor: RegionMonitor, beaconRegions: [BeaconRegion] = [], to path: String) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let entries = monitor.sortedEntries
        let data: Data
        let beacons = beaconRegions.sorted { $0.identifier < $1.identifier }
        do { data = try encoder.encode(File(regions: entries, beaconRegions: beacons.isEmpty ? nil : beacons)) } catch {
            throw StoreError(path: path, reason: "cannot encode: \(error)")
        }
        do {
            let directory = (path as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try AtomicFile.write(data, to: path)
        } catch {
            throw StoreError(path: path, reason: error.description)
        }
    }
}
