// `replay-json FILE`: what `fieldloc replay FILE --json --quiet` does, without the command-line
// layer, for instruction counts with callgrind (valgrind 3.19 cannot run the `fieldloc` executable
// itself: its async main on libdispatch stops valgrind).
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: replay-json FILE\n".utf8))
    exit(2)
}
let writer = FixJSONWriter { bytes in
    guard let base = bytes.baseAddress else { return }
    try? FileHandle.standardOutput.write(contentsOf: Data(
        bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
}
do {
    // As `LogReplay.print(to:json:)` (FieldLocationOutput) does for `--json`.
    try LogReplay(path: arguments[1]).run { fix in
        if fix.time != nil { writer.write(fix) }
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
writer.flush()
