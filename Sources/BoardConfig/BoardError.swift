/// A position in a text file: 1-based line and column (the column counts Unicode scalars).
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1, counted in Unicode scalars from the start of the line.
    public var column: Int

    /// Creates a location.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// Orders locations by line, then column.
    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}

/// Why a board file (or a board name) could not be loaded.
///
/// The description has the compiler-style form `file:line:column: key 'name': message`, for
/// example `Boards/x.toml:12:9: key 'baud': 9601 is not a supported baud rate (4800, 9600, ...)`.
/// The location is absent for errors that are not about a position (an unknown board name); the
/// key is absent for errors that are not about one key (a syntax error between keys).
public struct BoardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file name the text was loaded under, as the caller gave it.
    public var file: String
    /// Where in the file, if the error is about a position.
    public var location: SourceLocation?
    /// The key the error is about, if any.
    public var key: String?
    /// What is wrong and, where it helps, what would be right.
    public var message: String

    /// Creates an error.
    public init(file: String, location: SourceLocation?, key: String? = nil, message: String) {
        self.file = file
        self.location = location
        self.key = key
        self.message = message
    }

    /// The line of the error, or 0 when it is not about a position.
    public var line: Int { location?.line ?? 0 }

    /// The column of the error, or 0 when it is not about a position.
    public var column: Int { location?.column ?? 0 }

    /// `file:line:column: key 'name': message`, leaving out the parts that do not apply.
    public var description: String {
        var text = file
        if let location { text += ":\(location.line):\(location.column)" }
        text += ": "
        if let key { text += "key '\(key)': " }
        return text + message
    }
}

/// Suggestions for misspelt names.
enum Spelling {
    /// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        let lowered = Array(word.lowercased().unicodeScalars)
        guard !lowered.isEmpty, lowered.count <= 64 else { return nil }
        var best: (String, Int)?
        for candidate in candidates {
            let c = Array(candidate.lowercased().unicodeScalars)
            let distance = editDistance(lowered, c)
            let limit = max(1, min(3, c.count / 3))
            if distance <= limit, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        return best?.0
    }

    /// `" (did you mean 'x'?)"` or the empty string.
    static func didYouMean(_ word: String, among candidates: [String]) -> String {
        guard let suggestion = suggestion(for: word, among: candidates) else { return "" }
        return " (did you mean '\(suggestion)'?)"
    }

    /// Levenshtein distance, with an adjacent transposition counting as one edit.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previousPrevious[j - 2] + 1)
                }
                current[j] = value
            }
            previousPrevious = previous
            previous = current
        }
        return previous[b.count]
    }
}
