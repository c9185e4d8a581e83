// engine-soak: 24 simulated hours of the sim board through the whole engine (receiver emulator ->
// NMEA engine -> fixes at 1 Hz; simulated LSM303AGR -> drivers -> heading at 10 Hz) on the manual
// clock, with managers and async sessions coming and going. Prints, per simulated hour, resident
// memory and the CPU time that hour took, and exits non-zero when memory grows by more than 1 MiB
// after the warm-up hour.
//
//   swift run -c release engine-soak [HOURS]
import BoardConfig
import EnginePlatforms
import FieldLocation
import LocationAPI
import Foundation
import LocationServices
import PowerPolicy
import SimulatedHardware

func residentKiB() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

final class Counter: LocationManagerDelegate, @unchecked Sendable {
    let lock = NSLock()
    var locations = 0, headings = 0, errors = 0, regionEvents = 0
    func locationManager(_ m: LocationManager, didUpdateLocations l: [Location]) { lock.withLock { locations += l.count } }
    func locationManager(_ m: LocationManager, didUpdateHeading h: HeadingUpdate) { lock.withLock { headings += 1 } }
    func locationManager(_ m: LocationManager, didFailWithError e: LocationError) { lock.withLock { errors += 1 } }
    func locationManager(_ m: LocationManager, didEnterRegion r: CircularRegion, location: Location) { lock.withLock { regionEvents += 1 } }
    func locationManager(_ m: LocationManager, didExitRegion r: CircularRegion, location: Location) { lock.withLock { regionEvents += 1 } }
}

let hours = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 24
let board = try BoardCatalog.load(builtin: "sim")
// Always moving (a still unit needs no new fix, so the policy would idle the receiver): a walk
// around a square, one side every ten minutes, at 1.4 m/s for the whole run.
let legs = (0..<(hours * 6 + 1)).map { Trajectory.Leg(duration: 600, speed: 1.4, course: Double(($0 % 4) * 90)) }
let track = Trajectory.legs(legs, latitude: 47.3769, longitude: 8.5417)
let engine = try LocationEngine.simulated(board: board, trajectory: track)
let counter = Counter()
// One manager all day long at 1 Hz with headings at 10 Hz (no heading filter).
let resident = LocationManager(engine: engine, name: "soak-resident")
resident.delegate = counter
resident.pausesLocationUpdatesAutomatically = false
resident.headingFilter = nil
resident.startUpdatingLocation()
resident.startUpdatingHeading()
var rng = SplitMix64(seed: 2026)
var visitors: [LocationManager] = []
var sessions: [LocationSession] = []
var clientsCreated = 0
print("hour  RSS_KiB  cpu_s_this_hour  locations  headings  clients_now  clients_created  errors")
var baseline = 0
var worstGrowth = 0
var cpuPerHour: [Double] = []
for hour in 1...hours {
    let cpuStart = cpuSeconds()
    for _ in 0..<60 {
        // Every simulated minute clients come and go: managers with regions and filters, sessions.
        if rng.uniform() < 0.5 {
            let m = LocationManager(engine: engine, name: "visitor")
            m.delegate = counter
            m.desiredAccuracy = [.best, .nearestTenMeters, .hundredMeters, .kilometer][Int(rng.uniform() * 4) % 4]
            m.distanceFilter = rng.uniform() < 0.5 ? nil : 10 + rng.uniform() * 100
            m.startUpdatingLocation()
            if rng.uniform() < 0.3 { m.startMonitoringSignificantLocationChanges() }
            visitors.append(m)
            clientsCreated += 1
        }
        if rng.uniform() < 0.3, let session = try? engine.session(LocationRequest(desiredAccuracy: .hundredMeters)) {
            sessions.append(session)
            clientsCreated += 1
        }
        if visitors.count > 5 || (rng.uniform() < 0.5 && !visitors.isEmpty) { visitors.removeFirst() }
        if sessions.count > 3 || (rng.uniform() < 0.5 && !sessions.isEmpty) { sessions.removeFirst().invalidate() }
        engine.advance(by: .seconds(60))
    }
    let cpu = cpuSeconds() - cpuStart
    cpuPerHour.append(cpu)
    let rss = residentKiB()
    if hour == 1 { baseline = rss }
    worstGrowth = max(worstGrowth, rss - baseline)
    let (l, h, e) = counter.lock.withLock { (counter.locations, counter.headings, counter.errors) }
    print(String(format: "%4d  %7d  %15.2f  %9d  %8d  %11d  %15d  %6d", hour, rss, cpu, l, h, engine.clientCount, clientsCreated, e))
}
let sorted = cpuPerHour.sorted()
let median = sorted[sorted.count / 2]
print("growth after the first hour: \(worstGrowth) KiB (limit 1024); median CPU per simulated hour: \(String(format: "%.2f", median)) s")
let (locations, headings) = counter.lock.withLock { (counter.locations, counter.headings) }
let expectedHeadings = hours * 3600 * 10
print("headings \(headings) of \(expectedHeadings) expected at 10 Hz; locations delivered \(locations) (resident client: \(hours * 3600) expected at 1 Hz, plus visitors)")
exit(worstGrowth <= 1024 ? 0 : 1)
