import ArgumentParser
import BoardConfig
import EnginePlatforms
import FieldLocation
import FieldLocationOutput
import Foundation
import LinuxHardware

extension FieldLoc {
    /// `fieldloc receiver show|set|save|restore`: the receiver's own settings.
    struct ReceiverCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "receiver",
            abstract: "Read, change (in RAM), save or restore the receiver's settings.",
            discussion: """
            The daemon must not be running (it holds the port). `set` keeps the settings it read before its \
            first change in the state folder (receiver-BOARD.settings); `restore` writes them back. See \
            docs/RECEIVER-CONFIG.md for what each receiver family reads, writes and restores.
            """,
            subcommands: [Show.self, Set.self, Save.self, Restore.self])

        struct Options: ParsableArguments {
            @Option(help: "A built-in board name or a board file.")
            var board = "sim"

            @Option(name: .customLong("state-dir"), help: "Folder of the settings snapshot (default: the CLI's state folder).")
            var stateDirectory: String?

            func tool() throws -> (ReceiverSettingsTool, String) {
                let description: BoardDescription
                do { description = try BoardResolver.load(board) } catch { throw ValidationError(error.description) }
                let platform: any EnginePlatform
                do { platform = try BoardHardware.enginePlatform(for: description, linux: LinuxPlatform()) } catch {
                    throw ValidationError(error.description)
                }
                do {
                    let tool = try ReceiverSettingsTool(board: description, platform: platform)
                    let path = ReceiverSettingsTool.snapshotPath(board: description.name,
                                                                 directory: stateDirectory ?? CalibrationStore.defaultDirectory())
                    return (tool, path)
                } catch {
                    throw ValidationError(error.description)
                }
            }
        }

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Print the receiver's current settings.")
            @OptionGroup var options: Options
            func run() throws {
                let (tool, _) = try options.tool()
                do { print(try tool.showText(), terminator: "") } catch { throw CommandFailure(error.description) }
            }
        }

        struct Set: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Change settings in RAM (the previous ones are kept for restore).")
            @OptionGroup var options: Options
            @Option(help: "The navigation interval, ms.")
            var rate: Int?
            @Option(help: "The NMEA sentences: GGA,RMC or GGA:1,GSV:5 (others off).")
            var sentences: String?
            func run() throws {
                guard rate != nil || sentences != nil else { throw ValidationError("give --rate and/or --sentences") }
                let (tool, path) = try options.tool()
                do {
                    let before = try tool.set(rateMilliseconds: rate, sentences: sentences, snapshotPath: path)
                    print("before:\n\(before)now:\n\(try tool.showText())", terminator: "")
                } catch { throw CommandFailure(error.description) }
            }
        }

        struct Save: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Save the current settings to the receiver's non-volatile memory and verify them.")
            @OptionGroup var options: Options
            func run() throws {
                let (tool, _) = try options.tool()
                do { try tool.save(); print("saved and verified") } catch { throw CommandFailure(error.description) }
            }
        }

        struct Restore: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Put back the settings read before the first `set`.")
            @OptionGroup var options: Options
            func run() throws {
                let (tool, path) = try options.tool()
                do { print("restored:\n" + (try tool.restoreText(snapshotPath: path)), terminator: "") } catch { throw CommandFailure(error.description) }
            }
        }
    }
}
