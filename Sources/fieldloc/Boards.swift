import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation

extension FieldLoc {
    /// `fieldloc boards`: list the built-in boards, or validate board files.
    struct Boards: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the built-in boards, or validate board files.",
            discussion: """
            Without arguments lists every built-in board with its receiver, sensors and GPIO lines. With \
            names or paths, loads each and prints it, or the error naming the file, line and key; exits \
            non-zero when any is invalid.
            """)

        @Argument(help: "Board names or board file paths to validate.")
        var boards: [String] = []

        func run() throws {
            let targets = boards.isEmpty ? BoardCatalog.builtin : boards
            var failures = 0
            for target in targets {
                do {
                    let board = try BoardResolver.load(target)
                    print(BoardResolver.describe(board))
                } catch {
                    failures += 1
                    Console.err("error: \(error.description)\n")
                }
            }
            if failures > 0 { throw ExitCode(1) }
        }
    }
}
