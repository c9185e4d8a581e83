import Beacons
import BoardConfig
import Foundation
import HardwareInterfaces
import SimulatedHardware

extension BoardHardware {
    /// The simulated Bluetooth radio of a simulated board that names an adapter: it hears the
    /// board's `[[beacon]]`s (placed in metres east and north of the start position) from where
    /// `trajectory` (starting now on `clock`) puts the unit. `nil` without an adapter.
    static func simulatedBeaconScanner(for board: BoardDescription, clock: ManualClock, trajectory: Trajectory,
                                       seed: UInt64 = 19) -> SimulatedBeaconScanner? {
        guard let adapter = board.bluetooth, let sim = board.simulation else { return nil }
        let metresPerDegree = 111_320.0
        let latitude = sim.latitude, longitude = sim.longitude
        let cosine = max(0.01, cos(latitude * .pi / 180))
        let beacons = sim.beacons.compactMap { b -> SimulatedBeacon? in
            guard let uuid = BeaconUUID(b.uuid), let major = UInt16(exactly: b.major), let minor = UInt16(exactly: b.minor) else { return nil }
            return SimulatedBeacon(uuid: uuid, major: major, minor: minor,
                                   latitude: latitude + b.north / metresPerDegree,
                                   longitude: longitude + b.east / (metresPerDegree * cosine),
                                   measuredPower: b.measuredPower, interval: .milliseconds(Int64(b.intervalMilliseconds)))
        }
        return SimulatedBeaconScanner(name: adapter, clock: clock, beacons: beacons, trajectory: trajectory, start: clock.now(), seed: seed)
    }

}
