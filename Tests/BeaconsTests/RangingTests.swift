import Beacons
import Testing

@Suite struct RangingTests {
    let key = BeaconRanger.Key(uuid: Adverts.uuid, major: 1, minor: 2)

    @Test func pathLossModelInvertsItself() {
        let model = RangingModel()
        for d in [0.1, 0.5, 1.0, 2.0, 7.5, 30.0] {
            let rssi = model.rssi(atDistance: d, measuredPower: -59)
            let back = model.distance(rssi: rssi, measuredPower: -59)
            #expect(abs(back - d) / d < 1e-9, "\(d) m -> \(rssi) dBm -> \(back) m")
        }
        // n = 2: each 6.02 dB below the 1 m power doubles the distance; 20 dB is ten times.
        #expect(abs(model.distance(rssi: -79, measuredPower: -59) - 10) < 1e-9)
        #expect(abs(model.distance(rssi: -59, measuredPower: -59) - 1) < 1e-12)
        #expect(model.proximity(distance: 0.3) == .immediate)
        #expect(model.proximity(distance: 2) == .near)
        #expect(model.proximity(distance: 9) == .far)
    }

    @Test func trimmedMeanDropsFades() {
        var values: [Double] = [-70, -71, -69, -70, -95, -70, -50, -71]
        let mean = values.withUnsafeMutableBufferPointer { RangingModel.trimmedMean($0, fraction: 0.25) }
        #expect(mean != nil && abs(mean! + 70.25) < 1e-9)
        var one: [Double] = [-60]
        #expect(one.withUnsafeMutableBufferPointer { RangingModel.trimmedMean($0, fraction: 0.25) } == -60)
    }

    @Test func rangesSmoothedAndFallsSilent() {
        var ranger = BeaconRanger()
        // 10 Hz for 4 s at −65 dBm with a deep fade every tenth advert.
        for i in 0..<40 {
            ranger.add(key, measuredPower: -59, rssi: i % 10 == 3 ? -90 : -65, at: Double(i) * 0.1)
        }
        let beacons = ranger.beacons(satisfying: BeaconIdentityConstraint(uuid: Adverts.uuid), at: 4)
        #expect(beacons.count == 1)
        let b = beacons[0]
        #expect(b.rssi == -65)
        #expect(abs(b.accuracy - RangingModel().distance(rssi: -65, measuredPower: -59)) < 0.01)
        #expect(b.proximity == .near)
        // Silent for longer than the silence timeout: unknown, accuracy −1, RSSI 0; then forgotten.
        let silent = ranger.beacons(satisfying: BeaconIdentityConstraint(uuid: Adverts.uuid, major: 1, minor: 2), at: 3.9 + 5.5)
        #expect(silent.first?.proximity == .unknown && silent.first?.accuracy == -1 && silent.first?.rssi == 0)
        ranger.prune(at: 30)
        #expect(ranger.count == 0)
        #expect(ranger.beacons(satisfying: BeaconIdentityConstraint(uuid: Adverts.uuid), at: 30).isEmpty)
    }

    @Test func constraintsSelectAndOrderByDistance() {
        var ranger = BeaconRanger()
        let other = BeaconUUID(high: 1, low: 2)
        ranger.add(BeaconRanger.Key(uuid: Adverts.uuid, major: 1, minor: 1), measuredPower: -59, rssi: -80, at: 1)
        ranger.add(BeaconRanger.Key(uuid: Adverts.uuid, major: 1, minor: 2), measuredPower: -59, rssi: -55, at: 1)
        ranger.add(BeaconRanger.Key(uuid: Adverts.uuid, major: 2, minor: 1), measuredPower: -59, rssi: -60, at: 1)
        ranger.add(BeaconRanger.Key(uuid: other, major: 1, minor: 1), measuredPower: -59, rssi: -40, at: 1)
        let all = ranger.beacons(satisfying: BeaconIdentityConstraint(uuid: Adverts.uuid), at: 1)
        #expect(all.map(\.minor) == [2, 1, 1] && all.map(\.major) == [1, 2, 1])
        #expect(all.map(\.proximity) == [.near, .near, .far])
        #expect(ranger.beacons(satisfying: BeaconIdentityConstraint(uuid: Adverts.uuid, major: 1), at: 1).count == 2)
        #expect(ranger.beacons(satisfying: BeaconIdentityConstraint(uuid: Adverts.uuid, major: 1, minor: 1), at: 1).count == 1)
        #expect(ranger.lastHeard(matching: BeaconIdentityConstraint(uuid: other)) == 1)
        #expect(ranger.lastHeard(matching: BeaconIdentityConstraint(uuid: BeaconUUID(high: 9, low: 9))) == nil)
    }

    @Test func regionMonitorDeterminesEntersAndExits() {
        var monitor = BeaconRegionMonitor(exitTimeout: 10)
        let region = BeaconRegion(identifier: "dock", constraint: BeaconIdentityConstraint(uuid: Adverts.uuid, major: 1))
        #expect(monitor.add(region) == nil)
        #expect(monitor.add(BeaconRegion(identifier: "", constraint: region.constraint)) != nil)
        var heard: Double? = nil
        var kinds: [BeaconRegionEvent.Kind] = []
        for t in stride(from: 0.0, through: 60, by: 1) {
            heard = (20...30).contains(t) ? t : heard
            // Heard in each whole second from 20 to 30: the seconds of the last ten that were.
            let recent = stride(from: t - 9, through: t, by: 1).filter { $0 >= 20 && $0 <= 30 }.count
            kinds += monitor.update(at: t) { _ in BeaconPresence(lastHeard: heard, recentSeconds: recent) }.map(\.kind)
            if t == 21 { #expect(monitor.state(of: "dock") == .outside, "two seconds of evidence do not enter") }
            if t == 5 { #expect(monitor.state(of: "dock") == .unknown) }
            if t == 25 { #expect(monitor.state(of: "dock") == .inside) }
        }
        #expect(kinds == [.determined(.outside), .enter, .exit])
        #expect(monitor.state(of: "dock") == .outside)
        monitor.scanningStopped()
        #expect(monitor.state(of: "dock") == .unknown)
        #expect(monitor.remove("dock") && monitor.regions.isEmpty)
    }
}

@Suite struct PresenceTests {
    @Test func presenceCountsTheSecondsHeard() {
        var ranger = BeaconRanger()
        let a = BeaconRanger.Key(uuid: Adverts.uuid, major: 1, minor: 1)
        let b = BeaconRanger.Key(uuid: Adverts.uuid, major: 1, minor: 2)
        for t in [10.1, 10.5, 12.2, 15.9] { ranger.add(a, measuredPower: -59, rssi: -70, at: t) }
        ranger.add(b, measuredPower: -59, rssi: -70, at: 13.4)
        let both = BeaconIdentityConstraint(uuid: Adverts.uuid)
        #expect(ranger.presence(matching: both, at: 16) == BeaconPresence(lastHeard: 15.9, recentSeconds: 4))
        #expect(ranger.presence(matching: both, at: 16, window: 3) == BeaconPresence(lastHeard: 15.9, recentSeconds: 1))
        #expect(ranger.presence(matching: BeaconIdentityConstraint(uuid: Adverts.uuid, major: 1, minor: 2), at: 20).recentSeconds == 1)
        #expect(ranger.presence(matching: both, at: 100).recentSeconds == 0)
        #expect(ranger.presence(matching: BeaconIdentityConstraint(uuid: BeaconUUID(high: 0, low: 0)), at: 16) == BeaconPresence(lastHeard: nil, recentSeconds: 0))
    }
}

@Suite struct CalibrationTests {
    @Test func fitRecoversTheModel() throws {
        // Exact model data at n = 2.7, −63 dBm, with ±2 dB alternating about it.
        var samples: [(distance: Double, rssi: Double)] = []
        var model = RangingModel()
        model.pathLossExponent = 2.7
        for d in [0.5, 1, 2, 4, 8] {
            for k in 0..<10 {
                samples.append((d, model.rssi(atDistance: d, measuredPower: -63) + (k % 2 == 0 ? 2 : -2)))
            }
        }
        let fit = try #require(BeaconCalibration.fit(samples))
        #expect(abs(fit.pathLossExponent - 2.7) < 1e-9)
        #expect(abs(fit.measuredPower + 63) < 1e-9)
        #expect(abs(fit.residualRMS - 2) < 1e-9)
        #expect(fit.samples == 50)
    }

    @Test func fitRefusesWhatCannotDetermineALine() {
        #expect(BeaconCalibration.fit([]) == nil)
        #expect(BeaconCalibration.fit([(1, -60)]) == nil)
        #expect(BeaconCalibration.fit([(2, -60), (2, -65), (2.5, -66)]) == nil, "the distances span less than a factor of 1.5")
        #expect(BeaconCalibration.fit([(0, -60), (2, -65)]) == nil)
        #expect(BeaconCalibration.fit([(1, -60), (.infinity, -65)]) == nil)
    }

    @Test func siteMeasuredPowerReplacesTheAdvertisedOne() throws {
        let key = BeaconRanger.Key(uuid: Adverts.uuid, major: 1, minor: 2)
        let calibration = try #require(BeaconCalibration.fit([(1, -70), (10, -100)]))
        #expect(abs(calibration.pathLossExponent - 3) < 1e-9 && abs(calibration.measuredPower + 70) < 1e-9)
        var ranger = BeaconRanger(model: calibration.applied(to: RangingModel()))
        for i in 0..<20 { ranger.add(key, measuredPower: -59, rssi: -100, at: Double(i) * 0.1) }
        let beacon = try #require(ranger.beacons(satisfying: BeaconIdentityConstraint(uuid: Adverts.uuid), at: 2).first)
        #expect(abs(beacon.accuracy - 10) < 1e-6, "−100 dBm is 10 m from −70 dBm at n = 3, whatever the beacon advertises")
        #expect(beacon.proximity == .far)
    }
}
