#if canImport(NMEA)
import NMEA
#endif

extension GPSDDevice {
    /// The driver name gpsd gives a device by what its fixes came from: `u-blox` for UBX, `CASIC` for
    /// CASIC binary (gpsd's `driver_ubx.c` and `driver_casic.c` names), `NMEA0183` for NMEA alone.
    public static func driverName(for binary: BinaryProtocol?) -> String { binary?.description ?? "NMEA0183" }
}
