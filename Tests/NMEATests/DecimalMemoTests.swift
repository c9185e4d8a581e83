@testable import NMEA
import Testing

/// The assembler's memo of its last conversion: the value it gives is always the conversion's own.
@Suite("Decimal memo")
struct DecimalMemoTests {
    @Test("a run of decimals with repeats, signs and equal values in other scales converts as each alone would")
    func againstDirect() {
        var random = SplitMix(state: 0xD1A1)
        var memo = DecimalMemo()
        var speed = DecimalMemo()
        var position = DecimalMemo()
        var previous = FixedDecimal(significand: 4807038, scale: 3)
        var repeats = 0
        for _ in 0..<20_000 {
            // Half the time the same digits again, as an epoch's sentences repeat them; sometimes
            // the same value in another scale (13 and 1.30), or with the other sign.
            let decimal: FixedDecimal
            switch random.next() % 6 {
            case 0, 1, 2: decimal = previous; repeats += 1
            case 3: decimal = FixedDecimal(significand: previous.significand * 10, scale: min(previous.scale + 1, 18))
            case 4: decimal = FixedDecimal(significand: -previous.significand, scale: previous.scale)
            default: decimal = FixedDecimal(significand: Int64(random.next() % 20_000_000), scale: UInt8(random.next() % 6))
            }
            previous = decimal
            #expect(memo.value(of: decimal) { $0.doubleValue } == decimal.doubleValue)
            #expect(speed.value(of: decimal) { $0.doubleValue * 1852.0 / 3600.0 } == decimal.doubleValue * 1852.0 / 3600.0)
            let coordinate = Coordinate(degreesMinutes: FixedDecimal(significand: abs(decimal.significand), scale: decimal.scale),
                                        isNegative: random.next() % 2 == 0)
            #expect(position.degrees(of: coordinate) == coordinate.degrees)
        }
        #expect(repeats > 5_000)
    }
}
