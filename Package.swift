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
// CRefclock declares chrony's SOCK sample and ntpd's SHM segment with the platform's C types and brings adjtimex,
// CBluetooth the kernel's HCI socket structures and ioctls):
//   LinuxHardware        ──► HardwareInterfaces, BluetoothHCI, DBusWire, CI2C, CGPIOD, CRefclock, CBluetooth, Glibc
// Foundation (the engine, the CLI's output, the client socket's protocol and client, the daemon and the two programs; SwiftNIO only in
// FieldLocationWire (NIOCore, for the line decoder), FieldLocationClient, FieldLocationDaemon, FieldLocationConsole and fieldlocd; swift-log
// only in the last three; swift-prometheus and swift-metrics only in FieldLocationConsole (the status page and /metrics) and fieldlocd):
//   LocationAPI          ──► Foundation, Dispatch, Beacons, BoardConfig, HardwareInterfaces, Heading, LocationServices, NMEA, PowerPolicy
//   FieldLocationStore   ──► Foundation, LinuxHardware
//   FieldLocation        ──► Foundation, LocationAPI, FieldLocationStore, Beacons, BoardConfig, Devices, HardwareInterfaces, Heading, LocationServices, NMEA, NTRIP, PowerPolicy, ReceiverProtocols, SensorDrivers
//   EnginePlatforms      ──► Foundation, LocationAPI, FieldLocation, Beacons, BoardConfig, Devices, HardwareInterfaces, Heading, LinuxHardware, LocationServices, NMEA, PowerPolicy, ReceiverProtocols, SensorDrivers, SimulatedHardware
//   FieldLocationOutput  ──► Foundation, LocationAPI, FieldLocationStore, FieldLocation, EnginePlatforms, Beacons, BoardConfig, GPSDProtocol, HardwareInterfaces, Heading, LocationServices, NMEA, PowerPolicy, ReceiverProtocols, SensorDrivers, SimulatedHardware
//   FieldLocationWire    ──► Foundation, LocationAPI, Beacons, HardwareInterfaces, Heading, LocationServices, NIOCore, PowerPolicy
//   FieldLocationClient  ──► Foundation, Dispatch, LocationAPI, FieldLocationWire, Beacons, HardwareInterfaces, LocationServices, NIOCore, NIOPosix
//   FieldLocationTime    ──► LocationAPI, FieldLocation, EnginePlatforms, BoardConfig, HardwareInterfaces, LinuxHardware, LocationServices, Logging, NMEA
//   GPSDWatch            ──► FieldLocationWire, GPSDProtocol, NIOCore, NIOPosix
//   FieldLocationDaemon  ──► Foundation, Dispatch, LocationAPI, FieldLocationStore, FieldLocation, EnginePlatforms, FieldLocationWire, FieldLocationTime, Beacons, BoardConfig, Devices, GPSDProtocol, HardwareInterfaces, LinuxHardware, LocationServices, Logging, NIOCore, NIOPosix, NMEA, ServiceLifecycle
//   FieldLocationConsole ──► LocationAPI, FieldLocation, FieldLocationOutput, FieldLocationDaemon, LocationServices, Logging, NIOCore, NIOHTTP1, NIOPosix, NMEA, Prometheus, ServiceLifecycle
//   fieldlocd            ──► Foundation, LocationAPI, FieldLocation, EnginePlatforms, FieldLocationOutput, FieldLocationWire, FieldLocationTime, FieldLocationDaemon, FieldLocationConsole, ArgumentParser, BoardConfig, HardwareInterfaces, LinuxHardware, LocationServices, Logging, Metrics, Prometheus, ServiceLifecycle
//   fieldloc             ──► Foundation, LocationAPI, FieldLocationStore, FieldLocation, EnginePlatforms, FieldLocationOutput, FieldLocationTime, GPSDWatch, ArgumentParser, Beacons, BoardConfig, HardwareInterfaces, Heading, LinuxHardware, LocationServices, NMEA, PowerPolicy, SensorDrivers, SimulatedHardware
// Hardware-in-the-loop harness (HardwareTests/, built for the HIL runs and tests, never shipped):
//   HILChecks (HardwareTests/HILChecks)   ──► HardwareInterfaces, NMEA, SensorDrivers, LocationServices, Devices, Glibc
//   fieldloc-hil (HardwareTests/HILCheck) ──► HILChecks, LinuxHardware, HardwareInterfaces, BoardConfig, BluetoothHCI, Glibc, Foundation, FieldLocation, EnginePlatforms, LocationAPI, LocationServices, NMEA
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
        .library(name: "LocationAPI", targets: ["LocationAPI"]),
        .library(name: "FieldLocation", targets: ["FieldLocation"]),
        .library(name: "EnginePlatforms", targets: ["EnginePlatforms"]),
        .library(name: "FieldLocationOutput", targets: ["FieldLocationOutput"]),
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

        // The manager API: LocationManager, the provider protocol, async sequences, diagnostics,
        // authorisation and the access policy's types, the unit's health; no engine, no hardware.
        .target(
            name: "LocationAPI",
            dependencies: ["LocationServices", "HardwareInterfaces", "Heading", "PowerPolicy", "Beacons", "BoardConfig", "NMEA"]
        ),
        // Durable files: written whole or not at all (temporary file, fsync, rename, fsync of the folder).
        .target(name: "FieldLocationStore", dependencies: ["LinuxHardware"]),
        // The engine: its subsystems (receiver, sensors, timing, corrections, beacons, clients) on an
        // EnginePlatform it is given; no Linux or simulated hardware of its own.
        .target(
            name: "FieldLocation",
            dependencies: ["LocationAPI", "FieldLocationStore", "Devices", "NMEA", "Heading", "HardwareInterfaces", "BoardConfig", "SensorDrivers", "ReceiverProtocols", "PowerPolicy", "LocationServices", "Beacons", "NTRIP"]
        ),
        // What an engine runs on: the Linux platform, the simulated boards, the replay boards; board
        // files found by name; device-node access.
        .target(
            name: "EnginePlatforms",
            dependencies: ["FieldLocation", "LocationAPI", "Devices", "BoardConfig", "HardwareInterfaces", "LinuxHardware", "SimulatedHardware", "SensorDrivers", "NMEA", "PowerPolicy", "ReceiverProtocols", "Heading", "LocationServices", "Beacons"]
        ),
        // The CLI's output: the status view, fix lines, GPX, the geomag CSV, the detect and simulate reports.
        .target(
            name: "FieldLocationOutput",
            dependencies: ["FieldLocation", "LocationAPI", "EnginePlatforms", "FieldLocationStore", "GPSDProtocol", "SensorDrivers", "Beacons", "BoardConfig", "NMEA", "Heading", "HardwareInterfaces", "LocationServices", "PowerPolicy", "ReceiverProtocols", "SimulatedHardware"]
        ),
        // The local client socket's protocol: its messages, the values' JSON forms, the line decoder
        // (a SwiftNIO decoder shared with the gpsd server); no sockets.
        .target(
            name: "FieldLocationWire",
            dependencies: ["LocationAPI", "LocationServices", "HardwareInterfaces", "Heading", "PowerPolicy", .product(name: "NIOCore", package: "swift-nio"), "Beacons"]
        ),
        // RemoteLocationProvider: the manager API over fieldlocd's local socket, for apps (no server code).
        .target(
            name: "FieldLocationClient",
            dependencies: [
                "LocationAPI", "FieldLocationWire", "LocationServices", "HardwareInterfaces", "Beacons",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The time service: the fix and the PPS edge to chrony's SOCK and ntpd's SHM refclocks.
        .target(
            name: "FieldLocationTime",
            dependencies: [
                "FieldLocation", "LocationAPI", "EnginePlatforms", "BoardConfig", "HardwareInterfaces", "LinuxHardware", "LocationServices", "NMEA",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A gpsd-protocol watch client (`?WATCH`), for `fieldloc status` against a running daemon or any gpsd.
        .target(
            name: "GPSDWatch",
            dependencies: [
                "FieldLocationWire", "GPSDProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The daemon's servers: the gpsd-compatible JSON socket (SwiftNIO) and the local client socket.
        .target(
            name: "FieldLocationDaemon",
            dependencies: [
                "FieldLocation", "LocationAPI", "EnginePlatforms", "FieldLocationTime", "FieldLocationStore", "FieldLocationWire", "GPSDProtocol", "LocationServices", "NMEA", "BoardConfig", "HardwareInterfaces", "LinuxHardware", "Beacons", "Devices",
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
                "FieldLocation", "LocationAPI", "FieldLocationOutput", "FieldLocationDaemon", "LocationServices", "NMEA",
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
                .product(name: "Prometheus", package: "swift-prometheus"), "FieldLocation", "LocationAPI", "EnginePlatforms", "FieldLocationTime",
                "FieldLocationOutput", "BoardConfig", "LinuxHardware", "HardwareInterfaces", "LocationServices",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["fieldlocd.service", "build-release.sh"]
        ),
        .executableTarget(
            name: "fieldloc",
            dependencies: [
                "FieldLocation", "LocationAPI", "EnginePlatforms", "FieldLocationStore", "FieldLocationOutput", "FieldLocationTime", "GPSDWatch",
                "HardwareInterfaces", "LinuxHardware", "BoardConfig", "Heading", "PowerPolicy",
                "SimulatedHardware", "SensorDrivers", "LocationServices", "Beacons", "NMEA",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(name: "NMEATests", dependencies: ["NMEA"]),
        // Reads Package.swift's layering comment and every target's import lines; imports no target.
        .testTarget(name: "LayeringTests"),
        .testTarget(name: "HeadingTests", dependencies: ["Heading"]),
        .testTarget(name: "HardwareInterfacesTests", dependencies: ["HardwareInterfaces"]),
        .testTarget(name: "BoardConfigTests", dependencies: ["BoardConfig", "HardwareInterfaces", "Devices"]),
        .testTarget(name: "SimulatedHardwareTests", dependencies: ["SimulatedHardware", "HardwareInterfaces", "Heading", "NMEA", "SensorDrivers", "Devices", "PowerPolicy"]),
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
        .testTarget(name: "FieldLocationTests", dependencies: ["FieldLocation", "LocationAPI", "EnginePlatforms", "FieldLocationStore", "FieldLocationOutput", "NMEA", "LocationServices", "BoardConfig", "PowerPolicy", "GPSDProtocol", "Beacons", "LinuxHardware"]),
        .testTarget(name: "LocationServicesTests", dependencies: ["LocationServices", "NMEA", "PowerPolicy", "HardwareInterfaces"]),
        .testTarget(name: "GPSDProtocolTests", dependencies: ["GPSDProtocol", "NMEA"]),
        .testTarget(name: "NTRIPTests", dependencies: ["NTRIP", "NMEA"]),
        // The NTRIP client against RTKLIB's str2str as a caster, with the emulated ZED-F9P behind it.
        .testTarget(
            name: "NTRIPCasterTests",
            dependencies: ["NTRIP", "FieldLocation", "LocationAPI", "EnginePlatforms", "FieldLocationOutput", "BoardConfig", "HardwareInterfaces", "LinuxHardware", "LocationServices"]
        ),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "FieldLocationDaemon", "FieldLocationConsole", "FieldLocationWire", "FieldLocationClient", "FieldLocation", "LocationAPI", "EnginePlatforms",
                "FieldLocationTime", "FieldLocationOutput", "FieldLocationStore", "GPSDWatch", "GPSDProtocol", "LocationServices",
                "BoardConfig", "SimulatedHardware", "NMEA", "HardwareInterfaces", "Beacons", "LinuxHardware",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["page_check.py"]
        ),
        .testTarget(
            name: "LocationManagerTests",
            dependencies: ["FieldLocation", "LocationAPI", "EnginePlatforms", "FieldLocationOutput", "LocationServices", "NMEA", "PowerPolicy", "ReceiverProtocols", "SimulatedHardware", "HardwareInterfaces", "BoardConfig", "Beacons"]
        ),

        // Hardware-in-the-loop: the Linux backends against real kernel devices (a Pi, or the
        // QEMU guest that HardwareTests/hil/ boots). The checks live in HILChecks; fieldloc-hil
        // runs them in the guest, HardwareTests runs them on a Pi when FIELDLOC_HIL_BOARD is set.
        .target(name: "HILChecks", dependencies: ["HardwareInterfaces", "NMEA", "SensorDrivers", "LocationServices", "Devices"], path: "HardwareTests/HILChecks"),
        .executableTarget(
            name: "fieldloc-hil",
            dependencies: ["HILChecks", "LinuxHardware", "HardwareInterfaces", "BoardConfig", "BluetoothHCI", "FieldLocation", "EnginePlatforms", "LocationAPI", "LocationServices", "NMEA"],
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
