import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import PowerPolicy
import SimulatedHardware
import Testing

/// The hardware privacy switch and the in-use light (issue 21, item 6) on simulated GPIO lines.
@Suite("Privacy switch and in-use light")
struct PrivacySwitchTests {
    /// The sim board with a privacy switch (`PRIV`, active low when asked) and an in-use light (`LED`).
    static func engine(switchActiveLow: Bool = false) throws -> (LocationEngine, SimulatedGPIOLine, SimulatedGPIOLine) {
        var board = try BoardCatalog.load(builtin: "sim")
        board.gpio = GPIODescription(chip: "sim-gpio", lines: [.privacySwitch: .name("PRIV"), .inUseLight: .name("LED")],
                                     activeLow: switchActiveLow ? [.privacySwitch] : [], bias: [:])
        let engine = try LocationEngine.simulated(board: board, clock: ManualClock())
        let chip = try #require(engine.simulatedPlatform?.gpioChip(named: "sim-gpio"))
        return (engine, try #require(chip.line(named: "PRIV")), try #require(chip.line(named: "LED")))
    }

    @Test("Asserted: the receiver is powered off, clients hear why and see location services disabled; the light shows demand")
    func switchAndLight() throws {
        let (engine, privacy, light) = try Self.engine()
        let manager = LocationManager(engine: engine)
        let recorder = Recorder()
        manager.delegate = recorder
        engine.advance(by: .seconds(3))
        #expect(!light.level, "no client wants anything: the light is dark")
        manager.pausesLocationUpdatesAutomatically = false
        manager.startUpdatingLocation()
        engine.advance(by: .seconds(40))
        #expect(light.level, "a client holds a demand: the light is lit")
        #expect(!recorder.locations.isEmpty)
        #expect(manager.locationServicesEnabled)

        // Switched on: within a tick the receiver is powered off and the client is told why.
        let authorizationChanges = recorder.events.filter { if case .authorization = $0 { return true } else { return false } }.count
        privacy.drive(high: true)
        engine.advance(by: .seconds(2))
        let delivered = recorder.locations.count
        #expect(recorder.errors.contains(.denied("the privacy switch is on: location services are disabled and the receiver is powered off")))
        #expect(!engine.locationServicesEnabled && !manager.locationServicesEnabled)
        #expect(recorder.events.filter { if case .authorization = $0 { return true } else { return false } }.count == authorizationChanges + 1, "the delegate hears that authorisation changed")
        #expect(manager.diagnostics.contains(.authorizationDenied))
        #expect(engine.decision?.receiver == .idle(.backup))
        #expect(engine.decision?.reasons.first?.hasPrefix("the privacy switch is on") == true)
        #expect(!light.level, "nothing is in use while the switch is on")
        engine.advance(by: .seconds(30))
        #expect(recorder.locations.count == delivered, "no location leaves the engine while the switch is on")

        // Switched off: services come back by themselves, and the light with them.
        privacy.drive(high: false)
        engine.advance(by: .seconds(60))
        #expect(engine.locationServicesEnabled && manager.locationServicesEnabled)
        #expect(recorder.events.filter { if case .authorization = $0 { return true } else { return false } }.count == authorizationChanges + 2, "and again when the switch is turned off")
        #expect(!manager.diagnostics.contains(.authorizationDenied))
        #expect(recorder.locations.count > delivered)
        #expect(light.level)
        manager.stopUpdatingLocation()
        engine.advance(by: .seconds(2))
        #expect(!light.level, "the last demand went: the light is dark")
        #expect(recorder.errors.filter { $0 == .denied("the privacy switch is on: location services are disabled and the receiver is powered off") }.count == 1)
    }

    @Test("An active-low switch (to ground) is on at low level")
    func activeLow() throws {
        let (engine, privacy, _) = try Self.engine(switchActiveLow: true)
        privacy.drive(high: true)
        engine.advance(by: .seconds(2))
        #expect(engine.locationServicesEnabled)
        privacy.drive(high: false)
        engine.advance(by: .seconds(2))
        #expect(!engine.locationServicesEnabled)
    }

    @Test("Board files name the lines; a pull on the light or a line used twice is refused with the key")
    func boardKeys() throws {
        let base = "name = \"x\"\ntitle = \"x\"\nsimulated = true\n[sim]\nlatitude = 1\nlongitude = 2\n[gpio]\nchip = \"gpiochip0\"\n"
        let board = try BoardLoader.load(text: base + "privacy_switch = \"GPIO22\"\nin_use_light = 23\nactive_low = [\"privacy_switch\"]\npull_up = [\"privacy_switch\"]\n",
                                         file: "x.toml")
        #expect(board.gpio?.line(.privacySwitch) == .name("GPIO22") && board.gpio?.line(.inUseLight) == .offset(23))
        #expect(board.gpio?.bias(for: .privacySwitch) == .pullUp && board.gpio?.activeLow == [.privacySwitch])
        #expect(GPIOFunction.inUseLight.isOutput && !GPIOFunction.privacySwitch.isOutput)
        do {
            _ = try BoardLoader.load(text: base + "in_use_light = 23\npull_up = [\"in_use_light\"]\n", file: "x.toml")
            Issue.record("a pull on an output was accepted")
        } catch {
            #expect(error.description.contains("in_use_light") && error.description.contains("output"))
        }
        #expect(throws: BoardError.self) { try BoardLoader.load(text: base + "privacy_switch = 5\nin_use_light = 5\n", file: "x.toml") }
    }
}
