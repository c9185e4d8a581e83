import Beacons
import HardwareInterfaces
import SimulatedHardware
import Testing

/// The simulated radio: advertising intervals, duty cycle, path loss with fading, seeded.
@Suite struct SimulatedScannerTests {
    static let start = (latitude: 47.3769, longitude: 8.5417)

    /// A beacon `metres` north of the start, and a radio standing at the start.
    func radio(metres: Double, seed: UInt64 = 7, channel: SimulatedRadioChannel = SimulatedRadioChannel()) -> (SimulatedBeaconScanner, ManualClock) {
        let clock = ManualClock()
        let beacon = SimulatedBeacon(uuid: Adverts.uuid, major: 1, minor: 2, latitude: Self.start.latitude + metres / 111_320,
                                     longitude: Self.start.longitude, measuredPower: -59, interval: .milliseconds(100))
        let scanner = SimulatedBeaconScanner(clock: clock, beacons: [beacon], channel: channel, seed: seed) { _ in Self.start }
        return (scanner, clock)
    }

    /// Polls for `seconds` and returns every report's RSSI, checking each parses as the beacon.
    func collect(_ scanner: SimulatedBeaconScanner, _ clock: ManualClock, seconds: Int) throws -> [Int] {
        var rssis: [Int] = []
        let end = clock.now().advanced(by: .seconds(Int64(seconds)))
        while clock.now() < end {
            _ = try scanner.poll(deadline: end) { report in
                guard case .beacon(.iBeacon(let frame)) = BeaconParser.parse(report.data) else { Issue.record("not an iBeacon"); return }
                #expect(frame.uuid == Adverts.uuid && frame.major == 1 && frame.minor == 2 && frame.measuredPower == -59)
                #expect(report.timestamp <= clock.now())
                if let rssi = report.rssi { rssis.append(rssi) }
            }
        }
        return rssis
    }

    @Test func advertisesAtItsIntervalAndFollowsTheDutyCycle() throws {
        let (scanner, clock) = radio(metres: 2)
        #expect(try scanner.poll(deadline: clock.now().advanced(by: .seconds(1))) { _ in } == 0, "nothing is heard before scanning")
        try scanner.startScanning(BluetoothScanParameters())
        let continuous = try collect(scanner, clock, seconds: 20)
        // 100 ms plus the specification's 0-10 ms random delay: 190-200 adverts in 20 s.
        #expect((185...200).contains(continuous.count), "\(continuous.count)")
        try scanner.startScanning(BluetoothScanParameters(interval: .milliseconds(1000), window: .milliseconds(100)))
        let tenth = try collect(scanner, clock, seconds: 20)
        #expect((8...35).contains(tenth.count), "10 % duty cycle: \(tenth.count)")
        try scanner.stopScanning()
        #expect(try collect(scanner, clock, seconds: 5).isEmpty)
    }

    @Test func rssiFollowsThePathLossModel() throws {
        var channel = SimulatedRadioChannel()
        channel.rayleigh = false
        let model = RangingModel()
        for metres in [1.0, 4.0, 16.0] {
            let (scanner, clock) = radio(metres: metres, channel: channel)
            try scanner.startScanning(BluetoothScanParameters())
            let rssis = try collect(scanner, clock, seconds: 10)
            let mean = Double(rssis.reduce(0, +)) / Double(rssis.count)
            let expected = model.rssi(atDistance: metres, measuredPower: -59)
            #expect(abs(mean - expected) < 1, "\(metres) m: mean \(mean) dBm, model \(expected) dBm")
        }
    }

    @Test func sameSeedSameAdverts() throws {
        let (a, clockA) = radio(metres: 5, seed: 3)
        let (b, clockB) = radio(metres: 5, seed: 3)
        try a.startScanning(BluetoothScanParameters())
        try b.startScanning(BluetoothScanParameters())
        #expect(try collect(a, clockA, seconds: 5) == collect(b, clockB, seconds: 5))
    }

    @Test func faultsThrow() throws {
        let (scanner, clock) = radio(metres: 5)
        try scanner.startScanning(BluetoothScanParameters())
        scanner.unplug()
        #expect(throws: HardwareError.self) { try scanner.poll(deadline: clock.now()) { _ in } }
        scanner.close()
        #expect(throws: HardwareError.self) { try scanner.startScanning(BluetoothScanParameters()) }
    }
}
