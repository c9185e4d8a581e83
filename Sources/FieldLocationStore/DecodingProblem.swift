import Foundation

/// Decoding errors in words that name the key at fault.
package enum DecodingProblem {
    /// `error` in words, naming the key at fault.
    package static func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String { context.codingPath.map(\.stringValue).joined(separator: ".") }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            let parent = path(context)
            return "key '\(parent.isEmpty ? "" : parent + ".")\(key.stringValue)' is missing"
        case DecodingError.typeMismatch(_, let context): return "key '\(path(context))' has the wrong type"
        case DecodingError.valueNotFound(_, let context): return "key '\(path(context))' is null"
        case DecodingError.dataCorrupted(let context):
            return path(context).isEmpty ? "not valid JSON" : "key '\(path(context))': \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}
