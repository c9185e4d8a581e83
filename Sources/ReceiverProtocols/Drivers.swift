import Devices
import HardwareInterfaces

/// The receiver's control lines, as the board file wires them; any may be absent.
public struct ReceiverLines: Sendable {
    /// Supply enable (a load switch or the module's EN pin): high = powered.
    public var powerEnable: (any GPIOLine)?
    /// u-blox EXTINT: a pulse wakes the receiver.
    public var extint: (any GPIOLine)?
    /// MediaTek/Quectel FORCE_ON: high leaves perpetual backup.
    public var forceOn: (any GPIOLine)?
    /// Reset, active low.
    public var reset: (any GPIOLine)?

    /// Creates the set.
    public init(powerEnable: (any GPIOLine)? = nil, extint: (any GPIOLine)? = nil,
                forceOn: (any GPIOLine)? = nil, reset: (any GPIOLine)? = nil) {
        self.powerEnable = powerEnable
        self.extint = extint
        self.forceOn = forceOn
        self.reset = reset
    }
}

/// What a receiver driver does. The power policy's executor is its only caller.
public protocol ReceiverDriver {
    /// The family.
    var family: ReceiverFamily { get }
    /// Sets the navigation and output interval, milliseconds.
    func setRate(milliseconds: Int) throws(ReceiverError)
    /// Chooses the NMEA sentences and their rates (every Nth fix; 0 = off).
    func setOutputs(_ rates: [NMEASentenceType: Int]) throws(ReceiverError)
    /// Enters software standby (RAM and RTC kept; a UART byte or EXTINT wakes it).
    func enterStandby() throws(ReceiverError)
    /// Enters hardware backup: supply off through the enable line, V_BCKP kept; without a line,
    /// the family's deepest software sleep.
    func enterBackup() throws(ReceiverError)
    /// Wakes from standby or backup and waits until the receiver can take commands.
    func wake() throws(ReceiverError)
    /// Restarts, keeping what `kind` keeps.
    func restart(_ kind: RestartKind) throws(ReceiverError)
    /// Turns receiver-managed cyclic tracking on or off (families without it throw unsupported).
    func setCyclicTracking(_ on: Bool) throws(ReceiverError)
    /// Switches the binary navigation output (UBX, CASIC) on or off; families without one accept only `.nmea`.
    func setBinaryOutput(_ mode: BinaryOutputMode) throws(ReceiverError)
    /// Sets the navigation filter's dynamic platform model; families without one throw unsupported.
    func setDynamicModel(_ model: DynamicModel) throws(ReceiverError)
}

extension ReceiverDriver {
    /// Rate and outputs in one call: 1 Hz GGA, RMC, GSA and GSV (every 5th) by default.
    public func configure(rateMilliseconds: Int = 1000,
                          outputs: [NMEASentenceType: Int] = [.gga: 1, .rmc: 1, .gsa: 1, .gsv: 5, .gst: 1]) throws(ReceiverError) {
        try setRate(milliseconds: rateMilliseconds)
        try setOutputs(outputs)
    }
}

extension MediaTekDriver {
    /// MediaTek receivers have no cyclic tracking (AlwaysLocate is receiver-scheduled, not a tracking mode).
    public func setCyclicTracking(_ on: Bool) throws(ReceiverError) {
        if on { throw .unsupported(family: .mediatek, operation: "track cyclically") }
    }
}

extension CASICDriver {
    /// CASIC receivers have no cyclic tracking.
    public func setCyclicTracking(_ on: Bool) throws(ReceiverError) {
        if on { throw .unsupported(family: .casic, operation: "track cyclically") }
    }
}

/// Powers up through the enable line (and waits for the boot), or sends a wake byte.
func wakeByLineOrByte(_ channel: CommandChannel, _ lines: ReceiverLines, boot: Duration) throws(ReceiverError) {
    let clock = channel.port.clock
    do {
        if let power = lines.powerEnable, try power.get() == false {
            try power.set(true)
            clock.sleep(for: boot)
        } else if let extint = lines.extint {
            try extint.pulse(true, width: .milliseconds(10), clock: clock)
            clock.sleep(for: .milliseconds(100))
        } else {
            // The first byte is eaten by the wake-up; buffered old output is dropped after it.
            try channel.port.writeAll([0xFF], deadline: clock.deadline(after: .seconds(1)))
            clock.sleep(for: .milliseconds(200))
        }
        try channel.port.discard(.input)
    } catch {
        throw .hardware(error)
    }
}

/// u-blox 6/7/M8 (legacy CFG messages) and M9/M10 (CFG-VALSET keys).
public struct UBloxDriver: ReceiverDriver {
    /// The channel to the receiver.
    public let channel: CommandChannel
    /// The generation (decides legacy messages or configuration keys).
    public let generation: UBloxGeneration
    /// The control lines.
    public let lines: ReceiverLines
    /// The layers CFG-VALSET writes (M9/M10): RAM and BBR by default; RAM only in `ram` mode.
    public var layers: UBXLayers = [.ram, .bbr]
    public var family: ReceiverFamily { .ublox }

    /// Creates a driver.
    public init(channel: CommandChannel, generation: UBloxGeneration, lines: ReceiverLines = ReceiverLines()) {
        self.channel = channel
        self.generation = generation
        self.lines = lines
    }

    public func setRate(milliseconds: Int) throws(ReceiverError) {
        guard (25...65535).contains(milliseconds) else {
            throw .invalidValue(operation: "set rate", detail: "\(milliseconds) ms is outside 25...65535 ms")
        }
        if generation.usesConfigurationKeys {
            try channel.send(UBXMessage.setValues([(.rateMeasurement, UInt64(milliseconds)), (.rateNavigation, 1)], layers: layers))
        } else {
            try channel.send(UBXMessage.rate(milliseconds: UInt16(milliseconds)))
        }
    }

    public func setOutputs(_ rates: [NMEASentenceType: Int]) throws(ReceiverError) {
        let all = NMEASentenceType.allCases.map { ($0, UInt8(max(0, min(255, rates[$0] ?? 0)))) }
        if generation.usesConfigurationKeys {
            try channel.send(UBXMessage.setValues(all.map { (UBXKey.nmeaOutput($0.0), UInt64($0.1)) }, layers: layers))
        } else {
            for (sentence, rate) in all { try channel.send(UBXMessage.nmeaOutput(sentence, rate: rate)) }
        }
    }

    /// Turns receiver-managed cyclic tracking (PSMCT) on or off.
    public func setCyclicTracking(_ on: Bool) throws(ReceiverError) {
        if generation.usesConfigurationKeys {
            try channel.send(UBXMessage.setValues(on
                ? [(.pmOperateMode, 2), (.pmOnTime, 0), (.pmUpdateEphemeris, 1), (.pmLimitPeakCurrent, 1), (.sbasEnable, 0)]
                : [(.pmOperateMode, 0)], layers: layers))
        } else {
            if on { try channel.send(UBXMessage.powerManagement(cyclic: true, updatePeriod: 1000, searchPeriod: 10000, onTime: 0)) }
            try channel.send(UBXMessage.receiverMode(lowPowerMode: on ? 1 : 0))
        }
    }

    public func enterStandby() throws(ReceiverError) {
        let request: UBXMessage
        switch generation {
        case .ublox6, .ublox7, .m8: request = .sleepRequestShort(milliseconds: 0)
        case .m9, .m10: request = .sleepRequest(milliseconds: 0, wake: lines.extint == nil ? .uartRX : [.uartRX, .extint0])
        }
        try channel.send(request)
    }

    public func enterBackup() throws(ReceiverError) {
        guard let power = lines.powerEnable else { return try enterStandby() }
        do { try power.set(false) } catch { throw .hardware(error) }
    }

    public func wake() throws(ReceiverError) {
        try wakeByLineOrByte(channel, lines, boot: .seconds(1))
    }

    public func restart(_ kind: RestartKind) throws(ReceiverError) {
        try channel.send(UBXMessage.restart(kind))
    }
}

/// MediaTek MT3339/MT3333 (PMTK): every command is acknowledged by `$PMTK001`.
public struct MediaTekDriver: ReceiverDriver {
    /// The channel.
    public let channel: CommandChannel
    /// The control lines.
    public let lines: ReceiverLines
    public var family: ReceiverFamily { .mediatek }

    /// Creates a driver.
    public init(channel: CommandChannel, lines: ReceiverLines = ReceiverLines()) {
        self.channel = channel
        self.lines = lines
    }

    public func setRate(milliseconds: Int) throws(ReceiverError) {
        guard (100...10000).contains(milliseconds) else {
            throw .invalidValue(operation: "set rate", detail: "\(milliseconds) ms is outside the MediaTek range 100...10000 ms")
        }
        try channel.send(PMTK.rate(milliseconds: milliseconds), acknowledgedAs: 220)
    }

    public func setOutputs(_ rates: [NMEASentenceType: Int]) throws(ReceiverError) {
        try channel.send(PMTK.outputs(rates), acknowledgedAs: 314)
    }

    public func enterStandby() throws(ReceiverError) {
        try channel.send(PMTK.standby, acknowledgedAs: 161)
    }

    public func enterBackup() throws(ReceiverError) {
        if let power = lines.powerEnable {
            do { try power.set(false) } catch { throw .hardware(error) }
            return
        }
        guard let forceOn = lines.forceOn else {
            // Perpetual backup without FORCE_ON could never be left: standby is the deepest safe sleep.
            return try enterStandby()
        }
        do { try forceOn.set(false) } catch { throw .hardware(error) }
        try channel.send(PMTK.perpetualBackup, acknowledgedAs: 225)
    }

    public func wake() throws(ReceiverError) {
        if let forceOn = lines.forceOn, lines.powerEnable == nil {
            do {
                // Quectel asks for at least 100 ms; a user measured 600 ms on an L96: hold 1 s.
                try forceOn.pulse(true, width: .seconds(1), clock: channel.port.clock)
                try channel.port.discard(.input)
            } catch {
                throw .hardware(error)
            }
            try channel.send(PMTK.normalMode, acknowledgedAs: 225)
            return
        }
        try wakeByLineOrByte(channel, lines, boot: .seconds(1))
    }

    public func restart(_ kind: RestartKind) throws(ReceiverError) {
        try channel.send(PMTK.restart(kind))
    }
}

/// CASIC AT6558 (Quectel L76K): `$PCAS` commands have no acknowledgement.
public struct CASICDriver: ReceiverDriver {
    /// The channel.
    public let channel: CommandChannel
    /// The control lines.
    public let lines: ReceiverLines
    public var family: ReceiverFamily { .casic }

    /// Creates a driver.
    public init(channel: CommandChannel, lines: ReceiverLines = ReceiverLines()) {
        self.channel = channel
        self.lines = lines
    }

    public func setRate(milliseconds: Int) throws(ReceiverError) {
        guard let command = PCAS.rate(milliseconds: milliseconds) else {
            throw .invalidValue(operation: "set rate", detail: "CASIC receivers take only 200, 500 or 1000 ms, not \(milliseconds)")
        }
        try channel.send(command)
    }

    public func setOutputs(_ rates: [NMEASentenceType: Int]) throws(ReceiverError) {
        try channel.send(PCAS.outputs(rates))
    }

    public func enterStandby() throws(ReceiverError) {
        try channel.send(PCAS.standby(seconds: 65535))
    }

    public func enterBackup() throws(ReceiverError) {
        guard let power = lines.powerEnable else { return try enterStandby() }
        do { try power.set(false) } catch { throw .hardware(error) }
    }

    public func wake() throws(ReceiverError) {
        try wakeByLineOrByte(channel, lines, boot: .seconds(1))
    }

    public func restart(_ kind: RestartKind) throws(ReceiverError) {
        try channel.send(PCAS.restart(kind))
    }
}
