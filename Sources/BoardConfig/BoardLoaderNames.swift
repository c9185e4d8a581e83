extension Section {
    /// The string at `node` as one of a list of names: `names` are the ones listed in messages,
    /// `lookup` accepts every spelling (a catalogue row may accept more than the one it lists).
    func namedValue<E>(_ node: TOMLNode, key: String, names: [String], lookup: (String) -> E?) throws(BoardError) -> E {
        guard case .string(let text) = node.value else {
            throw wrongType(key, expected: "one of \(names.map { "\"\($0)\"" }.joined(separator: ", "))", node: node)
        }
        guard let value = lookup(text) else {
            throw error("'\(text)' is not one of \(names.joined(separator: ", "))\(Spelling.didYouMean(text, among: names))",
                        key: key, at: node.location)
        }
        return value
    }

    /// The required key `key` as one of a catalogue's board spellings (see ``namedValue(_:key:names:lookup:)``).
    func requiredName<E>(_ key: String, what: String, names: [String], lookup: (String) -> E?) throws(BoardError) -> E {
        guard let entry = entry(key) else {
            throw missing(key, what: "\(what): one of \(names.joined(separator: ", "))")
        }
        return try namedValue(entry.node, key: key, names: names, lookup: lookup)
    }
}
