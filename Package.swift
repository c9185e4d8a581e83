// swift-tools-version:6.1
//
// FieldLocation: a location service for Linux single-board computers with a UART GNSS
// receiver and an I2C magnetometer + accelerometer.
//
// Layering (arrows point to what a target may import; nothing points upward):
//
//   fieldloc (CLI) ──► FieldLocation (engine, manager, replay; Foundation allowed)
//                          │
//        ┌─────────────┬───┴────────┬──────────────┬───────────────┬──────────────┐
//        ▼             ▼            ▼              ▼               ▼              ▼
//   LinuxHardware  SimulatedHardware BoardConfig ReceiverProtocols SensorDrivers  Heading
//   (only C user)      │                           │   │             │       PowerPolicy
//        ▼             ▼                           ▼   ▼             ▼
//   CI2C, CGPIOD   HardwareInterfaces ◄────────────────┘             │
//                                     NMEA ◄───────┘                  │
//                  HardwareInterfaces ◄──────────────────────────────┘
//
// Pure targets (NMEA, HardwareInterfaces, Heading, PowerPolicy, ReceiverProtocols,
// SensorDrivers, BoardConfig) import only the Swift standard library.
import PackageDescription

let package = Package(
    name: "FieldLocation",
    products: [
        .library(name: "NMEA", targets: ["NMEA"]),
        .library(name: "FieldLocation", targets: ["FieldLocation"]),
        .executable(name: "fieldloc", targets: ["fieldloc"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // MARK: Pure targets (standard library only)
        .target(name: "NMEA"),
        .target(name: "HardwareInterfaces"),
        .target(name: "Heading", exclude: ["WMM2025.COF"]),
        .target(name: "PowerPolicy"),
        .target(name: "ReceiverProtocols", dependencies: ["NMEA", "HardwareInterfaces"]),
        .target(name: "SensorDrivers", dependencies: ["HardwareInterfaces"]),
        .target(name: "BoardConfig", dependencies: ["HardwareInterfaces"]),

        // MARK: Hardware backends
        .systemLibrary(name: "CI2C", providers: [.apt(["libi2c-dev"])]),
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .target(name: "LinuxHardware", dependencies: ["HardwareInterfaces", "CI2C", "CGPIOD"]),
        .target(
            name: "SimulatedHardware",
            dependencies: ["HardwareInterfaces", "NMEA", "ReceiverProtocols", "Heading", "SensorDrivers"]
        ),

        // MARK: Engine and executables
        .target(
            name: "FieldLocation",
            dependencies: [
                "NMEA", "HardwareInterfaces", "Heading", "PowerPolicy", "ReceiverProtocols",
                "SensorDrivers", "BoardConfig", "LinuxHardware", "SimulatedHardware",
            ]
        ),
        .executableTarget(
            name: "fieldloc",
            dependencies: [
                "FieldLocation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: Tests
        .testTarget(name: "NMEATests", dependencies: ["NMEA"]),
        .testTarget(name: "HeadingTests", dependencies: ["Heading"]),
        .testTarget(name: "PowerPolicyTests", dependencies: ["PowerPolicy"]),
        .testTarget(name: "ReceiverProtocolsTests", dependencies: ["ReceiverProtocols", "NMEA"]),
        .testTarget(
            name: "HardwareLayerTests",
            dependencies: ["HardwareInterfaces", "LinuxHardware", "SimulatedHardware", "BoardConfig", "SensorDrivers"]
        ),
        .testTarget(name: "FieldLocationTests", dependencies: ["FieldLocation", "NMEA"]),
        .testTarget(
            name: "HardwareTests",
            dependencies: ["HardwareInterfaces", "LinuxHardware", "SensorDrivers", "BoardConfig"],
            path: "HardwareTests",
            exclude: ["vm"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
