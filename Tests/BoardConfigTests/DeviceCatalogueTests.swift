import BoardConfig
import Devices
import Testing

/// The device catalogue's board-file column: every spelling a row lists is one the board parser
/// accepts, and it names that row.
@Suite("Device catalogue in board files")
struct DeviceCatalogueBoardTests {
    @Test("every sensor chip's board spellings round-trip through the board parser, at every address the row lists")
    func sensorSpellings() throws {
        for row in SensorChip.catalogue {
            #expect(row.boardSpellings.first == row.chip.rawValue, "\(row.chip): the first spelling is the raw value")
            #expect(!row.boardSpellings.isEmpty && !row.addresses.isEmpty, "\(row.chip)")
            for spelling in row.boardSpellings {
                for address in row.addresses {
                    // A chip behind a host's bypass is only accepted beside its host.
                    let host = row.host.map { "\n\n[[sensor]]\nchip = \"\($0.rawValue)\"\naddress = \($0.addresses[0])\norientation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]" } ?? ""
                    let text = board(replacing: "chip = \"lis3mdl\"\naddress = 0x1c",
                                     with: "chip = \"\(spelling)\"\naddress = \(address)")
                        .replacingOccurrences(of: "\n[gpio]", with: host + "\n\n[gpio]")
                    let parsed = try BoardLoader.load(text: text, file: "Boards/t.toml")
                    #expect(parsed.sensors.map(\.chip) == [row.chip] + (row.host.map { [$0] } ?? []), "\(spelling) at \(address)")
                    #expect(parsed.sensors.first?.role == row.role)
                }
            }
        }
        #expect(SensorChip.boardNames == SensorChip.allCases.map(\.rawValue))
    }

    @Test("every receiver family's board spellings round-trip (mtk and mediatek both name MediaTek); a family with none is refused")
    func receiverSpellings() throws {
        for row in ReceiverFamily.catalogue {
            for spelling in row.boardSpellings {
                let text = board(replacing: "family = \"mtk\"", with: "family = \"\(spelling)\"")
                #expect(try BoardLoader.load(text: text, file: "Boards/t.toml").receiver?.family == row.family, "\(spelling)")
            }
            if row.boardSpellings.isEmpty {
                let text = board(replacing: "family = \"mtk\"", with: "family = \"\(row.family.rawValue)\"")
                #expect(throws: BoardError.self, "\(row.family) is not nameable in a board file") {
                    try BoardLoader.load(text: text, file: "Boards/t.toml")
                }
            }
        }
        #expect(ReceiverFamily(boardSpelling: "mtk") == .mediatek)
        #expect(ReceiverFamily(boardSpelling: "mediatek") == .mediatek)
        #expect(ReceiverFamily.boardNames == ["ublox", "mtk", "casic", "generic-nmea"])
    }

    @Test("an address outside the row's list is refused with the row's addresses named")
    func addressesFromTheRow() {
        for row in SensorChip.catalogue {
            guard let outside = (UInt8(0x08)...0x77).first(where: { !row.addresses.contains($0) }) else { continue }
            guard row.host == nil else { continue }
            let text = board(replacing: "chip = \"lis3mdl\"\naddress = 0x1c", with: "chip = \"\(row.chip.rawValue)\"\naddress = \(outside)")
            #expect {
                try BoardLoader.load(text: text, file: "Boards/t.toml")
            } throws: { error in
                (error as? BoardError)?.key == "address" && "\(error)".contains("cannot be at address")
            }
        }
    }
}
