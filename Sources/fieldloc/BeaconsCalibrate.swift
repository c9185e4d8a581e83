import ArgumentParser
import Beacons
import BoardConfig
import EnginePlatforms
import Foundation

extension FieldLoc.BeaconsCommand {
    /// `fieldloc beacons calibrate FILE`: fits the log-distance model to RSSI at known distances.
    struct Calibrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fit a site's path-loss exponent and RSSI at 1 m to RSSI recorded at known distances.",
            discussion: """
            Reads CSV rows 'distance_m,rssi' (a header line and lines starting with # are skipped; \
            '-' reads standard input), fits RSSI = P1 - 10 n log10(d) by least squares and prints \
            the two board keys to add to the board file (beacon_path_loss_exponent, beacon_power_1m) \
            and the fit's residual spread. Record a beacon for 10 s at each of 0.5, 1, 2, 4 and 8 m \
            (docs/BEACONS.md).
            """)

        @Argument(help: "The CSV file (distance_m,rssi per line), or - for standard input.")
        var file: String

        func run() throws {
            let rows = try BeaconCSV.rows(file, columns: 2)
            var samples: [(distance: Double, rssi: Double)] = []
            samples.reserveCapacity(rows.count)
            for row in rows {
                guard row.values[0] > 0 else { throw ValidationError("\(file):\(row.line): distance \(row.values[0]) m is not positive") }
                samples.append((row.values[0], row.values[1]))
            }
            guard let fit = BeaconCalibration.fit(samples) else {
                throw ValidationError("\(file): \(samples.count) samples cannot be fitted: record at least two distances, the farthest 1.5 times the nearest or more")
            }
            print(String(format: "beacon_path_loss_exponent = %.2f", fit.pathLossExponent))
            print(String(format: "beacon_power_1m = %.1f", fit.measuredPower))
            print(String(format: "# %d samples, residual RMS %.1f dB (a single reading's distance is off by a factor of about %.2f)",
                         fit.samples, fit.residualRMS, pow(10, fit.residualRMS / (10 * max(fit.pathLossExponent, 0.1)))))
        }
    }

    /// `fieldloc beacons estimate FILE`: ranges recorded RSSI with the product's ranger.
    struct Estimate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Range recorded RSSI with the ranging model and print the estimates once a second.",
            discussion: """
            Reads CSV rows 'time_s,beacon,rssi[,measured_power]' (beacon: any name; measured power \
            defaults to -59 dBm), feeds them in time order to the ranger that fieldloc and fieldlocd \
            use (2 s trimmed mean, log-distance model) and prints, at each whole second while a \
            beacon is heard, 'time_s,beacon,accuracy_m,proximity,rssi'. The model is the board's \
            (its beacon_path_loss_exponent and beacon_power_1m), changed by the options.
            """)

        @Argument(help: "The CSV file, or - for standard input.")
        var file: String

        @Option(help: "Board whose site calibration applies (default: none, the default model).")
        var board: String?

        @Option(name: .customLong("path-loss-exponent"), help: "The path-loss exponent n.")
        var pathLossExponent: Double?

        @Option(name: .customLong("power-1m"), help: "The RSSI at 1 m in dBm, replacing every beacon's measured power.")
        var power1m: Double?

        func run() throws {
            var model = RangingModel()
            if let board {
                let description: BoardDescription
                do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
                if let n = description.beaconPathLossExponent { model.pathLossExponent = n }
                model.siteMeasuredPower = description.beaconPower1m
            }
            if let pathLossExponent { model.pathLossExponent = pathLossExponent }
            if let power1m { model.siteMeasuredPower = power1m }
            var rows = try BeaconCSV.taggedRows(file)
            rows.sort { $0.time < $1.time }
            var ranger = BeaconRanger(model: model)
            var names: [String] = []
            var keys: [String: BeaconRanger.Key] = [:]
            let uuid = BeaconUUID(high: 0, low: 0)
            var output = ""
            var nextTick = Double.nan
            func emit(_ now: Double) {
                for beacon in ranger.beacons(satisfying: BeaconIdentityConstraint(uuid: uuid), at: now) where beacon.accuracy >= 0 {
                    let name = names[Int(beacon.major) << 16 | Int(beacon.minor)]
                    output += "\(Int(now)),\(name),\(String(format: "%.3f", beacon.accuracy)),\(beacon.proximity),\(beacon.rssi)\n"
                }
                ranger.prune(at: now)
                if output.utf8.count > 1 << 16 {
                    FileHandle.standardOutput.write(Data(output.utf8))
                    output = ""
                }
            }
            for row in rows {
                if nextTick.isNaN || row.time - nextTick > model.forgetAfter { nextTick = row.time.rounded(.up) }
                while nextTick <= row.time {
                    emit(nextTick)
                    nextTick += 1
                }
                let key: BeaconRanger.Key
                if let known = keys[row.beacon] {
                    key = known
                } else {
                    guard names.count < 1 << 32 else { throw ValidationError("\(file): more than 2^32 beacons") }
                    key = BeaconRanger.Key(uuid: uuid, major: UInt16(names.count >> 16), minor: UInt16(names.count & 0xFFFF))
                    keys[row.beacon] = key
                    names.append(row.beacon)
                }
                ranger.add(key, measuredPower: row.measuredPower, rssi: row.rssi, at: row.time)
            }
            if !nextTick.isNaN { emit(nextTick) }
            FileHandle.standardOutput.write(Data(output.utf8))
        }
    }
}

/// The CSV the calibration and estimate commands read.
enum BeaconCSV {
    struct Row { var line: Int; var values: [Double] }
    struct Tagged { var time: Double; var beacon: String; var rssi: Int; var measuredPower: Int }

    static func text(_ file: String) throws -> String {
        let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: file)
        guard let data else { throw ValidationError("\(file): cannot be read") }
        return String(decoding: data, as: UTF8.self)
    }

    /// The data lines: trimmed, without blank lines, comments and a header (a first line whose
    /// first field is not a number).
    static func lines(_ file: String) throws -> [(line: Int, fields: [Substring])] {
        var result: [(line: Int, fields: [Substring])] = []
        var number = 0
        for raw in try text(file).split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { Substring($0.trimmingCharacters(in: .whitespaces)) }
            if result.isEmpty, Double(fields[0]) == nil { continue }  // the header
            result.append((number, fields))
        }
        return result
    }

    static func rows(_ file: String, columns: Int) throws -> [Row] {
        try lines(file).map { line, fields in
            guard fields.count >= columns else { throw ValidationError("\(file):\(line): expected \(columns) comma-separated numbers, found \(fields.count) fields") }
            var values: [Double] = []
            for (index, field) in fields.prefix(columns).enumerated() {
                guard let value = Double(field), value.isFinite else { throw ValidationError("\(file):\(line): field \(index + 1) '\(field)' is not a number") }
                values.append(value)
            }
            return Row(line: line, values: values)
        }
    }

    static func taggedRows(_ file: String) throws -> [Tagged] {
        try lines(file).map { line, fields in
            guard fields.count >= 3 else { throw ValidationError("\(file):\(line): expected time_s,beacon,rssi[,measured_power], found \(fields.count) fields") }
            guard let time = Double(fields[0]), time.isFinite else { throw ValidationError("\(file):\(line): time '\(fields[0])' is not a number") }
            guard let rssi = Double(fields[2]), rssi.isFinite, rssi > -200, rssi < 50 else { throw ValidationError("\(file):\(line): RSSI '\(fields[2])' is not a dBm value") }
            var power = -59
            if fields.count > 3, !fields[3].isEmpty {
                guard let value = Int(fields[3]), value > -128, value < 20 else { throw ValidationError("\(file):\(line): measured power '\(fields[3])' is not a dBm value") }
                power = value
            }
            return Tagged(time: time, beacon: String(fields[1]), rssi: Int(rssi.rounded()), measuredPower: power)
        }
    }
}
