// libFuzzer entry point for the board-file loader: the TOML subset (TOML.parse / TOML.serialize) and
// the board validation on top of it (BoardLoader.load, BoardCatalog.resolve). The input is the text
// of a board file.
//
// Built by .ci/fuzz.sh against the real modules HardwareInterfaces and BoardConfig:
//
//   .ci/fuzz.sh 60 .build-fuzz board
//
// Any trap or memory error is a crash, and so is a broken invariant (checked with `require`):
// - parsing is total: an error names the file and a position inside the text (line 1 to the number
//   of lines, column from 1 to the line's length + 1), and its description starts with the file;
// - a table that parses and serialises reads back equal, and serialising it again gives the same text;
// - a board that loads has what validation promises: [sim] exactly when simulated, a receiver on a
//   real board, a bus when there are sensors, distinct sensor addresses, orientation matrices that
//   are rotations (orthonormal, determinant +1, within BoardLoader.orientationTolerance), no empty name;
// - a board that loads, re-serialised, loads to an equal description; it loads the same under
//   `Boards/<name>.toml`, and under any other `.toml` name it is refused on its `name` key;
// - BoardCatalog.resolve of board text is BoardLoader.load of it, error for error;
// - a short text without '=' or a line break resolves only when it is a built-in board's name.
// The file-name and resolve checks run for inputs whose size is a multiple of 4 (they load again).

import BoardConfig
import HardwareInterfaces
#if canImport(Glibc)
import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    print("board fuzz invariant broken: \(message())")
    abort()
}

/// The lines of `text` as the parser counts them (LF ends a line; CR LF is one line end).
private func lineLengths(_ text: String) -> [Int] {
    var lengths: [Int] = []
    var current = 0
    for scalar in text.unicodeScalars {
        if scalar == "\n" {
            lengths.append(current)
            current = 0
        } else {
            current += 1
        }
    }
    lengths.append(current)
    return lengths
}

private func checkError(_ error: BoardError, file: String, lines: [Int], positional: Bool) {
    require(error.file == file, "error names \(error.file), not \(file)")
    require(error.description.hasPrefix(file + ":"), "error description does not start with the file: \(error.description)")
    require(!error.message.isEmpty, "empty error message")
    guard let location = error.location else {
        require(!positional, "a syntax error without a position: \(error)")
        return
    }
    require(location.line >= 1 && location.line <= lines.count, "error line \(location.line) outside 1...\(lines.count): \(error)")
    // A column may point just past the line's last character (a missing value at the end of a line).
    require(location.column >= 1 && location.column <= lines[location.line - 1] + 2,
            "error column \(location.column) outside line \(location.line) of \(lines[location.line - 1]) scalars: \(error)")
}

private func checkBoard(_ board: BoardDescription) {
    require(!board.name.isEmpty && !board.title.isEmpty, "a board without a name or title")
    require(board.simulated == (board.simulation != nil), "simulated = \(board.simulated) but [sim] \(board.simulation == nil ? "absent" : "present")")
    require(board.simulated || board.receiver != nil, "a real board without a receiver")
    require(board.sensors.isEmpty || board.i2cBus != nil, "sensors without an I2C bus")
    let addresses = board.sensors.map(\.address.rawValue)
    require(Set(addresses).count == addresses.count, "two sensors at one address: \(addresses)")
    for sensor in board.sensors {
        let m = sensor.orientation
        require(m.rows.count == 3 && m.rows.allSatisfy { $0.count == 3 && $0.allSatisfy(\.isFinite) }, "orientation is not a finite 3x3: \(m.rows)")
        // A loose bound: the loader's own tolerance applies to its own arithmetic.
        require(m.orthonormalityError <= BoardLoader.orientationTolerance * 4, "orientation not orthonormal: \(m.rows)")
        require(abs(m.determinant - 1) <= BoardLoader.orientationTolerance * 8, "orientation is not a rotation: \(m.rows)")
    }
    if let sim = board.simulation {
        require(sim.latitude.isFinite && sim.longitude.isFinite && sim.altitude.isFinite, "non-finite [sim] position")
        require((-90...90).contains(sim.latitude), "latitude \(sim.latitude) accepted")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = lineLengths(text)
    let file = "fuzz-board"

    // The TOML layer.
    var document: TOMLTable? = nil
    do {
        let table = try TOML.parse(text: text, file: file)
        document = table
        if let written = TOML.serialize(table) {
            do {
                let reread = try TOML.parse(text: written, file: "serialized")
                require(reread == table, "serialised table reads back different:\n\(written)")
                require(TOML.serialize(reread) == written, "serialising is not stable:\n\(written)")
            } catch {
                require(false, "serialised table does not parse (\(error)):\n\(written)")
            }
        }
    } catch {
        checkError(error, file: file, lines: lines, positional: true)
    }

    // The board layer.
    do {
        let board = try BoardLoader.load(text: text, file: file)
        require(document != nil, "a board loaded from text that does not parse as TOML")
        checkBoard(board)
        if let document, let written = TOML.serialize(document) {
            do {
                let again = try BoardLoader.load(text: written, file: file)
                require(again == board, "re-serialised board loads different:\n\(written)")
            } catch {
                require(false, "re-serialised board does not load (\(error)):\n\(written)")
            }
        }
        // The file-name and resolve checks each load the text again: done for one input in four (by
        // size, so mutations move inputs in and out) to keep the executions per second up.
        guard size & 3 == 0 else { return 0 }
        do {
            let named = try BoardLoader.load(text: text, file: "Boards/\(board.name).toml")
            require(named == board, "the board loads different under its own file name")
        } catch {
            require(false, "the board does not load under Boards/\(board.name).toml: \(error)")
        }
        do {
            _ = try BoardLoader.load(text: text, file: "Boards/\(board.name)-other.toml")
            require(false, "board '\(board.name)' loaded under another file name")
        } catch {
            require(error.key == "name", "a name mismatch reported on key \(error.key ?? "-"): \(error)")
        }
        do {
            require(try BoardCatalog.resolve(text, file: file) == board, "resolve differs from load")
        } catch {
            require(false, "resolve refused text that loads: \(error)")
        }
    } catch {
        checkError(error, file: file, lines: lines, positional: document == nil)
        if size & 3 == 0, text.contains(where: { $0 == "\n" || $0 == "\r\n" || $0 == "=" }) {
            do {
                _ = try BoardCatalog.resolve(text, file: file)
                require(false, "resolve accepted text that does not load")
            } catch let again {
                require(again == error, "resolve and load give different errors: \(again) vs \(error)")
            }
        }
    }

    // Short inputs without '=' or a line break are board names.
    if size <= 64, !text.contains(where: { $0 == "\n" || $0 == "\r\n" || $0 == "=" }) {
        do {
            let board = try BoardCatalog.resolve(text)
            require(BoardCatalog.builtin.contains(text) && board.name == text, "resolved '\(text)' to \(board.name)")
        } catch {
            require(!BoardCatalog.builtin.contains(text), "built-in board \(text) does not load: \(error)")
            require(error.description.contains("built-in boards"), "unknown-name error does not list the boards: \(error)")
        }
    }
    return 0
}
