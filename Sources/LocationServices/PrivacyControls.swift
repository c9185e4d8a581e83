import HardwareInterfaces

/// A hardware privacy switch (an input) and an in-use light (an output) on GPIO lines, as a phone's
/// location indicator: ``poll()`` reads the switch, ``light(_:)`` drives the light. Both honour an
/// active-low wiring; the switch takes the bias its board asks for (a pull-up for a switch to ground).
///
/// A line that cannot be requested is reported once (the call's `problem`) and not retried; a
/// switch that cannot be read counts as off. Used by one thread at a time (the engine's).
public final class PrivacyControls {
    /// Where the lines are and how they are wired.
    public struct Wiring: Sendable, Hashable {
        /// The GPIO chip.
        public var chip: String
        /// The switch's line, if the board has one.
        public var switchLine: GPIOLineID?
        /// Whether the switch is asserted at low level (a switch to ground with a pull-up).
        public var switchActiveLow: Bool
        /// The bias the switch's line is requested with.
        public var switchBias: GPIOBias
        /// The light's line, if the board has one.
        public var lightLine: GPIOLineID?
        /// Whether the light is lit at low level.
        public var lightActiveLow: Bool

        /// A wiring; either line may be absent.
        public init(chip: String, switchLine: GPIOLineID?, switchActiveLow: Bool = false, switchBias: GPIOBias = .asIs,
                    lightLine: GPIOLineID?, lightActiveLow: Bool = false) {
            self.chip = chip
            self.switchLine = switchLine
            self.switchActiveLow = switchActiveLow
            self.switchBias = switchBias
            self.lightLine = lightLine
            self.lightActiveLow = lightActiveLow
        }
    }

    /// The wiring.
    public let wiring: Wiring
    private let hardware: any HardwarePlatform
    private var switchLine: (any GPIOLine)?
    private var lightLine: (any GPIOLine)?
    private var switchFailed = false
    private var lightFailed = false
    /// Whether the switch was asserted at the last ``poll()``.
    public private(set) var engaged = false
    /// Whether the light is lit (as last driven); `nil` before the first ``light(_:)``.
    public private(set) var lit: Bool?

    /// Controls on `hardware`; no line is requested until first used.
    public init(wiring: Wiring, hardware: any HardwarePlatform) {
        self.wiring = wiring
        self.hardware = hardware
    }

    /// Reads the switch: its new position when it changed (`true`: switched on), and a problem
    /// the first time its line cannot be requested.
    public func poll() -> (changed: Bool?, problem: String?) {
        guard let id = wiring.switchLine else { return (nil, nil) }
        var problem: String?
        if switchLine == nil && !switchFailed {
            do {
                switchLine = try hardware.requestInput(chip: wiring.chip, line: id, edges: .none, bias: wiring.switchBias)
            } catch {
                switchFailed = true
                problem = "privacy switch: \(error); it is not watched"
            }
        }
        guard let line = switchLine, let level = try? line.get() else { return (nil, problem) }
        let on = level != wiring.switchActiveLow
        guard on != engaged else { return (nil, problem) }
        engaged = on
        return (on, problem)
    }

    /// Lights the light or puts it out (the line is written only when that changes); returns a
    /// problem the first time its line cannot be requested, or when a write fails.
    public func light(_ on: Bool) -> String? {
        guard let id = wiring.lightLine, lit != on else { return nil }
        let level = on != wiring.lightActiveLow
        if lightLine == nil {
            guard !lightFailed else { return nil }
            do {
                lightLine = try hardware.requestOutput(chip: wiring.chip, line: id, initial: level)
                lit = on
                return nil
            } catch {
                lightFailed = true
                return "in-use light: \(error); it stays dark"
            }
        }
        guard let line = lightLine else { return nil }
        do {
            try line.set(level)
            lit = on
            return nil
        } catch {
            return "in-use light: \(error)"
        }
    }

    /// Gives both lines back (the light goes to its requested initial state's line owner: the kernel).
    public func release() {
        switchLine?.release()
        lightLine?.release()
        switchLine = nil
        lightLine = nil
        lit = nil
    }
}
