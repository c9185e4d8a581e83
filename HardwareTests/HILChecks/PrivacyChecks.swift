import HardwareInterfaces
import LocationServices

/// The privacy switch and in-use light (issue 21, item 6) on real kernel lines.
extension HILChecks {
    /// PrivacyControls reads an active-low switch and drives the light through gpio-sim.
    public static let gpioPrivacySwitch = HILCheck(
        name: "gpio-privacy-switch",
        proves: "PrivacyControls (the engine's privacy switch and in-use light) reads an active-low switch input through LinuxGPIOLine as gpio-sim's pull moves it (off, on, off: each change reported once) and lights and puts out the in-use light, as gpio-sim's sysfs value shows"
    ) { context throws(HILFailure) in
        let c = context.configuration
        guard let folder = c.gpioObserver else {
            return .skipped(reason: "needs gpio-sim's observer (FIELDLOC_HIL_GPIO_OBSERVER) to move the switch")
        }
        let observer = SimulatedLineObserver(folder: folder)
        let wiring = PrivacyControls.Wiring(chip: c.gpioChip, switchLine: c.privacyLine, switchActiveLow: true,
                                            lightLine: c.lightLine)
        let controls = PrivacyControls(wiring: wiring, hardware: context.platform)
        defer { controls.release() }
        var seen: [String] = []
        // A switch to ground: pulled up it is off, pulled down it is on.
        for (pullHigh, expected) in [(true, false), (false, true), (true, false)] {
            try observer.pull(c.privacyLine, high: pullHigh)
            let change = try context.clock.poll(attempts: 50, interval: .milliseconds(20)) { () throws(HILFailure) -> Bool? in
                let (changed, problem) = controls.poll()
                if let problem { throw HILFailure(problem) }
                return changed != nil || controls.engaged == expected ? true : nil
            }
            try require(change != nil && controls.engaged == expected,
                        "with the switch line pulled \(pullHigh ? "up" : "down") the switch reads \(controls.engaged ? "on" : "off")")
            try require(controls.poll().changed == nil, "a second read of an unmoved switch reports a change")
            seen.append(expected ? "on" : "off")
        }
        for on in [true, false, true, false] {
            if let problem = controls.light(on) { throw HILFailure(problem) }
            let outside = try waitForValue(observer, c.lightLine, on, clock: context.clock)
            try require(outside == on, "the in-use light was \(on ? "lit" : "put out") but gpio-sim's value stays \(outside ? 1 : 0)")
            seen.append(on ? "lit" : "dark")
        }
        return .passed(detail: seen.joined(separator: ", "))
    }
}
