import Foundation

/// Writing to standard output and error without trapping: Foundation's `FileHandle.write(_:)`
/// traps when the reader has gone (`fieldloc status | head` closes the pipe: EPIPE).
enum Console {
    /// Writes `text` to standard output; `false` when the reader is gone (the caller stops).
    @discardableResult
    static func out(_ text: String) -> Bool {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
            return true
        } catch {
            return false
        }
    }

    /// Writes `text` to standard error; a closed standard error loses the text, nothing else.
    static func err(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
