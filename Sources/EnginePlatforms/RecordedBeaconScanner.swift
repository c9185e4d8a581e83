import HardwareInterfaces
import Synchronization

/// The Bluetooth radio of a replay board: the recording's advertising reports, each handed over
/// when the engine polls at or after the instant it was received, with that instant as its
/// timestamp, so the beacon subsystem parses, ranges and monitors them as it did live. Scan
/// parameters are taken and ignored: the recording holds what the live radio heard.
final class RecordedBeaconScanner: BluetoothLEScanner {
    /// One report on the replay's clock.
    struct Report: Sendable {
        var at: MonotonicInstant
        var address: BluetoothAddress
        var rssi: Int?
        var txPower: Int?
        var isScanResponse: Bool
        var data: [UInt8]
    }

    private struct State {
        var next = 0
        var scanning = false
        var closed = false
    }

    let name: String
    let clock: any MonotonicClock
    private let reports: [Report]
    private let state = Mutex(State())

    /// The reports, in the order they were received.
    init(name: String, clock: any MonotonicClock, reports: [Report]) {
        self.name = name
        self.clock = clock
        self.reports = reports
    }

    var isScanning: Bool { state.withLock { $0.scanning } }

    func startScanning(_ parameters: BluetoothScanParameters) throws(HardwareError) {
        try state.withLock { s throws(HardwareError) in
            guard !s.closed else { throw HardwareError(.closed, device: name, operation: "start scanning", detail: "the recording's radio is closed") }
            s.scanning = true
        }
    }

    func stopScanning() throws(HardwareError) { state.withLock { $0.scanning = false } }

    func poll(deadline: MonotonicInstant, _ handler: (borrowing BluetoothAdvertisingReport) -> Void) throws(HardwareError) -> Int {
        while true {
            let now = clock.now()
            let due = try state.withLock { s throws(HardwareError) -> Range<Int> in
                guard !s.closed else { throw HardwareError(.closed, device: name, operation: "poll", detail: "the recording's radio is closed") }
                let first = s.next
                while s.next < reports.count, reports[s.next].at <= now { s.next += 1 }
                return first..<s.next
            }
            for report in reports[due] {
                report.data.withUnsafeBytes { bytes in
                    handler(BluetoothAdvertisingReport(address: report.address, rssi: report.rssi, txPower: report.txPower,
                                                       isScanResponse: report.isScanResponse, timestamp: report.at, data: bytes))
                }
            }
            if !due.isEmpty || now >= deadline { return due.count }
            let next = state.withLock { $0.next < reports.count ? reports[$0.next].at : MonotonicInstant.distantFuture }
            clock.sleep(until: min(next, deadline))
        }
    }

    func close() { state.withLock { $0.closed = true; $0.scanning = false } }

    /// Opens the radio again after ``close()``, where the recording had got to.
    func reopen() { state.withLock { $0.closed = false } }
}
