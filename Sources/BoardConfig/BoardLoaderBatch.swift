import Devices

extension BoardLoader {
    /// The most fixes `batch` may ask the receiver to keep (an M8's RAM holds a few hundred with
    /// the extra PVT fields; the receiver refuses more with ACK-NAK, which the engine reports).
    public static let batchLimit = 1000

    /// Reads `[receiver]`'s `batch`: a whole number of fixes, 1 to ``batchLimit``, on a u-blox
    /// receiver (the family with data batching; its M8 generation has it).
    static func readBatch(_ section: Section, family: ReceiverFamily?) throws(BoardError) -> Int? {
        guard let entry = section.entry("batch") else { return nil }
        guard case .integer(let value) = entry.node.value else {
            throw section.error("expected a whole number of fixes (1 to \(batchLimit)), found \(describe(entry.node.value))", key: "batch",
                                at: entry.node.location)
        }
        guard (1...batchLimit).contains(value) else {
            throw section.error("\(value) fixes: the receiver's buffer holds 1 to \(batchLimit)", key: "batch", at: entry.node.location)
        }
        guard family == .ublox else {
            throw section.error("receiver-side batching needs a u-blox M8 (data batching), not \(family?.rawValue ?? "a family detected on arrival (name family = \"ublox\")")", key: "batch",
                                at: entry.node.location)
        }
        return value
    }
}
