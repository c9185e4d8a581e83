// swift-tools-version:6.1
//
// FieldLocation: a location service for Linux single-board computers with a UART GNSS
// receiver and an I2C magnetometer + accelerometer.
//
// Layering: each line names a target and every module its files may import. The lines go from the
// bottom layer up: a target imports only targets declared above it, never one below. Every target
// may also import the standard library's own modules (Swift, _Concurrency, Synchronization).
// Tests/LayeringTests reads this block and checks every `import` of every target's files against
// it, so keep it true.
// The device catalogue (Devices, one row per sensor chip, receiver family and receiver model) sits below the
// board parser, the drivers and the simulator, which keep its driver and model factories keyed by its enums.
//
// Pure (the standard library only, plus swift-numerics' RealModule where named; no Foundation, no C):
//   NMEA                 ──►
//   HardwareInterfaces   ──►
//   PowerPolicy          ──►
//   Devices              ──► PowerPolicy
//   Beacons              ──►
//   Heading              ──► RealModule
//   BoardConfig          ──► HardwareInterfaces, Devices
//   SensorDrivers        ──► HardwareInterfaces, Devices
//   ReceiverProtocols    ──► HardwareInterfaces, NMEA, Devices
//   GPSDProtocol         ──► NMEA
//   NTRIP                ──► NMEA
//   LocationServices     ──► NMEA, PowerPolicy, Heading, HardwareInterfaces, RealModule
//   SimulatedHardware    ──► HardwareInterfaces, NMEA, Heading, PowerPolicy, RealModule, Beacons, Devices
//   BluetoothHCI         ──► HardwareInterfaces
//   DBusWire             ──►
// C (the only target that touches the C library; CI2C and CGPIOD are the module maps of libi2c and libgpiod,
// CRefclock declares chrony's SOCK sample and ntpd's SHM segment with the platform's C types,
// CBluetooth the kernel's HCI socket structures and ioctls):
//   LinuxHardware        ──► HardwareInterfaces, BluetoothHCI, DBusWire, CI2C, CGPIOD, CRefclock, CBluetooth, Glibc
// Foundation (the engine, the CLI's output, the client socket's protocol and client, the daemon and the two programs; SwiftNIO only in
// FieldLocationWire (NIOCore, for the line decoder), FieldLocationClient, FieldLocationDaemon, FieldLocationConsole and fieldlocd; swift-log
// only in the last three; swift-prometheus and swift-metrics only in FieldLocationConsole (the status page and /metrics) and fieldlocd):
//   FieldLocation        ──► Foundation, Dispatch, NMEA, Heading, HardwareInterfaces, BoardConfig, SimulatedHardware, LinuxHardware, SensorDrivers, ReceiverProtocols, PowerPolicy, LocationServices, GPSDProtocol, Beacons, NTRIP, Devices
//   FieldLocationOutput  ──► Foundation, FieldLocation, NMEA, Heading, HardwareInterfaces, LocationServices, PowerPolicy, ReceiverProtocols, SimulatedHardware
//   FieldLocationWire    ──► Foundation, FieldLocation, LocationServices, HardwareInterfaces, Heading, PowerPolicy, NIOCore, Beacons
//   FieldLocationClient  ──► Foundation, Dispatch, FieldLocation, FieldLocationWire, LocationServices, HardwareInterfaces, LinuxHardware, NIOCore, NIOPosix, Beacons
//   FieldLocationDaemon  ──► Foundation, Dispatch, FieldLocation, FieldLocationWire, GPSDProtocol, LocationServices, NMEA, PowerPolicy, BoardConfig, HardwareInterfaces, Heading, LinuxHardware, NIOCore, NIOPosix, Logging, ServiceLifecycle, Beacons, Devices
//   FieldLocationConsole ──► FieldLocation, FieldLocationOutput, FieldLocationDaemon, LocationServices, NMEA, NIOCore, NIOHTTP1, NIOPosix, Logging, ServiceLifecycle, Prometheus
//   fieldlocd            ──► Foundation, FieldLocationDaemon, FieldLocationConsole, FieldLocationWire, FieldLocation, BoardConfig, LinuxHardware, HardwareInterfaces, LocationServices, ArgumentParser, Logging, ServiceLifecycle, Metrics, Prometheus
//   fieldloc             ──► Foundation, FieldLocation, FieldLocationOutput, HardwareInterfaces, LinuxHardware, BoardConfig, Heading, PowerPolicy, SimulatedHardware, SensorDrivers, LocationServices, NMEA, FieldLocationDaemon, ArgumentParser, Beacons
// Hardware-in-the-loop harness (HardwareTests/, built for the HIL runs and tests, never shipped):
//   HILChecks (HardwareTests/HILChecks)   ──► HardwareInterfaces, NMEA, SensorDrivers, LocationServices, Devices, Glibc
//   fieldloc-hil (HardwareTests/HILCheck) ──► HILChecks, LinuxHardware, HardwareInterfaces, BoardConfig, BluetoothHCI, Glibc
import PackageDescription

let package = Package(
    name: "FieldLocation",
    products: [
        .library(name: "NMEA", targets: ["NMEA"]),
        .library(name: "Heading", targets: ["Heading"]),
        .library(name: "HardwareInterfaces", targets: ["HardwareInterfaces"]),
        .library(name: "LinuxHardware", targets: ["LinuxHardware"]),
        .library(name: "BluetoothHCI", targets: ["BluetoothHCI"]),
        .library(name: "SimulatedHardware", targets: ["SimulatedHardware"]),
        .library(name: "BoardConfig", targets: ["BoardConfig"]),
        .library(name: "SensorDrivers", targets: ["SensorDrivers"]),
        .library(name: "ReceiverProtocols", targets: ["ReceiverProtocols"]),
        .library(name: "PowerPolicy", targets: ["PowerPolicy"]),
        .library(name: "Devices", targets: ["Devices"]),
        .library(name: "Beacons", targets: ["Beacons"]),
        .library(name: "LocationServices", targets: ["LocationServices"]),
        .library(name: "GPSDProtocol", targets: ["GPSDProtocol"]),
        .library(name: "NTRIP", targets: ["NTRIP"]),
        .library(name: "FieldLocation", targets: ["FieldLocation"]),
        .library(name: "FieldLocationClient", targets: ["FieldLocationClient"]),
        .executable(name: "fieldloc", targets: ["fieldloc"]),
        .executable(name: "fieldloc-hil", targets: ["fieldloc-hil"]),
        .executable(name: "fieldlocd", targets: ["fieldlocd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
    ],
    targets: [
        // Pure: standard library only.
        .target(name: "NMEA", exclude: ["QUIRKS.md"]),
        .target(name: "HardwareInterfaces"),
        .target(name: "BoardConfig", dependencies: ["HardwareInterfaces", "Devices"]),
        // Demand and state to receiver and sensor actions; no I/O.
        .target(name: "PowerPolicy"),
        // The device catalogue: one row per sensor chip, receiver family and receiver model (identity,
        // addresses, role, board-file spellings, display name, power profile); no I/O.
        .target(name: "Devices", dependencies: ["PowerPolicy"]),
        // Bluetooth LE beacons: advertisement parsing (iBeacon, AltBeacon, Eddystone), ranging, beacon regions; no I/O.
        .target(name: "Beacons"),
        // Pure: standard library plus swift-numerics' RealModule for trigonometry.
        .target(
            name: "Heading",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")],
            exclude: ["WMM2025.COF"]
        ),
        // Magnetometer and accelerometer drivers, written only against the I2CBus protocol.
        .target(name: "SensorDrivers", dependencies: ["HardwareInterfaces", "Devices"]),
        // Receiver command sets (UBX, PMTK, PCAS), identification and autobaud detection.
        .target(name: "ReceiverProtocols", dependencies: ["HardwareInterfaces", "NMEA", "Devices"]),
        // Register-map I2C devices, driveable GPIO lines, a manual clock, fault injection.
        .target(
            name: "SimulatedHardware",
            dependencies: ["HardwareInterfaces", "NMEA", "Heading", "PowerPolicy", .product(name: "RealModule", package: "swift-numerics"), "Beacons", "Devices"]
        ),

        // Pure: HCI command packets and LE advertising report events, byte for byte (no sockets).
        .target(name: "BluetoothHCI", dependencies: ["HardwareInterfaces"]),
        // Pure: the D-Bus wire format (header, marshalling, SASL lines) for BlueZ; no sockets.
        .target(name: "DBusWire"),

        // The only target that touches C: libi2c, libgpiod 1.6, termios, errno.
        .systemLibrary(
            name: "CI2C",
            providers: [.apt(["libi2c-dev"])]
        ),
        .systemLibrary(
            name: "CGPIOD",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        // chrony's SOCK sample and ntpd's SHM segment, declared with the platform's C types (no library).
        .systemLibrary(name: "CRefclock"),
        // The kernel's HCI socket structures and ioctls, declared with the platform's C types (no library).
        .systemLibrary(name: "CBluetooth"),
        .target(name: "LinuxHardware", dependencies: ["HardwareInterfaces", "BluetoothHCI", "DBusWire", "CI2C", "CGPIOD", "CRefclock", "CBluetooth"]),

        // Pure: the location services' state machines (delivery filters, regions, visits,
        // significant changes, deferred batches) over fixes; no I/O, no clock of its own.
        .target(
            name: "LocationServices",
            dependencies: ["NMEA", "PowerPolicy", "Heading", "HardwareInterfaces", .product(name: "RealModule", package: "swift-numerics")]
        ),
        // Pure: the gpsd JSON protocol (commands parsed, reports encoded); no sockets.
        .target(name: "GPSDProtocol", dependencies: ["NMEA"]),
        // Pure: the NTRIP client's protocol (requests, responses, chunked bodies, source tables,
        // RTCM 3 frames through NMEA's framer, GGA reports, backoff); no sockets.
        .target(name: "NTRIP", dependencies: ["NMEA"]),

        // Engine shared by the CLI and (later) the daemon.
        .target(
            name: "FieldLocation",
            dependencies: ["NMEA", "Heading", "HardwareInterfaces", "BoardConfig", "SimulatedHardware", "LinuxHardware", "SensorDrivers", "ReceiverProtocols", "PowerPolicy", "LocationServices", "GPSDProtocol", "Beacons", "NTRIP", "Devices"]
        ),
        // The CLI's output: the status view, fix lines, GPX, the geomag CSV, the detect and simulate reports.
        .target(
            name: "FieldLocationOutput",
            dependencies: ["FieldLocation", "NMEA", "Heading", "HardwareInterfaces", "LocationServices", "PowerPolicy", "ReceiverProtocols", "SimulatedHardware"]
        ),
        // The local client socket's protocol: its messages, the values' JSON forms, the line decoder
        // (a SwiftNIO decoder shared with the gpsd server); no sockets.
        .target(
            name: "FieldLocationWire",
            dependencies: ["FieldLocation", "LocationServices", "HardwareInterfaces", "Heading", "PowerPolicy", .product(name: "NIOCore", package: "swift-nio"), "Beacons"]
        ),
        // RemoteLocationProvider: the manager API over fieldlocd's local socket, for apps (no server code).
        .target(
            name: "FieldLocationClient",
            dependencies: [
                "FieldLocation", "FieldLocationWire", "LocationServices", "HardwareInterfaces", "LinuxHardware", "Beacons",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The daemon's servers: the gpsd-compatible JSON socket (SwiftNIO) and the local client socket.
        .target(
            name: "FieldLocationDaemon",
            dependencies: [
                "FieldLocation", "FieldLocationWire", "GPSDProtocol", "LocationServices", "NMEA", "PowerPolicy", "BoardConfig", "HardwareInterfaces", "Heading", "LinuxHardware", "Beacons", "Devices",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The unit's HTTP console: the live status page, its event stream and Prometheus /metrics (SwiftNIO's HTTP/1.1 codec).
        .target(
            name: "FieldLocationConsole",
            dependencies: [
                "FieldLocation", "FieldLocationOutput", "FieldLocationDaemon", "LocationServices", "NMEA",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "fieldlocd",
            dependencies: [
                "FieldLocationDaemon", "FieldLocationConsole", "FieldLocationWire",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"), "FieldLocation", "BoardConfig", "LinuxHardware", "HardwareInterfaces", "LocationServices",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["fieldlocd.service"]
        ),
        .executableTarget(
            name: "fieldloc",
            dependencies: [
                "FieldLocation", "FieldLocationOutput", "HardwareInterfaces", "LinuxHardware", "BoardConfig", "Heading", "PowerPolicy",
                "SimulatedHardware", "SensorDrivers", "LocationServices", "FieldLocationDaemon", "Beacons",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(name: "NMEATests", dependencies: ["NMEA"]),
        // Reads Package.swift's layering comment and every target's import lines; imports no target.
        .testTarget(name: "LayeringTests"),
        .testTarget(name: "HeadingTests", dependencies: ["Heading"]),
        .testTarget(name: "HardwareInterfacesTests", dependencies: ["HardwareInterfaces"]),
        .testTarget(name: "BoardConfigTests", dependencies: ["BoardConfig", "HardwareInterfaces", "Devices"]),
        .testTarget(name: "SimulatedHardwareTests", dependencies: ["SimulatedHardware", "HardwareInterfaces", "Heading", "NMEA", "SensorDrivers", "Devices"]),
        .testTarget(name: "SensorDriversTests", dependencies: ["SensorDrivers", "HardwareInterfaces", "Devices"]),
        .testTarget(name: "ReceiverProtocolsTests", dependencies: ["ReceiverProtocols", "HardwareInterfaces", "Devices"]),
        .testTarget(name: "PowerPolicyTests", dependencies: ["PowerPolicy"]),
        .testTarget(name: "BluetoothHCITests", dependencies: ["BluetoothHCI", "HardwareInterfaces"]),
        .testTarget(name: "DBusWireTests", dependencies: ["DBusWire"]),
        .testTarget(name: "BeaconsTests", dependencies: ["Beacons", "SimulatedHardware", "HardwareInterfaces"]),
        .testTarget(
            name: "LinuxHardwareTests",
            dependencies: ["LinuxHardware", "HardwareInterfaces", "SimulatedHardware", "ReceiverProtocols", "PowerPolicy", "NMEA", "DBusWire", "Beacons"],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "FieldLocationTests", dependencies: ["FieldLocation", "FieldLocationOutput", "NMEA", "LocationServices", "BoardConfig", "PowerPolicy", "GPSDProtocol", "Beacons", "Devices"]),
        .testTarget(name: "LocationServicesTests", dependencies: ["LocationServices", "NMEA", "PowerPolicy", "HardwareInterfaces"]),
        .testTarget(name: "GPSDProtocolTests", dependencies: ["GPSDProtocol", "NMEA"]),
        .testTarget(name: "NTRIPTests", dependencies: ["NTRIP", "NMEA"]),
        // The NTRIP client against RTKLIB's str2str as a caster, with the emulated ZED-F9P behind it.
        .testTarget(
            name: "NTRIPCasterTests",
            dependencies: ["NTRIP", "FieldLocation", "BoardConfig", "HardwareInterfaces", "LinuxHardware", "LocationServices"]
        ),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "FieldLocationDaemon", "FieldLocationConsole", "FieldLocationWire", "FieldLocationClient", "FieldLocation", "GPSDProtocol", "LocationServices",
                "BoardConfig", "SimulatedHardware", "NMEA", "HardwareInterfaces", "Beacons",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["page_check.py"]
        ),
        .testTarget(
            name: "LocationManagerTests",
            dependencies: ["FieldLocation", "FieldLocationOutput", "LocationServices", "NMEA", "PowerPolicy", "SimulatedHardware", "HardwareInterfaces", "BoardConfig", "Beacons"]
        ),

        // Hardware-in-the-loop: the Linux backends against real kernel devices (a Pi, or the
        // QEMU guest that HardwareTests/hil/ boots). The checks live in HILChecks; fieldloc-hil
        // runs them in the guest, HardwareTests runs them on a Pi when FIELDLOC_HIL_BOARD is set.
        .target(name: "HILChecks", dependencies: ["HardwareInterfaces", "NMEA", "SensorDrivers", "LocationServices", "Devices"], path: "HardwareTests/HILChecks"),
        .executableTarget(
            name: "fieldloc-hil",
            dependencies: ["HILChecks", "LinuxHardware", "HardwareInterfaces", "BoardConfig", "BluetoothHCI"],
            path: "HardwareTests/HILCheck"
        ),
        .testTarget(
            name: "HardwareTests",
            dependencies: ["HILChecks", "LinuxHardware", "HardwareInterfaces", "BoardConfig"],
            path: "HardwareTests/Tests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
