// `replay-json FILE [--text]`: what `fieldloc replay FILE --json --quiet` does (`--text`: without
// --json), without the command-line layer, for instruction counts with callgrind (valgrind cannot
// run the `fieldloc` executable itself: its async main on libdispatch stops valgrind 3.19).
import FieldLocation
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: replay-json FILE [--text]\n".utf8))
    exit(2)
}
let writer = FixJSONWriter { bytes in
    guard let base = bytes.baseAddress else { return }
    try? FileHandle.standardOutput.write(contentsOf: Data(
        bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
}
do {
    try LogReplay(path: arguments[1]).print(to: writer, json: !arguments.contains("--text"))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
writer.flush()
