import BoardConfig
import Foundation
import HardwareInterfaces
import Testing

/// The repository's `Boards/` folder, found from this file's path (Tests/BoardConfigTests/...).
let boardsDirectory: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Boards")

/// Every `Boards/*.toml` as (name, text), sorted by name.
func boardFiles() throws -> [(name: String, text: String)] {
    let names = try FileManager.default.contentsOfDirectory(atPath: boardsDirectory.path)
        .filter { $0.hasSuffix(".toml") }.sorted()
    return try names.map { file in
        let text = try String(contentsOf: boardsDirectory.appendingPathComponent(file), encoding: .utf8)
        return (String(file.dropLast(5)), text)
    }
}

@Suite("Board files")
struct BoardFileTests {
    @Test("Boards/ holds the default and at least three real assemblies plus the HIL guest")
    func inventory() throws {
        let names = try boardFiles().map(\.name)
        #expect(names.contains("sim"))
        #expect(names.contains("hil-vm"))
        #expect(names.filter { $0 != "sim" && $0 != "hil-vm" }.count >= 3)
    }

    @Test("every file in Boards/ parses and validates")
    func everyFileValidates() throws {
        let files = try boardFiles()
        #expect(!files.isEmpty)
        for (name, text) in files {
            do {
                let board = try BoardLoader.load(text: text, file: "Boards/\(name).toml")
                #expect(board.name == name)
                #expect(!board.title.isEmpty)
                if !board.simulated {
                    #expect(board.receiver?.uart != nil, "\(name): a real board needs a UART")
                    #expect(!board.setupNotes.isEmpty, "\(name): a real board needs setup notes")
                }
                #expect(board.magnetometer != nil, "\(name): no magnetometer")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("the embedded copy equals Boards/ (run .ci/embed-boards.py after editing a board)")
    func embeddedCopyMatchesFiles() throws {
        let files = try boardFiles()
        #expect(BoardCatalog.builtin == files.map(\.name))
        for (name, text) in files {
            #expect(BoardCatalog.text(ofBuiltin: name) == text, "Boards/\(name).toml differs from BuiltinBoards.swift")
        }
    }

    @Test("the default board is simulated and needs no hardware")
    func defaultBoard() throws {
        let board = try BoardCatalog.resolve(BoardCatalog.defaultBoardName)
        #expect(board.simulated)
        #expect(board.receiver?.uart == nil)
        #expect(board.simulation?.scenario == .walk)
        #expect(board.gpio == nil)
        #expect(board.accelerometer?.chip == .lsm6dsox)
        #expect(board.accelerometer?.gyroscopeRange == 500, "the sim board has a gyroscope: the fused heading by default")
        #expect(board.simulation?.gyroscopeErrors == .typical)
        #expect(board.magnetometer?.address == I2CAddress(0x1E))
    }

    @Test("the Pi 4 NEO-M9N board has the facts its comments claim")
    func pi4Board() throws {
        let board = try BoardCatalog.resolve("pi4-neo-m9n-lsm303agr")
        #expect(board.receiver == ReceiverDescription(
            uart: "/dev/serial0", baudRate: .b38400, family: .ublox, model: "NEO-M9N",
            wake: [.extint, .uartByte, .powerEnable]))
        #expect(board.i2cBus == 1)
        #expect(board.gpio?.chip == "gpiochip0")
        #expect(board.gpio?.line(.gnssExtint) == .name("GPIO17"))
        #expect(board.gpio?.line(.gnssPowerEnable) == .name("GPIO27"))
        #expect(board.gpio?.activeLow == [.gnssReset])
        #expect(board.gpio?.bias(for: .gnssPPS) == .pullDown)
        #expect(board.gpio?.bias(for: .magDataReady) == .asIs)
        #expect(board.sensors.map(\.address.rawValue) == [0x19, 0x1E])
        #expect(board.sensors.last?.dataReady == .magDataReady)
        let up = board.sensors[0].orientation.apply((0, 0, 1))  // sensor z up -> body z -1 (up)
        #expect(up.x == 0 && up.y == 0 && up.z == -1)
        #expect(board.setupNotes.contains { $0.contains("enable_uart=1") })
        #expect(board.setupNotes.contains { $0.contains("dtparam=i2c_arm=on") })
        #expect(board.setupNotes.contains { $0.contains("dialout,i2c,gpio") })
    }

    @Test("the Adafruit HAT board has PPS on GPIO4 and the Adafruit default addresses")
    func adafruitBoard() throws {
        let board = try BoardCatalog.resolve("pizero2w-adafruit-gps-hat-lis3mdl-lsm6dsox")
        #expect(board.receiver?.family == .mediatek)
        #expect(board.receiver?.baudRate == .b9600)
        #expect(board.gpio?.line(.gnssPPS) == .name("GPIO4"))
        #expect(board.sensors.map(\.chip) == [.lsm6dsox, .lis3mdl])
        #expect(board.sensors.map(\.address.rawValue) == [0x6A, 0x1C])
        #expect(board.accelerometer?.dataReady == .accelDataReady)
    }

    @Test("the L76K board is CASIC and pairs the AK09916 with its ICM-20948")
    func l76kBoard() throws {
        let board = try BoardCatalog.resolve("pi-l76k-icm20948")
        #expect(board.receiver?.family == .casic)
        #expect(board.sensors.map(\.chip) == [.icm20948, .ak09916])
        #expect(board.magnetometer?.chip == .ak09916)
        #expect(board.accelerometer?.chip == .icm20948)
    }

    @Test("the Pi 5 board uses ttyAMA0 and says which gpiochip the RP1 header has")
    func pi5Board() throws {
        let board = try BoardCatalog.resolve("pi5-max-m10s-mmc5983ma")
        #expect(board.receiver?.uart == "/dev/ttyAMA0")
        #expect(board.setupNotes.contains { $0.contains("gpiochip4") && $0.contains("gpiochip0") })
        #expect(board.accelerometer == nil)
    }

    @Test("the HIL guest board matches the VM: i2c-stub bus 0, gpio-sim line names, ttyS1 at 9600")
    func hilBoard() throws {
        let board = try BoardCatalog.resolve("hil-vm")
        #expect(!board.simulated)
        #expect(board.receiver?.uart == "/dev/ttyS1")
        #expect(board.receiver?.baudRate == .b9600)
        #expect(board.receiver?.family == .mediatek)
        #expect(board.i2cBus == 0)
        #expect(Set(board.sensors.map(\.address.rawValue)) == [0x1E, 0x19])
        let gpio = try #require(board.gpio)
        #expect(gpio.lines == [
            .gnssPowerEnable: .name("gnss-enable"), .gnssPPS: .name("gnss-pps"),
            .magDataReady: .name("mag-drdy"), .gnssReset: .name("gnss-reset"),
        ])
    }

    @Test("resolve takes board text, and an unknown name lists the boards with a suggestion")
    func resolve() throws {
        let text = try #require(BoardCatalog.text(ofBuiltin: "sim"))
        #expect(try BoardCatalog.resolve(text, file: "my-board.txt") == BoardCatalog.resolve("sim"))
        #expect(throws: BoardError.self) { try BoardCatalog.resolve(text, file: "other.toml") }  // name must match
        do {
            _ = try BoardCatalog.resolve("hil-mv")
            Issue.record("resolved an unknown name")
        } catch {
            #expect(error.location == nil)
            #expect(error.message.hasPrefix("no built-in board by that name (did you mean 'hil-vm'?); built-in boards: hil-vm, "))
        }
    }
}
