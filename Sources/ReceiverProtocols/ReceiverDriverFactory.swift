import Devices

// The driver-factory column of the device catalogue's receiver families, kept here because the
// catalogue (Devices) sits below the drivers.

extension ReceiverFamily {
    /// The family's command-set driver on `channel` with `lines`, or `nil` for a family this
    /// package sends no commands to (generic NMEA, and Airoha and Goke, which detection recognises
    /// but no driver speaks yet). `ubloxGeneration` chooses legacy CFG messages or configuration
    /// keys for a u-blox receiver; `layers` are the ones its CFG-VALSET writes.
    public func makeDriver(channel: CommandChannel, lines: ReceiverLines, ubloxGeneration: UBloxGeneration = .m10,
                           layers: UBXLayers = [.ram, .bbr]) -> (any ReceiverDriver)? {
        switch self {
        case .ublox:
            var driver = UBloxDriver(channel: channel, generation: ubloxGeneration, lines: lines)
            driver.layers = layers
            return driver
        case .mediatek: return MediaTekDriver(channel: channel, lines: lines)
        case .casic: return CASICDriver(channel: channel, lines: lines)
        case .airoha, .goke, .genericNMEA: return nil
        }
    }
}
