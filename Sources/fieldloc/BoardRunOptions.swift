import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import LinuxHardware

/// The options of a command that runs a board for a while and prints what happens (`regions
/// watch`, `monitor watch`): the board, how long, and JSON lines.
struct BoardRunOptions: ParsableArguments {
    @Option(help: "Board: a built-in name (default sim) or a board file.") var board: String = BoardCatalog.defaultBoardName
    @Option(help: "How long: 30s, 5m, 1h (default 60s).") var duration: String = "60s"
    @Flag(help: "JSON lines.") var json = false

    func validate() throws {
        guard FieldLoc.Simulate.seconds(duration) != nil else { throw ValidationError("--duration '\(duration)' is not like 30s, 5m or 1h") }
    }

    /// How long to run.
    var runDuration: Duration { .seconds(FieldLoc.Simulate.seconds(duration) ?? 60) }

    /// The board's engine, keeping client state in `stateDirectory`: a board that cannot be
    /// loaded is a usage error, one that cannot be opened a failure, both with the reason.
    func openEngine(stateDirectory: String) throws -> LocationEngine {
        let description: BoardDescription
        do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
        do { return try LocationEngine.open(board: description, stateDirectory: stateDirectory, linux: LinuxPlatform()) } catch {
            throw CommandFailure(error.description)
        }
    }
}
