/// Why one field of a sentence could not be read.
public enum FieldProblem: Sendable, Hashable, CustomStringConvertible {
    /// A required field is empty or absent.
    case missing
    /// The field is not a number (the byte offset within the field of the first bad character).
    case notANumber(offset: Int)
    /// The number has more digits than 18, or more than 18 fractional digits.
    case tooManyDigits
    /// The value is outside the range the field allows.
    case outOfRange
    /// A single-letter field holds a letter that the field does not allow.
    case unexpectedValue(UInt8)
    /// A `hhmmss.ss` time field is malformed.
    case badTime
    /// A `ddmmyy` date field is malformed.
    case badDate

    public var description: String {
        switch self {
        case .missing: return "required but empty"
        case .notANumber(let offset): return "not a number (bad character at offset \(offset) in the field)"
        case .tooManyDigits: return "more than 18 digits"
        case .outOfRange: return "out of range"
        case .unexpectedValue(let byte): return "unexpected value \(printable(byte))"
        case .badTime: return "malformed time (expected hhmmss[.sss])"
        case .badDate: return "malformed date (expected ddmmyy)"
        }
    }
}

/// Why a sentence was rejected. Every case says what and, where it applies, which field and why.
public enum NMEAError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The checksum written in the sentence does not match the one computed over its bytes.
    case checksumMismatch(calculated: UInt8, found: UInt8)
    /// The sentence has no `*hh` checksum and checksums are required.
    case missingChecksum
    /// The characters after `*` are not two hexadecimal digits.
    case malformedChecksum
    /// The address field (talker and sentence type) is empty, too long or not upper-case letters and digits.
    case malformedAddress
    /// The sentence does not start with `$` or `!`.
    case missingStartDelimiter
    /// A field could not be read. `field` counts from 1 after the address, as NMEA documents do.
    case badField(sentence: SentenceType, field: Int, problem: FieldProblem)
    /// A standard sentence longer than ``NMEAParser/maximumStandardLength`` bytes: not one sentence
    /// but two merged with fields lost (Garmin GPS-10, gpsd's `NMEA_MAX`), whose fields cannot be trusted.
    case tooLong(length: Int)

    public var description: String {
        switch self {
        case .checksumMismatch(let calculated, let found):
            return "checksum mismatch: calculated \(hex(calculated)), found \(hex(found))"
        case .missingChecksum: return "no checksum (checksums are required)"
        case .malformedChecksum: return "malformed checksum (expected *hh)"
        case .malformedAddress: return "malformed address field"
        case .missingStartDelimiter: return "sentence does not start with $ or !"
        case .badField(let sentence, let field, let problem):
            return "\(sentence) field \(field): \(problem)"
        case .tooLong(let length):
            return "standard sentence of \(length) bytes, longer than \(NMEAParser.maximumStandardLength) (merged sentences?)"
        }
    }

    /// A short stable name for counting rejections by reason.
    public var reason: RejectionReason {
        switch self {
        case .checksumMismatch: return .checksumMismatch
        case .missingChecksum: return .missingChecksum
        case .malformedChecksum: return .malformedChecksum
        case .malformedAddress, .missingStartDelimiter: return .malformedAddress
        case .badField: return .badField
        case .tooLong: return .tooLong
        }
    }
}

/// Reasons a sentence or frame is rejected, for counters.
public enum RejectionReason: Int, Sendable, CaseIterable, CustomStringConvertible {
    case checksumMismatch, missingChecksum, malformedChecksum, malformedAddress, badField
    case tooLong, garbage, badBinaryChecksum

    public var description: String {
        switch self {
        case .checksumMismatch: return "checksum-mismatch"
        case .missingChecksum: return "missing-checksum"
        case .malformedChecksum: return "malformed-checksum"
        case .malformedAddress: return "malformed-address"
        case .badField: return "bad-field"
        case .tooLong: return "too-long"
        case .garbage: return "garbage-bytes"
        case .badBinaryChecksum: return "bad-binary-checksum"
        }
    }
}

func hex(_ value: UInt8) -> String {
    let (a, b) = NMEAChecksum.hexDigits(value)
    return String(decoding: [a, b], as: UTF8.self)
}

func printable(_ byte: UInt8) -> String {
    (0x20..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(hex(byte))"
}
