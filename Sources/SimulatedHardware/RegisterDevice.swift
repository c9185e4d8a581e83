import HardwareInterfaces
import Synchronization

/// A physical quantity fed to a simulated sensor, in the chip's own axes: µT for a
/// magnetometer, m/s² for an accelerometer, degrees per second for a gyroscope.
public enum PhysicalSource: Sendable {
    /// The same value at every instant.
    case constant(SIMD3<Double>)
    /// A value computed from the instant the chip samples.
    case function(@Sendable (MonotonicInstant) -> SIMD3<Double>)

    /// The value at `instant`.
    public func value(at instant: MonotonicInstant) -> SIMD3<Double> {
        switch self {
        case .constant(let value): return value
        case .function(let body): return body(instant)
        }
    }

    /// Zero on every axis.
    public static let zero = PhysicalSource.constant(SIMD3(0, 0, 0))

    /// Standard gravity, m/s² per g, used to turn accelerations into chip counts.
    public static let standardGravity = 9.80665

    /// 1 g up the chip's z axis: a chip lying still and level.
    public static let level = PhysicalSource.constant(SIMD3(0, 0, standardGravity))
}

/// How a chip moves its register pointer from one byte to the next within one transaction.
public enum AutoIncrementRule: Sendable, Hashable {
    /// Always to the next register (LIS2MDL core, ICM-20948, AK09916, MMC5983MA).
    case always
    /// ST parts with a multi-read bit: the pointer moves only when bit 7 of the sub-address is
    /// set, and the register is the sub-address's low 7 bits; without the bit a burst returns the
    /// same register repeatedly (LSM303AGR accelerometer, LIS3MDL).
    case subAddressBit7
    /// Only while `mask` is set in `register` (LSM6DSOX IF_INC in CTRL3_C); otherwise the same
    /// register repeats.
    case controlBit(register: UInt8, mask: UInt8)
    /// Always, but from `last` back to `first` while `mask` is set in `register` (QMC5883L
    /// ROL_PNT, rolling over 0x00-0x06).
    case rollOver(first: UInt8, last: UInt8, register: UInt8, mask: UInt8)
}

/// One register of a chip's map: where it is, its value after reset, which bits a host may write.
public struct RegisterDefinition: Sendable, Hashable {
    /// The datasheet name, for messages.
    public var name: String
    /// The register address.
    public var address: UInt8
    /// The bank (0 for chips without banks).
    public var bank: Int
    /// The value after power-on or soft reset.
    public var reset: UInt8
    /// The bits a host write changes; 0 makes the register read-only.
    public var writeMask: UInt8

    /// Creates a definition.
    public init(_ name: String, _ address: UInt8, reset: UInt8 = 0, writeMask: UInt8 = 0, bank: Int = 0) {
        self.name = name
        self.address = address
        self.bank = bank
        self.reset = reset
        self.writeMask = writeMask
    }
}

/// A chip's registers: up to 256 per bank, with reset values and write masks. Registers the
/// chip does not define read 0 and ignore writes.
public struct RegisterMap: Sendable {
    /// Registers per bank.
    public static let bankSize = 256

    /// The bank-select register, present in every bank (ICM-20948 REG_BANK_SEL).
    public struct BankSelect: Sendable, Hashable {
        /// Its address.
        public var register: UInt8
        /// The bit position of the bank number.
        public var shift: UInt8
        /// The bits that hold the bank number, before shifting.
        public var mask: UInt8

        /// Creates a bank-select description.
        public init(register: UInt8, shift: UInt8, mask: UInt8) {
            self.register = register
            self.shift = shift
            self.mask = mask
        }
    }

    /// The definitions the map was built from.
    public let definitions: [RegisterDefinition]
    /// The number of banks.
    public let bankCount: Int
    /// The bank-select register, if the chip has banks.
    public let bankSelect: BankSelect?
    /// The bank host accesses go to.
    public private(set) var bank = 0
    private var values: [UInt8]
    private var resetValues: [UInt8]
    private var writeMasks: [UInt8]

    /// Creates a map from `definitions` (definitions outside `bankCount` banks are ignored).
    public init(_ definitions: [RegisterDefinition], bankCount: Int = 1, bankSelect: BankSelect? = nil) {
        self.definitions = definitions
        self.bankCount = max(1, bankCount)
        self.bankSelect = bankSelect
        let size = self.bankCount * Self.bankSize
        resetValues = [UInt8](repeating: 0, count: size)
        writeMasks = [UInt8](repeating: 0, count: size)
        for d in definitions where d.bank >= 0 && d.bank < self.bankCount {
            resetValues[d.bank * Self.bankSize + Int(d.address)] = d.reset
            writeMasks[d.bank * Self.bankSize + Int(d.address)] = d.writeMask
        }
        values = resetValues
    }

    /// The value of `register` in the current bank (no side effects).
    public subscript(register: UInt8) -> UInt8 {
        get { values[bank * Self.bankSize + Int(register)] }
        set { values[bank * Self.bankSize + Int(register)] = newValue }
    }

    /// The value of `register` in `bank` (no side effects); banks out of range read 0.
    public subscript(bank bank: Int, register register: UInt8) -> UInt8 {
        get { bank >= 0 && bank < bankCount ? values[bank * Self.bankSize + Int(register)] : 0 }
        set { if bank >= 0 && bank < bankCount { values[bank * Self.bankSize + Int(register)] = newValue } }
    }

    /// The bits of `register` (current bank) a host may write.
    public func writeMask(_ register: UInt8) -> UInt8 {
        if let bankSelect, register == bankSelect.register { return bankSelect.mask << bankSelect.shift }
        return writeMasks[bank * Self.bankSize + Int(register)]
    }

    /// A write from the host: only the writable bits change; writing the bank-select register
    /// switches the bank. Returns the register's new value.
    @discardableResult
    public mutating func hostWrite(_ register: UInt8, _ value: UInt8) -> UInt8 {
        if let bankSelect, register == bankSelect.register {
            let selected = Int((value >> bankSelect.shift) & bankSelect.mask)
            bank = selected < bankCount ? selected : 0
            let stored = UInt8(bank) << bankSelect.shift
            for b in 0..<bankCount { values[b * Self.bankSize + Int(register)] = stored }
            return stored
        }
        let mask = writeMask(register)
        let index = bank * Self.bankSize + Int(register)
        values[index] = (values[index] & ~mask) | (value & mask)
        return values[index]
    }

    /// Sets or clears `bits` of `register` in the current bank (chip-side, ignoring write masks).
    public mutating func set(_ bits: UInt8, in register: UInt8, to on: Bool = true) {
        if on { self[register] |= bits } else { self[register] &= ~bits }
    }

    /// Restores every register to its reset value and selects bank 0.
    public mutating func reset() {
        values = resetValues
        bank = 0
    }
}

/// The behaviour of one chip behind a ``SimulatedRegisterDevice``: its register map, its
/// auto-increment rule, and what reads, writes and the passing of time do.
public protocol RegisterChipModel: Sendable {
    /// The chip's name (`LIS3MDL`).
    static var chipName: String { get }
    /// The registers.
    var registers: RegisterMap { get set }
    /// How a burst walks the registers, in the current state.
    var autoIncrement: AutoIncrementRule { get }
    /// Brings the chip up to `now`: takes the samples that fell due and sets status bits.
    mutating func advance(to now: MonotonicInstant)
    /// A host read of `register`, with the chip's side effects (clearing data-ready).
    mutating func read(_ register: UInt8, now: MonotonicInstant) -> UInt8
    /// A host write of `value` to `register`, with the chip's side effects (starting a measurement).
    mutating func write(_ register: UInt8, _ value: UInt8, now: MonotonicInstant)
}

extension RegisterChipModel {
    /// Reads the register with no side effect.
    public mutating func read(_ register: UInt8, now: MonotonicInstant) -> UInt8 { registers[register] }
    /// Writes the writable bits.
    public mutating func write(_ register: UInt8, _ value: UInt8, now: MonotonicInstant) {
        registers.hostWrite(register, value)
    }
}

/// An I2C device simulated by its register map (``RegisterChipModel``): SMBus operations walk
/// the registers by the chip's own auto-increment rule, and the chip samples on the bus's clock.
public final class SimulatedRegisterDevice<Model: RegisterChipModel>: SimulatedI2CDevice {
    private struct State {
        var model: Model
        var pointer: UInt8 = 0
    }

    private let state: Mutex<State>
    private let presence: (@Sendable () -> Bool)?

    /// Creates a device. `presence`, when given, decides whether the address is acknowledged
    /// (an AK09916 answers only while its ICM-20948's bypass is open).
    public init(_ model: Model, presence: (@Sendable () -> Bool)? = nil) {
        state = Mutex(State(model: model))
        self.presence = presence
    }

    /// The chip's name.
    public var chipName: String { Model.chipName }

    /// Whether the address is acknowledged now.
    public var acknowledgesAddress: Bool { presence?() ?? true }

    /// Runs `body` on the chip model under the device's lock: set the physical input, peek at a
    /// register, or read the mode.
    public func withModel<R: Sendable>(_ body: (inout Model) -> R) -> R {
        state.withLock { body(&$0.model) }
    }

    /// The value of `register` in `bank`, without side effects (for tests).
    public func peek(_ register: UInt8, bank: Int = 0) -> UInt8 {
        state.withLock { $0.model.registers[bank: bank, register: register] }
    }

    /// Performs one SMBus operation at `now`.
    public func handle(_ operation: I2COperation, now: MonotonicInstant) -> [UInt8] {
        state.withLock { s in
            s.model.advance(to: now)
            switch operation {
            case .quick:
                return []
            case .receiveByte:
                let value = s.model.read(s.pointer, now: now)
                s.pointer = Self.next(after: s.pointer, increment: true, rule: s.model)
                return [value]
            case .readByte(let sub):
                return Self.readBurst(&s, sub: sub, count: 1, now: now)
            case .readWord(let sub):
                return Self.readBurst(&s, sub: sub, count: 2, now: now)
            case .readBlock(let sub, let count):
                return Self.readBurst(&s, sub: sub, count: count, now: now)
            case .writeByte(let sub, let value):
                Self.writeBurst(&s, sub: sub, bytes: [value], now: now)
                return []
            case .writeWord(let sub, let value):
                Self.writeBurst(&s, sub: sub, bytes: [UInt8(value & 0xFF), UInt8(value >> 8)], now: now)
                return []
            case .writeBlock(let sub, let bytes):
                Self.writeBurst(&s, sub: sub, bytes: bytes, now: now)
                return []
            }
        }
    }

    private static func start(_ sub: UInt8, rule: AutoIncrementRule) -> (register: UInt8, increment: Bool) {
        if case .subAddressBit7 = rule { return (sub & 0x7F, sub & 0x80 != 0) }
        return (sub, true)
    }

    private static func next(after register: UInt8, increment: Bool, rule model: Model) -> UInt8 {
        switch model.autoIncrement {
        case .always: return register &+ 1
        case .subAddressBit7: return increment ? (register &+ 1) & 0x7F : register
        case .controlBit(let control, let mask):
            return model.registers[control] & mask != 0 ? register &+ 1 : register
        case .rollOver(let first, let last, let control, let mask):
            if register == last && model.registers[control] & mask != 0 { return first }
            return register &+ 1
        }
    }

    private static func readBurst(_ s: inout State, sub: UInt8, count: Int, now: MonotonicInstant) -> [UInt8] {
        let (first, increment) = start(sub, rule: s.model.autoIncrement)
        var register = first
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            bytes.append(s.model.read(register, now: now))
            register = next(after: register, increment: increment, rule: s.model)
        }
        s.pointer = register
        return bytes
    }

    private static func writeBurst(_ s: inout State, sub: UInt8, bytes: [UInt8], now: MonotonicInstant) {
        let (first, increment) = start(sub, rule: s.model.autoIncrement)
        var register = first
        for byte in bytes {
            s.model.write(register, byte, now: now)
            register = next(after: register, increment: increment, rule: s.model)
        }
        s.pointer = register
        // A mode or rate written now starts its sample clock now.
        s.model.advance(to: now)
    }
}

/// The sample clock of a chip in a continuous mode, or the pending conversion of a single-shot one.
public struct SampleTimer: Sendable, Hashable {
    /// The time between samples; `nil` while stopped.
    public private(set) var interval: Duration?
    /// When the next sample falls due; `nil` while stopped.
    public private(set) var nextDue: MonotonicInstant?

    /// A stopped timer.
    public init() {}

    /// Starts sampling every `interval`, the first sample one interval after `now`.
    public mutating func start(every interval: Duration, at now: MonotonicInstant) {
        guard interval > .zero else { stop(); return }
        if self.interval == interval, nextDue != nil { return }
        self.interval = interval
        nextDue = now.advanced(by: interval)
    }

    /// Schedules a single sample `delay` after `now`.
    public mutating func once(after delay: Duration, at now: MonotonicInstant) {
        interval = nil
        nextDue = now.advanced(by: delay)
    }

    /// Stops the timer.
    public mutating func stop() {
        interval = nil
        nextDue = nil
    }

    /// Takes the samples due by `now`: returns the instant of the latest one and how many fell
    /// due (more than one means the host missed samples), or `nil` when none did.
    public mutating func take(upTo now: MonotonicInstant) -> (instant: MonotonicInstant, count: Int)? {
        guard let due = nextDue, due <= now else { return nil }
        guard let interval else {
            nextDue = nil
            return (due, 1)
        }
        let step = UInt64(max(1, interval.nanosecondsClamped))
        let count = (now.nanoseconds - due.nanoseconds) / step + 1
        let latest = MonotonicInstant(nanoseconds: due.nanoseconds + (count - 1) * step)
        nextDue = latest.advanced(by: interval)
        return (latest, Int(min(count, UInt64(Int.max))))
    }
}

/// Raw-count helpers shared by the chip models.
enum RawCounts {
    /// `value / unitsPerCount`, rounded, clamped to `range`; `clamped` tells whether it was.
    static func counts(_ value: Double, unitsPerCount: Double, range: ClosedRange<Int> = -32768...32767) -> (value: Int, clamped: Bool) {
        guard value.isFinite, unitsPerCount > 0 else { return (0, true) }
        let scaled = (value / unitsPerCount).rounded()
        if scaled < Double(range.lowerBound) { return (range.lowerBound, true) }
        if scaled > Double(range.upperBound) { return (range.upperBound, true) }
        return (Int(scaled), false)
    }

    /// Stores a 16-bit two's-complement value at `register` and the next one, low byte first
    /// unless `bigEndian`.
    static func store(_ value: Int, at register: UInt8, bigEndian: Bool, in map: inout RegisterMap) {
        let word = UInt16(truncatingIfNeeded: value)
        let (lo, hi) = (UInt8(word & 0xFF), UInt8(word >> 8))
        map[register] = bigEndian ? hi : lo
        map[register &+ 1] = bigEndian ? lo : hi
    }

    /// Stores three axes as consecutive 16-bit values from `register`.
    static func store(_ values: [Int], at register: UInt8, bigEndian: Bool, in map: inout RegisterMap) {
        for (i, v) in values.enumerated() { store(v, at: register &+ UInt8(2 * i), bigEndian: bigEndian, in: &map) }
    }

    /// A duration of `1 / hertz` seconds.
    static func period(hertz: Double) -> Duration {
        .nanoseconds(Int64((1e9 / hertz).rounded()))
    }
}
