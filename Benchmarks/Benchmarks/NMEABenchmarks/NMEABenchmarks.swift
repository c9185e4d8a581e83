import Benchmark
import Foundation
import NMEA

/// The benchmark stream: `../shared/corpus/bench/mixed.nmea` beside the package (or FIELDLOC_BENCH_FILE).
private let corpus: [UInt8] = {
    let environment = ProcessInfo.processInfo.environment
    let here = URL(fileURLWithPath: #filePath)
    let packageRoot = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let path = environment["FIELDLOC_BENCH_FILE"]
        ?? packageRoot.appendingPathComponent("../shared/corpus/bench/mixed.nmea").standardized.path
    guard let data = FileManager.default.contents(atPath: path) else {
        print("benchmark input not found at \(path); set FIELDLOC_BENCH_FILE")
        return []
    }
    return [UInt8](data)
}()

/// Each sentence of the corpus (without its line terminator), as ranges into `corpus`.
private let lines: [Range<Int>] = {
    var result: [Range<Int>] = []
    var start = 0
    for index in corpus.indices where corpus[index] == 0x0A {
        var end = index
        if end > start, corpus[end - 1] == 0x0D { end -= 1 }
        if end > start { result.append(start..<end) }
        start = index + 1
    }
    return result
}()

/// Whole lines including CR LF, for feeding the pipeline one sentence at a time.
private let linesWithTerminator: [Range<Int>] = {
    var result: [Range<Int>] = []
    var start = 0
    for index in corpus.indices where corpus[index] == 0x0A {
        result.append(start..<(index + 1))
        start = index + 1
    }
    return result
}()

/// Where the per-sentence benchmarks resume, so successive samples walk the whole file instead of
/// re-parsing its first thousand (cache-hot) lines.
private final class Cursor: @unchecked Sendable {
    var index = 0
    /// One long-lived stream for the pipeline benchmark (the harness runs samples one at a time).
    let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, provenance: .replay))
}

private struct CountingDelegate: NMEAStreamDelegate {
    var fixes = 0
    var sentences = 0
    mutating func stream(fix: Fix) { fixes &+= 1 }
    mutating func stream(sentence: ParsedSentence, bytes: Span<UInt8>) { sentences &+= 1 }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 3,
        maxDuration: .seconds(10),
        maxIterations: 1_000)

    // Parsing alone: one sentence per inner iteration (checksum, address, every field), cycling
    // through all 377,460 sentences of the stream. Results are per sentence.
    let parseCursor = Cursor()
    Benchmark("NMEA parse, per sentence", configuration: .init(scalingFactor: .kilo)) { benchmark in
        guard !lines.isEmpty else { return }
        var index = parseCursor.index
        var accepted = 0
        // A local copy of the table (a global is reached through its lazy initialiser at each use).
        let ranges = lines
        corpus.withUnsafeBufferPointer { all in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let range = ranges[index]
                index = index &+ 1 == ranges.count ? 0 : index &+ 1
                let span = UnsafeBufferPointer(rebasing: all[range]).span
                if let parsed = try? NMEAParser.parse(span) { accepted &+= parsed.address.count }
            }
            benchmark.stopMeasurement()
        }
        parseCursor.index = index
        blackHole(accepted)
    }

    // The same parse over every sentence of the file in one iteration: wall clock / 377,460 is the
    // per-sentence cost, a cross-check of the scaled figure above.
    Benchmark("NMEA parse, all 377,460 sentences per iteration",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(15), maxIterations: 30)) { benchmark in
        guard !lines.isEmpty else { return }
        var accepted = 0
        corpus.withUnsafeBufferPointer { all in
            benchmark.startMeasurement()
            for range in lines {
                if let parsed = try? NMEAParser.parse(UnsafeBufferPointer(rebasing: all[range]).span) {
                    accepted &+= parsed.address.count
                }
            }
            benchmark.stopMeasurement()
        }
        blackHole(accepted)
    }

    // Framing + parsing + epoch assembly, fed one line (with CR LF) per inner iteration through
    // one long-lived stream. Results are per sentence.
    let pipelineCursor = Cursor()
    Benchmark("NMEA frame+parse+assemble, per sentence", configuration: .init(scalingFactor: .kilo)) { benchmark in
        guard !linesWithTerminator.isEmpty else { return }
        let stream = pipelineCursor.stream
        var delegate = CountingDelegate()
        var index = pipelineCursor.index
        // A local copy of the table (a global is reached through its lazy initialiser at each use).
        let ranges = linesWithTerminator
        corpus.withUnsafeBufferPointer { all in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let range = ranges[index]
                index = index &+ 1 == ranges.count ? 0 : index &+ 1
                stream.feed(UnsafeBufferPointer(rebasing: all[range]).span, delegate: &delegate)
            }
            benchmark.stopMeasurement()
        }
        pipelineCursor.index = index
        blackHole(delegate.fixes)
    }

    let wholeFileCursor = Cursor()
    // The whole 20 MB stream through framer, parser and assembler in 64 KiB reads, as a UART reader
    // would deliver it. One iteration is one pass over the file (377,460 sentences).
    Benchmark("NMEA pipeline, mixed.nmea (20 MB) in 64 KiB chunks",
              configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
                                   maxDuration: .seconds(20), maxIterations: 20)) { benchmark in
        guard !corpus.isEmpty else { return }
        // One stream for every pass (created outside the measured region, as a daemon creates its
        // stream once): a pass measures framing, parsing and assembly only.
        let stream = wholeFileCursor.stream
        var delegate = CountingDelegate()
        corpus.withUnsafeBufferPointer { all in
            benchmark.startMeasurement()
            var offset = 0
            while offset < all.count {
                let end = min(offset + 65_536, all.count)
                stream.feed(UnsafeBufferPointer(rebasing: all[offset..<end]).span, delegate: &delegate)
                offset = end
            }
            benchmark.stopMeasurement()
        }
        blackHole(delegate.sentences)
    }
}
