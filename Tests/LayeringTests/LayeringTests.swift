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

/// The target graph SwiftPM builds: each target's `dependencies:` list in Package.swift, read as
/// text (target names only; products of other packages are left out).
struct DeclaredGraph {
    var dependencies: [String: Set<String>] = [:]

    init(manifest text: String) {
        var rest = Substring(text)
        var found: [Substring] = []
        let kinds = [".target(", ".executableTarget(", ".testTarget(", ".systemLibrary("]
        // The earliest declaration of any kind, until none is left.
        while let first = kinds.compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            rest = rest[first.upperBound...]
            // The declaration's body: up to the parenthesis that closes it.
            var depth = 1
            var end = rest.startIndex
            while end < rest.endIndex, depth > 0 {
                if rest[end] == "(" { depth += 1 } else if rest[end] == ")" { depth -= 1 }
                end = rest.index(after: end)
            }
            found.append(rest[..<end])
            rest = rest[end...]
        }
        for body in found {
            guard let nameRange = body.range(of: "name: \"") else { continue }
            let name = String(body[nameRange.upperBound...].prefix(while: { $0 != "\"" }))
            var deps = Set<String>()
            if let list = body.range(of: "dependencies: [") {
                var depth = 1
                var index = list.upperBound
                var text = ""
                while index < body.endIndex, depth > 0 {
                    if body[index] == "[" { depth += 1 } else if body[index] == "]" { depth -= 1 }
                    if depth > 0 { text.append(body[index]) }
                    index = body.index(after: index)
                }
                // Drop `.product(...)` entries: they name other packages' products.
                var plain = ""
                var skip = 0
                var scan = text[...]
                while let c = scan.first {
                    if scan.hasPrefix(".product(") { skip += 1; scan = scan.dropFirst(9); continue }
                    if skip > 0 { if c == ")" { skip -= 1 }; scan = scan.dropFirst(); continue }
                    plain.append(c)
                    scan = scan.dropFirst()
                }
                for part in plain.split(separator: "\"", omittingEmptySubsequences: false).enumerated() where part.offset % 2 == 1 { deps.insert(String(part.element)) }
            }
            dependencies[name] = deps
        }
    }

    /// Every target `name` depends on, directly or through others.
    func closure(of name: String) -> Set<String> {
        var seen = Set<String>()
        var stack = Array(dependencies[name] ?? [])
        while let next = stack.popLast() {
            guard seen.insert(next).inserted else { continue }
            stack += dependencies[next] ?? []
        }
        return seen
    }
}

@Suite("Layering: the target graph SwiftPM builds")
struct DeclaredGraphTests {
    static func graph() throws -> DeclaredGraph {
        DeclaredGraph(manifest: try String(contentsOf: Layering.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8))
    }

    @Test("an app linking only FieldLocationClient links neither the engine nor any hardware backend")
    func clientLinksNoEngine() throws {
        let graph = try Self.graph()
        let linked = graph.closure(of: "FieldLocationClient")
        #expect(linked.contains("LocationAPI") && linked.contains("FieldLocationWire"), "\(linked.sorted())")
        let forbidden: Set<String> = ["FieldLocation", "EnginePlatforms", "FieldLocationStore", "LinuxHardware", "SimulatedHardware",
                                      "CI2C", "CGPIOD", "CRefclock", "CBluetooth", "FieldLocationDaemon"]
        #expect(linked.isDisjoint(with: forbidden), "FieldLocationClient reaches \(linked.intersection(forbidden).sorted())")
        // The wire and the manager API too: they are what the client is made of.
        for name in ["LocationAPI", "FieldLocationWire"] {
            #expect(graph.closure(of: name).isDisjoint(with: forbidden), "\(name) reaches \(graph.closure(of: name).intersection(forbidden).sorted())")
        }
    }

    @Test("the engine target reaches neither the Linux backend's C modules nor the simulator")
    func engineHasNoPlatform() throws {
        let graph = try Self.graph()
        let engine = graph.dependencies["FieldLocation"] ?? []
        #expect(!engine.contains("LinuxHardware") && !engine.contains("SimulatedHardware"), "\(engine.sorted())")
        #expect(!graph.closure(of: "FieldLocation").contains("SimulatedHardware"))
    }

    @Test("the reader finds dependencies and skips other packages' products")
    func reader() {
        let graph = DeclaredGraph(manifest: """
            .target(name: "A"),
            .target(name: "B", dependencies: ["A", .product(name: "NIOCore", package: "swift-nio")]),
            .executableTarget(
                name: "C",
                dependencies: [
                    "B",
                    .product(name: "Logging", package: "swift-log"),
                ]
            ),
            """)
        #expect(graph.dependencies["B"] == ["A"])
        #expect(graph.dependencies["C"] == ["B"])
        #expect(graph.closure(of: "C") == ["A", "B"])
    }

    @Test("every target's declared dependencies are what its layering line allows")
    func commentMatchesGraph() throws {
        let graph = try Self.graph()
        let layering = try LayeringTests.layering()
        for name in layering.order {
            guard let target = layering.targets[name], let declared = graph.dependencies[name] else { continue }
            let packageTargets = Set(layering.order)
            let allowed = target.allowed.intersection(packageTargets)
            #expect(declared.intersection(packageTargets) == allowed,
                    "\(name): Package.swift depends on \(declared.intersection(packageTargets).sorted()), its layering line (Package.swift:\(target.line)) allows \(allowed.sorted())")
        }
    }
}
