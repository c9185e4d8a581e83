import BoardConfig
import EnginePlatforms
import FieldLocation
import HardwareInterfaces
import NMEA
import PowerPolicy
import ReceiverProtocols

/// The sim board's engine platform with the one thing a test changes: how the clock is paced (a
/// real board's loop, `advance(until: .distantFuture)`), or the Bluetooth scanner it opens. The
/// receiver's charge is left to the engine's estimate; the rest is the simulated platform's.
struct SimulatedPlatformVariant: EnginePlatform {
    let inner: SimulatedEnginePlatform
    let pacing: EnginePacing
    let scanner: (@Sendable () throws(HardwareError) -> any BluetoothLEScanner)?

    init(_ inner: SimulatedEnginePlatform, pacing: EnginePacing? = nil,
         scanner: (@Sendable () throws(HardwareError) -> any BluetoothLEScanner)? = nil) {
        self.inner = inner
        self.pacing = pacing ?? inner.pacing
        self.scanner = scanner
    }

    var hardware: any HardwarePlatform { inner.hardware }
    var provenance: Provenance { inner.provenance }
    var providesReceiver: Bool { inner.providesReceiver }
    func receiverPort(for board: BoardDescription) -> String { inner.receiverPort(for: board) }
    func receiverLines(for board: BoardDescription) throws(HardwareError) -> ReceiverLines { try inner.receiverLines(for: board) }
    func measuredReceiverEnergy() -> EnergyLedger? { nil }
    func utcSeconds(at instant: MonotonicInstant) -> Double { inner.utcSeconds(at: instant) }
    func bluetoothScanner(for board: BoardDescription) throws(HardwareError) -> any BluetoothLEScanner {
        guard let scanner else { return try inner.bluetoothScanner(for: board) }
        return try scanner()
    }
}
