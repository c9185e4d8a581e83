/// The board files built into the library (a copy of the repository's `Boards/` folder), and
/// resolution of a user's `--board` argument to a validated ``BoardDescription``.
public enum BoardCatalog {
    /// The board used when none is named: simulated receiver and sensors.
    public static let defaultBoardName = "sim"

    /// The names of the built-in boards, sorted.
    public static var builtin: [String] { BuiltinBoards.files.map(\.name) }

    /// The file text of built-in board `name`, or nil if there is none by that name.
    public static func text(ofBuiltin name: String) -> String? {
        BuiltinBoards.files.first { $0.name == name }?.text
    }

    /// The file name errors about built-in board `name` are reported against.
    public static func fileName(ofBuiltin name: String) -> String { "Boards/\(name).toml" }

    /// Loads and validates built-in board `name`.
    public static func load(builtin name: String) throws(BoardError) -> BoardDescription {
        guard let text = text(ofBuiltin: name) else { throw unknownBoard(name) }
        return try BoardLoader.load(text: text, file: fileName(ofBuiltin: name))
    }

    /// Resolves `nameOrText`: a built-in board's name, or the text of a board file.
    ///
    /// Text is recognised by containing a line break or `=`; it is reported against `file`
    /// (for example the path the caller read it from). Anything else must be a built-in name;
    /// an unknown name fails with the list of built-in boards and a "did you mean".
    public static func resolve(_ nameOrText: String, file: String = "<board text>") throws(BoardError) -> BoardDescription {
        let isText = nameOrText.contains(where: { $0 == "\n" || $0 == "\r\n" || $0 == "=" })
        if isText { return try BoardLoader.load(text: nameOrText, file: file) }
        return try load(builtin: nameOrText)
    }

    private static func unknownBoard(_ name: String) -> BoardError {
        let shown = name.count > 80 ? String(name.prefix(80)) + "..." : name
        return BoardError(
            file: "'\(shown)'", location: nil, key: nil,
            message: "no built-in board by that name\(Spelling.didYouMean(name, among: builtin)); built-in boards: "
                + builtin.joined(separator: ", ") + " (or pass the path of a board file)")
    }
}
