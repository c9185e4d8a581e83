import ArgumentParser

/// The `fieldloc` command: live status, replay, record, calibration and hardware detection.
///
/// Each subcommand lives in its own file in this folder and is listed in `subcommands` below.
@main
struct FieldLoc: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fieldloc",
        abstract: "FieldLocation: GNSS position and compass heading for Linux single-board computers.",
        version: "0.1.0",
        subcommands: [
            Replay.self,
            Geomag.self,
            HeadingCommand.self,
            Calibrate.self,
            Simulate.self,
            Boards.self,
            Time.self,
            Detect.self,
            Watch.self,
            Status.self,
            Regions.self,
            MonitorCommand.self,
            BeaconsCommand.self,
            Record.self,
            Export.self,
            ReceiverCommand.self,
        ]
    )

    /// Parses, validates and runs the subcommand. A mistake in the arguments (found while parsing
    /// or in a command's `validate()`) prints the usage and exits 64, as ArgumentParser does; a
    /// failure while the command runs (a missing file, an absent device) prints only the error and
    /// exits 1, even where the command reports it as a `ValidationError`.
    static func main() async {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            exit(withError: CommandFailure(error.message))
        } catch {
            exit(withError: error)
        }
    }
}

/// A command that failed for a reason other than its arguments (a file that cannot be read or
/// written, a refused save): printed as `Error: …` with exit status 1, without the usage text that
/// ArgumentParser adds to a `ValidationError`.
struct CommandFailure: Error, CustomStringConvertible {
    /// What failed, naming the file and the reason.
    let description: String

    init(_ description: String) { self.description = description }
}
