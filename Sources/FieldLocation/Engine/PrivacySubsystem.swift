import BoardConfig
import HardwareInterfaces
import LocationServices
import Synchronization

/// The board's optional privacy switch and in-use light (`[gpio] privacy_switch`, `in_use_light`),
/// through ``PrivacyControls``: the switch is read once a tick; while it is asserted the engine
/// powers the receiver off (no demand reaches the policy), keeps every fix and byte to itself,
/// tells its clients why (``engagedReason``, as `denied`) and reports location services disabled.
/// The light is lit while any client holds a demand and the switch is off.
///
/// Only the thread that advances the engine touches it, except ``engaged``, which any thread reads.
final class PrivacySubsystem {
    private let controls: PrivacyControls?
    private let state = Atomic<Bool>(false)

    init(board: BoardDescription, hardware: any HardwarePlatform) {
        if let gpio = board.gpio, gpio.line(.privacySwitch) != nil || gpio.line(.inUseLight) != nil {
            let wiring = PrivacyControls.Wiring(
                chip: gpio.chip, switchLine: gpio.line(.privacySwitch), switchActiveLow: gpio.activeLow.contains(.privacySwitch),
                switchBias: gpio.bias(for: .privacySwitch), lightLine: gpio.line(.inUseLight),
                lightActiveLow: gpio.activeLow.contains(.inUseLight))
            controls = PrivacyControls(wiring: wiring, hardware: hardware)
        } else {
            controls = nil
        }
    }

    /// Whether the board has a privacy switch or an in-use light (the tick reads and lights them).
    var hasControls: Bool { controls != nil }

    /// Whether the privacy switch is asserted now (any thread).
    var engaged: Bool { state.load(ordering: .acquiring) }

    /// Reads the switch; returns its new position when it changed (`true`: switched on).
    func poll(report: (LocationError) -> Void) -> Bool? {
        guard let controls else { return nil }
        let (changed, problem) = controls.poll()
        if let problem { report(.hardware(.other, problem)) }
        if let changed { state.store(changed, ordering: .releasing) }
        return changed
    }

    /// Lights the in-use light or puts it out.
    func light(_ on: Bool, report: (LocationError) -> Void) {
        if let problem = controls?.light(on) { report(.hardware(.other, problem)) }
    }

    /// Why clients hear that location services went off.
    static let engagedReason = "the privacy switch is on: location services are disabled and the receiver is powered off"
}
