import Foundation
import Testing

/// The layering declared in Package.swift's comment, read as text: for each target, the folder of
/// its files, the section it is declared in and the modules it may import.
struct Layering {
    struct Target {
        var name: String
        var folder: String
        var section: String
        var allowed: Set<String>
        var line: Int
    }

    /// What every target may import: the standard library's own modules.
    static let standardLibrary: Set<String> = ["Swift", "_Concurrency", "Synchronization"]
    /// The C library and the C modules of LinuxHardware.
    static let cModules: Set<String> = ["Glibc", "CI2C", "CGPIOD", "CRefclock", "CBluetooth"]

    var targets: [String: Target] = [:]
    var order: [String] = []

    /// The package root: three folders up from this file (Tests/LayeringTests/LayeringTests.swift).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Reads the block from `// Layering` to the first line that is not a comment.
    init(manifest text: String) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("// Layering") }) else {
            throw LayeringError("Package.swift: no line starting with '// Layering'")
        }
        var section = ""
        for index in start..<lines.count {
            let line = lines[index]
            guard line.hasPrefix("//") else { break }
            let body = line.dropFirst(2)
            if !body.hasPrefix(" "), !body.isEmpty { continue }
            if !body.hasPrefix("  "), let colon = body.firstIndex(of: ":"), !body[..<colon].contains("──►") {
                // A section header: `// Pure (…):`.
                section = body[..<colon].trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let arrow = body.range(of: "──►") else { continue }
            let head = body[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces)
            let imports = body[arrow.upperBound...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            var name = head
            var folder = "Sources/" + head
            if let open = head.firstIndex(of: "("), head.hasSuffix(")") {
                name = head[..<open].trimmingCharacters(in: .whitespaces)
                folder = String(head[head.index(after: open)..<head.index(before: head.endIndex)])
            }
            guard !name.isEmpty, !name.contains(" ") else {
                throw LayeringError("Package.swift:\(index + 1): '\(head)' is not a target name")
            }
            guard targets[name] == nil else { throw LayeringError("Package.swift:\(index + 1): \(name) is declared twice") }
            targets[name] = Target(name: name, folder: folder, section: section, allowed: Set(imports), line: index + 1)
            order.append(name)
        }
        guard !targets.isEmpty else { throw LayeringError("Package.swift: the layering block declares no target") }
    }

    /// The modules a Swift file imports, with their line numbers: `import X`, `@testable import X`,
    /// `public import X`, `import struct X.Y`, also inside `#if canImport(X)`.
    static func imports(in text: String) -> [(module: String, line: Int)] {
        var out: [(String, Int)] = []
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
            while let first = words.first, first.hasPrefix("@") || ["public", "internal", "package", "private", "fileprivate"].contains(first) {
                words = words.dropFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            words = words.dropFirst()
            if let kind = words.first, kinds.contains(kind) { words = words.dropFirst() }
            guard let path = words.first else { continue }
            out.append((String(path.split(separator: ".")[0]), index + 1))
        }
        return out
    }
}

struct LayeringError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Suite("Layering: Package.swift's comment against every target's imports")
struct LayeringTests {
    static func layering() throws -> Layering {
        let manifest = Layering.packageRoot.appendingPathComponent("Package.swift")
        return try Layering(manifest: String(contentsOf: manifest, encoding: .utf8))
    }

    /// The Swift files in `folder` (relative to `root`, the package root by default) and every
    /// folder below it, as paths relative to `folder`, sorted.
    static func swiftFiles(_ folder: String, root: URL = Layering.packageRoot) -> [String] {
        let url = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            if path.hasSuffix(".swift") { files.append(path) }
        }
        return files.sorted()
    }

    /// Every import in `target`'s files (below `root`) that its line does not allow.
    static func violations(of target: Layering.Target, root: URL = Layering.packageRoot) throws -> [String] {
        var out: [String] = []
        for path in swiftFiles(target.folder, root: root) {
            let text = try String(contentsOf: root.appendingPathComponent(target.folder).appendingPathComponent(path), encoding: .utf8)
            for (module, line) in Layering.imports(in: text)
            where !target.allowed.contains(module) && !Layering.standardLibrary.contains(module) {
                out.append("\(target.folder)/\(path):\(line): \(target.name) imports \(module), which Package.swift:\(target.line) does not allow")
            }
        }
        return out
    }

    @Test("a forbidden import in a folder below a target's folder is found")
    func nestedImportsAreChecked() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("layering-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let deep = root.appendingPathComponent("Sources/Pure/Engine/Deeper")
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        try "import Swift\n".write(to: root.appendingPathComponent("Sources/Pure/Top.swift"), atomically: true, encoding: .utf8)
        try "import Glibc\n".write(to: deep.appendingPathComponent("Nested.swift"), atomically: true, encoding: .utf8)
        let target = Layering.Target(name: "Pure", folder: "Sources/Pure", section: "Pure", allowed: [], line: 1)
        #expect(Self.swiftFiles("Sources/Pure", root: root) == ["Engine/Deeper/Nested.swift", "Top.swift"])
        #expect(try Self.violations(of: target, root: root) == ["Sources/Pure/Engine/Deeper/Nested.swift:1: Pure imports Glibc, which Package.swift:1 does not allow"])
    }

    @Test("the import parser reads every form of import line, and nothing else")
    func parser() {
        let text = """
            import NMEA
            @testable import Heading
            public import struct Foundation.Data
            #if canImport(Glibc)
              import Glibc
            #endif
            // import Commented
            let important = "import Nothing"
            """
        #expect(Layering.imports(in: text).map(\.module) == ["NMEA", "Heading", "Foundation", "Glibc"])
        #expect(Layering.imports(in: text).map(\.line) == [1, 2, 3, 5])
    }

    @Test("every import of every target is one its line in Package.swift allows")
    func importsMatchTheComment() throws {
        let layering = try Self.layering()
        var violations: [String] = []
        for name in layering.order {
            let target = try #require(layering.targets[name])
            #expect(!Self.swiftFiles(target.folder).isEmpty, "\(name) (Package.swift:\(target.line)): no Swift files in \(target.folder)")
            violations += try Self.violations(of: target)
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test("every target under Sources/ is declared, and every declared module is a target, a system module or a package product")
    func everyTargetDeclared() throws {
        let layering = try Self.layering()
        let sources = Layering.packageRoot.appendingPathComponent("Sources")
        let folders = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        for folder in folders where !Self.swiftFiles("Sources/" + folder).isEmpty {
            #expect(layering.targets[folder] != nil, "Sources/\(folder) has Swift files but no line in Package.swift's layering comment")
        }
        let external: Set<String> = ["Foundation", "Dispatch", "RealModule", "NIOCore", "NIOPosix", "Logging", "ServiceLifecycle", "ArgumentParser", "NIOHTTP1", "Metrics", "Prometheus"]
        for name in layering.order {
            let target = try #require(layering.targets[name])
            for module in target.allowed where layering.targets[module] == nil {
                #expect(external.contains(module) || Layering.cModules.contains(module),
                        "Package.swift:\(target.line): \(name) may import \(module), which is neither a target nor a known module")
            }
        }
    }

    @Test("the house rules hold in the comment itself: pure targets import only pure targets and RealModule; only LinuxHardware imports C; no target imports one declared below it")
    func houseRules() throws {
        let layering = try Self.layering()
        let pure = Set(layering.order.filter { layering.targets[$0]?.section.hasPrefix("Pure") == true })
        #expect(pure.isSuperset(of: ["NMEA", "Heading", "PowerPolicy", "HardwareInterfaces", "BoardConfig", "SensorDrivers", "ReceiverProtocols"]))
        for name in pure {
            let target = try #require(layering.targets[name])
            let outside = target.allowed.subtracting(pure).subtracting(["RealModule"])
            #expect(outside.isEmpty, "pure target \(name) may import \(outside.sorted())")
        }
        for name in layering.order {
            let target = try #require(layering.targets[name])
            let c = target.allowed.intersection(Layering.cModules)
            let harness = target.folder.hasPrefix("HardwareTests/")
            #expect(c.isEmpty || name == "LinuxHardware" || harness, "\(name) may import \(c.sorted()): only LinuxHardware touches C")
            let position = try #require(layering.order.firstIndex(of: name))
            for module in target.allowed {
                if let other = layering.order.firstIndex(of: module) {
                    #expect(other < position, "\(name) may import \(module), declared below it")
                }
            }
        }
    }
}
