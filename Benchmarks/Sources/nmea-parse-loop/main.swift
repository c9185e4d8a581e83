// A plain timing loop over a whole file, shaped like the C drivers used for peer parsers
// (read the file, memchr to each line end, parse the line), so results sit side by side with theirs.
//   swift run -c release nmea-parse-loop FILE [RUNS] [--parse-only]
// Prints the median and minimum ns per line over RUNS passes. `--parse-only` skips the pipeline
// passes, for instruction counts of the parse loop alone:
//   valgrind --tool=callgrind --toggle-collect='*parsePass*' .build/release/nmea-parse-loop FILE 1 --parse-only
import Foundation
import NMEA

let arguments = CommandLine.arguments
guard arguments.count >= 2, let data = FileManager.default.contents(atPath: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: nmea-parse-loop FILE [RUNS]\n".utf8))
    exit(2)
}
let runs = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 7) : 7
let parseOnly = arguments.dropFirst(3).contains("--parse-only")
let bytes = [UInt8](data)
/// One timed pass: find each line end, parse the line. Locals only (globals are checked for
/// exclusive access on every use, which would be measured too). Not inlined, so that a profiler
/// can count it alone.
@inline(never)
func parsePass(_ all: UnsafeBufferPointer<UInt8>) -> (nanoseconds: Double, lines: Int, parsed: Int) {
    var lines = 0
    var parsed = 0
    let start = DispatchTime.now().uptimeNanoseconds
    var lineStart = 0
    let base = all.baseAddress!
    while lineStart < all.count {
        // memchr to the line end, as the C drivers of the peer parsers do.
        let found = memchr(base + lineStart, 0x0A, all.count &- lineStart)
        let end = found.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? all.count
        var stop = end
        if stop > lineStart, all[stop - 1] == 0x0D { stop &-= 1 }
        lines &+= 1
        if let sentence = try? NMEAParser.parse(UnsafeBufferPointer(rebasing: all[lineStart..<stop]).span) {
            parsed &+= sentence.address.count > 0 ? 1 : 0
        }
        lineStart = end &+ 1
    }
    return (Double(DispatchTime.now().uptimeNanoseconds - start), lines, parsed)
}

var times: [Double] = []
var lines = 0
var parsed = 0
var fixes = 0
bytes.withUnsafeBufferPointer { all in
    for _ in 0..<runs {
        let pass = parsePass(all)
        times.append(pass.nanoseconds)
        lines = pass.lines
        parsed = pass.parsed
    }
}
times.sort()
print(String(format: "fieldlocation parse: %d lines, %d parsed, median %.1f ns/line over %d runs (min %.1f)",
             lines, parsed, times[times.count / 2] / Double(lines), runs, times[0] / Double(lines)))

if parseOnly { exit(0) }

// The whole pipeline (framer + parser + epoch assembler) over the same bytes, in 64 KiB reads.
@inline(never)
func pipelinePass(_ all: UnsafeBufferPointer<UInt8>) -> (nanoseconds: Double, fixes: Int) {
    let stream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, provenance: .replay))
    var count = 0
    let start = DispatchTime.now().uptimeNanoseconds
    var offset = 0
    while offset < all.count {
        let end = min(offset + 65_536, all.count)
        stream.feed(UnsafeBufferPointer(rebasing: all[offset..<end]).span) { _ in count &+= 1 }
        offset = end
    }
    return (Double(DispatchTime.now().uptimeNanoseconds - start), count)
}

var pipeline: [Double] = []
bytes.withUnsafeBufferPointer { all in
    for _ in 0..<runs {
        let pass = pipelinePass(all)
        pipeline.append(pass.nanoseconds)
        fixes = pass.fixes
    }
}
pipeline.sort()
let megabytes = Double(bytes.count) / 1e6
print(String(format: "fieldlocation pipeline: %d fixes, median %.1f ns/line, %.1f MB/s over %d runs",
             fixes, pipeline[pipeline.count / 2] / Double(lines), megabytes / (pipeline[pipeline.count / 2] / 1e9), runs))

// The pipeline fed one line at a time (what the ordo-one "per sentence" benchmark measures: each
// line, CR LF included, is one feed), over the same bytes.
struct CountingDelegate: NMEAStreamDelegate {
    var fixes = 0
    mutating func stream(fix: Fix) { fixes &+= 1 }
}

@inline(never)
func linePass(_ all: UnsafeBufferPointer<UInt8>, _ ends: [Int], _ stream: NMEAStream) -> (nanoseconds: Double, fixes: Int) {
    var delegate = CountingDelegate()
    let start = DispatchTime.now().uptimeNanoseconds
    var lineStart = 0
    for end in ends {
        stream.feed(UnsafeBufferPointer(rebasing: all[lineStart..<end]).span, delegate: &delegate)
        lineStart = end
    }
    return (Double(DispatchTime.now().uptimeNanoseconds - start), delegate.fixes)
}

var lineEnds: [Int] = []
for (index, byte) in bytes.enumerated() where byte == 0x0A { lineEnds.append(index + 1) }
var linePasses: [Double] = []
let lineStream = NMEAStream(assemblerOptions: AssemblerOptions(weekRolloverPivot: nil, provenance: .replay))
bytes.withUnsafeBufferPointer { all in
    for _ in 0..<runs {
        let pass = linePass(all, lineEnds, lineStream)
        linePasses.append(pass.nanoseconds)
        fixes = pass.fixes
    }
}
linePasses.sort()
print(String(format: "fieldlocation pipeline, a feed per line: %d fixes, median %.1f ns/line over %d runs (min %.1f)",
             fixes, linePasses[linePasses.count / 2] / Double(lineEnds.count), runs, linePasses[0] / Double(lineEnds.count)))
