@testable import FieldLocationOutput
import FieldLocationStore
import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import Testing

private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `DecimalText` must spell every number exactly as `description` does (the JSON output is compared
/// byte for byte with what `"\(value)"` gave before).
struct DecimalTextTests {
    private func text(_ value: Double) -> String {
        var buffer = [UInt8](repeating: 0, count: DecimalText.maximumDoubleLength)
        let count = buffer.withUnsafeMutableBufferPointer { DecimalText.writeDouble(value, to: $0.baseAddress!) }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    private func integerText(_ value: Int) -> String {
        var buffer = [UInt8](repeating: 0, count: DecimalText.maximumIntegerLength)
        let count = buffer.withUnsafeMutableBufferPointer { DecimalText.writeInteger(value, to: $0.baseAddress!) }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    @Test("edge values: zeros, the ends of the fixed range, powers of two and ten, the largest and smallest")
    func edges() {
        var values: [Double] = [0, -0.0, 1, -1, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 100, 83.1, 38.110494, -122.626897,
                                0.0001, 0.00011, 9.9999e-5, 1e-5, 1e15, 1e15.nextDown, 1e16, 9_007_199_254_740_992,
                                9_007_199_254_740_994, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
                                .infinity, -.infinity, .nan, 0.514444, 1852.0 / 3600.0, 4.2, 99.99]
        for exponent in -30...60 {
            let power = Double(sign: .plus, exponent: exponent, significand: 1)
            values += [power, power.nextUp, power.nextDown]
        }
        var ten = 1e-6
        for _ in 0..<24 {
            values += [ten, ten.nextUp, ten.nextDown]
            ten *= 10
        }
        for value in values { #expect(text(value) == "\(value)", "\(value.bitPattern)") }
    }

    @Test("200,000 seeded random doubles of every magnitude a fix carries, and random bit patterns")
    func random() {
        var generator = SeededGenerator(state: 17)
        var mismatches = 0
        for round in 0..<200_000 {
            let value: Double
            switch round % 4 {
            case 0: value = Double(bitPattern: generator.next())
            case 1: value = Double.random(in: -180...180, using: &generator)
            case 2:
                // Short decimals, as receivers send them, and sums and products of them.
                let digits = Double(Int.random(in: -99_999_999...99_999_999, using: &generator))
                value = digits / [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000][round / 4 % 8]
                    * (round % 3 == 0 ? 1852.0 / 3600.0 : 1)
            default:
                value = Double(sign: .plus, exponent: Int.random(in: -16...52, using: &generator),
                               significand: Double.random(in: 1..<2, using: &generator))
            }
            if text(value) != "\(value)" {
                mismatches += 1
                if mismatches <= 5 { Issue.record("\(value) (\(value.bitPattern)) written as \(text(value))") }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("integers as String(_:) writes them")
    func integers() {
        for value in [0, 1, 9, 10, 99, 100, 12_345, -1, -10, -987_654_321, Int.max, Int.min, 1_000_000_000_000_000_000] {
            #expect(integerText(value) == String(value))
        }
        var generator = SeededGenerator(state: 4)
        for _ in 0..<10_000 {
            let value = Int(truncatingIfNeeded: generator.next()) >> Int.random(in: 0..<63, using: &generator)
            #expect(integerText(value) == String(value))
        }
    }
}
