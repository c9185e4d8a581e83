// swift-tools-version:6.1
//
// FieldLocation: a location service for Linux single-board computers with a UART GNSS
// receiver and an I2C magnetometer + accelerometer.
//
// Layering (arrows point to what a target may import; nothing points upward):
//
//   fieldloc (CLI) ──► FieldLocation (engine: replay, JSON, geodesy; Foundation allowed)
//                          │
//                          ▼
//                        NMEA (standard library only: framer, parser, epoch assembler)
//
// The hardware layer, heading, receiver control, power policy and the manager API join this
// graph as their own targets (see README.md, "Status").
import PackageDescription

let package = Package(
    name: "FieldLocation",
    products: [
        .library(name: "NMEA", targets: ["NMEA"]),
        .library(name: "Heading", targets: ["Heading"]),
        .library(name: "FieldLocation", targets: ["FieldLocation"]),
        .executable(name: "fieldloc", targets: ["fieldloc"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
    ],
    targets: [
        // Pure: standard library only.
        .target(name: "NMEA"),
        // Pure: standard library plus swift-numerics' RealModule for trigonometry.
        .target(
            name: "Heading",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")],
            exclude: ["WMM2025.COF"]
        ),

        // Engine shared by the CLI and (later) the daemon.
        .target(name: "FieldLocation", dependencies: ["NMEA", "Heading"]),
        .executableTarget(
            name: "fieldloc",
            dependencies: [
                "FieldLocation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(name: "NMEATests", dependencies: ["NMEA"]),
        .testTarget(name: "HeadingTests", dependencies: ["Heading"]),
        .testTarget(name: "FieldLocationTests", dependencies: ["FieldLocation", "NMEA"]),
    ],
    swiftLanguageModes: [.v6]
)
