// libFuzzer entry point for the calibration files: the stored-calibration loader
// (CalibrationStore.decode, StoredCalibration.calibration(file:)), the raw-sample CSV of
// `fieldloc calibrate --samples` (CalibrationCSV, then CalibrationFitter) and the heading CSV of
// `fieldloc heading --samples` (HeadingCSV). The input is a file's bytes; every parser sees it.
//
// The loader lives in the Foundation-using FieldLocationOutput target. .ci/fuzz.sh compiles the real files
// that hold it (Sources/FieldLocationOutput/HeadingFiles.swift, FixTextFormat.swift, GeomagText.swift,
// CalibrationText.swift and Sources/FieldLocationStore/AtomicFile.swift, DecodingProblem.swift) together with this file as one module, against the real
// modules Heading (with swift-numerics' RealModule) and NMEA:
//
//   .ci/fuzz.sh 60 .build-fuzz calibration
//
// Any trap or memory error is a crash, and so is a broken invariant (checked with `require`):
// - a stored calibration that loads has finite values (offset, a 9-value invertible matrix, a
//   positive field, coverage in 0...1, non-negative residuals), its calibration maps a finite sample
//   to a finite one, and its JSON (StoredCalibration.json) loads back equal and re-encodes to the
//   same text; a refusal names the file;
// - samples read from a CSV are finite and one per data row; a fit that succeeds on them gives a
//   calibration whose stored form loads again (a calibration the CLI can save can be read back);
// - a loaded or fitted calibration can be judged as saving judges it (verdict, reasons, score in
//   0...100, comparison) without trapping;
// - the heading CSV has one output row per input row, each cell empty or a finite heading in
//   0...360, and one warning per empty row; a refusal names the file.

import Foundation
import Heading
#if canImport(Glibc)
import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    print("calibration fuzz invariant broken: \(message())")
    abort()
}

/// Known bug, reported and not fixed yet: Heading's `percent(_:)` converts `x * 100` to `Int`, which
/// traps for a finite ratio beyond about 9.2e16 (`fieldloc calibrate --samples FILE --field-ut 48` on
/// samples with one value like -1.4e37 crashes; so does `--save` over a stored file whose
/// residual_relative is 1e300, because saving judges the stored calibration). Judging such a
/// calibration traps; with FIELDLOC_FUZZ_SKIP_KNOWN set in the environment those inputs are
/// skipped instead, so a long campaign can look for other bugs. CI does not set it.
private let skipKnownBugs = getenv("FIELDLOC_FUZZ_SKIP_KNOWN") != nil

private func percentOverflows(_ q: CalibrationQuality) -> Bool {
    let big = { (x: Double) in x.isFinite && abs(x * 100) >= 9.2e18 }
    return big(q.relativeResidual) || big(q.coverage) || (q.scaleRatio.map(big) ?? false)
}

/// Judges `quality` as `save` and the CLI do (verdict, reasons, comparison), unless it hits the known bug and skipping is on.
private func judge(_ quality: CalibrationQuality) -> Bool {
    if skipKnownBugs && percentOverflows(quality) { return false }
    let verdict = quality.verdict
    require(quality.reasons.isEmpty == (verdict == .good), "verdict \(verdict) with reasons \(quality.reasons)")
    require(quality.score.isFinite && (0...100).contains(quality.score), "score \(quality.score)")
    _ = quality.isBetter(than: MagnetometerCalibration.identity.quality)
    return true
}

private func checkStored(_ stored: StoredCalibration, file: String, source: @autoclosure () -> String) {
    let calibration: MagnetometerCalibration
    do {
        calibration = try stored.calibration(file: file)
    } catch {
        require(false, "a loaded calibration is refused by calibration(file:): \(error)\n\(source())")
        return
    }
    let values = stored.offset_uT + stored.matrix + [stored.field_uT, stored.residual_uT, stored.residual_relative,
                                                     stored.coverage, stored.shape_ratio, stored.score]
        + (stored.scale_ratio.map { [$0] } ?? [])
    require(values.allSatisfy(\.isFinite), "a loaded calibration has non-finite values: \(values)\n\(source())")
    require(stored.offset_uT.count == 3 && stored.matrix.count == 9, "offset or matrix of the wrong size")
    require(stored.field_uT > 0 && (0...1).contains(stored.coverage) && stored.residual_uT >= 0 && stored.samples >= 0,
            "a loaded calibration has out-of-range values\n\(source())")
    require(calibration.softIron.inverse != nil, "a loaded calibration has a singular matrix")
    let sample = calibration.apply(Vector3(25, -10, 40))
    require(sample.isFinite || !calibration.offset.isFinite, "a loaded calibration maps a finite sample to \(sample)\n\(source())")
    guard judge(calibration.quality) else { return }
    require(!CalibrationText.describe(calibration).isEmpty, "empty description")

    // What we write we read back, and writing it again gives the same text.
    let text = stored.json()
    do {
        let again = try CalibrationStore.decode(Data(text.utf8), file: "rewritten.json")
        require(again == stored, "the JSON of a loaded calibration reads back different:\n\(text)")
        require(again.json() == text, "re-encoding is not stable:\n\(text)")
    } catch {
        require(false, "the JSON of a loaded calibration does not load (\(error)):\n\(text)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Data(bytes: data, count: size)
    let file = "fuzz.json"

    // A stored calibration.
    do {
        let stored = try CalibrationStore.decode(bytes, file: file)
        checkStored(stored, file: file, source: String(decoding: bytes, as: UTF8.self))
    } catch {
        require(error.description.hasPrefix(file + ": "), "a refusal does not start with the file: \(error)")
    }

    let text = String(decoding: bytes, as: UTF8.self)
    // Raw samples, and a fit of them.
    do {
        let samples = try CalibrationCSV.samples(text, file: "samples.csv")
        let table = try NumericCSV(text, file: "samples.csv", required: CalibrationCSV.columns, optional: [])
        require(samples.count == table.rows.count, "\(samples.count) samples from \(table.rows.count) rows")
        require(samples.allSatisfy(\.isFinite), "non-finite sample")
        if samples.count <= 256 {
            // The field given or not, by the input's size: both paths of the fit.
            let expected: Double? = size & 1 == 0 ? nil : 48
            if let fitted = try? CalibrationFitter.fit(samples, expectedField: expected), judge(fitted.quality) {
                let stored = StoredCalibration(fitted, board: "sim", sensor: "fuzz")
                let json = stored.json()
                do {
                    let loaded = try CalibrationStore.decode(Data(json.utf8), file: "fitted.json")
                    checkStored(loaded, file: "fitted.json", source: json)
                } catch {
                    require(false, "a fitted calibration cannot be read back once stored (\(error)):\n\(json)\nfrom samples:\n\(text)")
                }
            }
        }
    } catch {
        require(error.description.hasPrefix("samples.csv: "), "a refusal does not start with the file: \(error)")
    }

    // Body-frame samples to headings.
    do {
        let result = try HeadingCSV.process(text, file: "heading.csv")
        let table = try NumericCSV(text, file: "heading.csv", required: HeadingCSV.inputColumns, optional: ["declination_deg"])
        let lines = result.csv.split(separator: "\n", omittingEmptySubsequences: false)
        require(lines.first.map(String.init) == HeadingCSV.outputHeader && lines.last == "", "heading CSV framing")
        let rows = lines.dropFirst().dropLast()
        require(rows.count == table.rows.count, "\(rows.count) heading rows for \(table.rows.count) input rows")
        var empty = 0
        for row in rows {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false)
            require(cells.count == 4, "heading row with \(cells.count) cells: \(row)")
            if cells[0].isEmpty {
                empty += 1
                require(cells[1].isEmpty, "a true heading without a magnetic one: \(row)")
                continue
            }
            for cell in cells.prefix(2) where !cell.isEmpty {
                guard let value = Double(cell) else { require(false, "heading cell '\(cell)' is not a number"); continue }
                require(value.isFinite && value >= 0 && value < 360, "heading \(value) outside [0, 360)")
            }
            require(cells[1].isEmpty == (table.index("declination_deg") == nil), "true heading present without a declination or the reverse: \(row)")
        }
        require(result.warnings.count == empty, "\(result.warnings.count) warnings for \(empty) rows without a heading")
        for warning in result.warnings { require(warning.hasPrefix("heading.csv: line "), "warning without file and line: \(warning)") }
    } catch {
        require(error.description.hasPrefix("heading.csv: "), "a refusal does not start with the file: \(error)")
    }
    return 0
}
