// fieldloc-hil: runs the hardware-in-the-loop checks (HILChecks) against this machine's real
// kernel devices through LinuxHardware, one line per check, and exits non-zero on any failure.
//
//   fieldloc-hil                   run every check (devices from FIELDLOC_HIL_* variables): HILChecks'
//                                  and the engine's gnss-two-receivers (ReceiverSourcesCheck.swift)
//   fieldloc-hil --only a,b        run the named checks
//   fieldloc-hil --list            print each check's name and what it proves
//   fieldloc-hil --fixture         print the i2c-stub preload, one `addr reg value` per line
//   fieldloc-hil --configuration   print the registers the checks leave configured (for i2cget;
//                                  `select ADDR REG VALUE` lines select a register bank with i2cset)
//   fieldloc-hil --chips           print the i2c-stub chip addresses, comma-separated
//   fieldloc-hil --banks           print the banked chips, ADDR:BANK_REG:BANK_MASK:START:END, comma-separated
//   fieldloc-hil --bluetooth /dev/vhci  play a Bluetooth controller on /dev/vhci (hci_vhci) and scan it
//                                  through LinuxBluetoothScanner (BluetoothChecks.swift)
//   fieldloc-hil --bluez /dev/vhci play one on /dev/vhci for the running bluetoothd and scan it through
//                                  BlueZScanner over D-Bus, restarting bluetoothd mid-scan (BlueZChecks.swift)
#if canImport(Glibc)
import Glibc
#endif
import HardwareInterfaces
import HILChecks

func say(_ line: String) {
    print(line)
    fflush(nil)  // every line reaches the console at once, even if the guest's timeout kills us
}

func fail(_ message: String, code: Int32 = 2) -> Never {
    let bytes = Array("fieldloc-hil: \(message)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(code)
}

/// Every check, in order: HILChecks' own, with the engine's two-receiver check before
/// `gnss-usb-unplug` (the guest boots without the USB receiver, which that check plugs in late).
let allChecks: [HILCheck] = {
    var checks = HILChecks.all
    checks.insert(ReceiverSourcesCheck.twoReceivers, at: checks.firstIndex { $0.name == "gnss-usb-unplug" } ?? checks.endIndex)
    return checks
}()

let arguments = Array(CommandLine.arguments.dropFirst())
var selected = allChecks
var index = 0
while index < arguments.count {
    switch arguments[index] {
    case "--list":
        for check in allChecks { say("\(check.name): \(check.proves)") }
        exit(0)
    case "--fixture":
        for value in StubFixture.preload { say(value.description) }
        exit(0)
    case "--configuration":
        for value in StubFixture.readback { say(value.description) }
        exit(0)
    case "--chips":
        say(StubFixture.chipAddresses.map(hex).joined(separator: ","))
        exit(0)
    case "--banks":
        say(StubFixture.banks.map(\.description).joined(separator: ","))
        exit(0)
    case "--bluetooth":
        guard index + 1 < arguments.count else { fail("--bluetooth needs the path of /dev/vhci") }
        exit(BluetoothChecks.run(vhci: arguments[index + 1], say: say) ? 0 : 1)
    case "--bluez":
        guard index + 1 < arguments.count else { fail("--bluez needs the path of /dev/vhci") }
        let passed = BlueZChecks.run(vhci: arguments[index + 1], environment: { getenv($0).map { String(cString: $0) } }, say: say)
        exit(passed ? 0 : 1)
    case "--only":
        guard index + 1 < arguments.count else { fail("--only needs a comma-separated list of check names") }
        var checks: [HILCheck] = []
        for name in arguments[index + 1].split(separator: ",") {
            guard let check = allChecks.first(where: { $0.name == name }) else {
                fail("--only: no check named \(name) (see --list)")
            }
            checks.append(check)
        }
        selected = checks
        index += 1
    case "-h", "--help":
        say("usage: fieldloc-hil [--only NAME,...] [--list] [--fixture] [--configuration] [--chips] [--banks] [--bluetooth /dev/vhci] [--bluez /dev/vhci]")
        say("devices come from: " + HILConfiguration.variables.joined(separator: " "))
        exit(0)
    default:
        fail("unknown argument \(arguments[index]) (try --help)")
    }
    index += 1
}

let configuration: HILConfiguration
do {
    configuration = try HILConfiguration(environment: { name in getenv(name).map { String(cString: $0) } })
} catch {
    fail("\(error)")
}

let context = HILContext(platform: makePlatform(), configuration: configuration)
let results = runHILChecks(selected, in: context) { say($0.line) }
say(summaryLine(results))
exit(results.contains(where: \.failed) ? 1 : 0)
