/// A sentence framed and checked but not decoded: proprietary (`$P...`), encapsulated (`!AIVDM`) or a
/// standard type this parser does not decode. Its fields are read from the sentence bytes on demand.
public struct UndecodedSentence: Sendable, Hashable {
    /// The address field.
    public var address: SentenceAddress
    /// The number of fields after the address.
    public var fieldCount: Int

    /// The fields after the address as strings, read from the sentence these values were parsed from.
    ///
    /// This allocates; it is meant for logging and tools, not for the per-sentence path.
    public func fields(in sentence: Span<UInt8>) -> [String] {
        var result: [String] = []
        sentence.withUnsafeBufferPointer { buffer in
            let bytes = UnsafeRawBufferPointer(buffer)
            guard let layout = SentenceLayout(bytes) else { return }
            var reader = FieldReader(UnsafeRawBufferPointer(rebasing: bytes[layout.fields]), sentence: .otherStandard)
            while let range = reader.next() {
                result.append(String(decoding: UnsafeRawBufferPointer(rebasing: reader.base[range]), as: UTF8.self))
            }
        }
        return result
    }
}
