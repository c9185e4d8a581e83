import FieldLocationOutput
import EnginePlatforms
import LocationAPI
import BoardConfig
import FieldLocation
import Foundation
import HardwareInterfaces
import LocationServices
import SimulatedHardware
import Testing

/// Records every delegate callback in order.
final class Recorder: LocationManagerDelegate, @unchecked Sendable {
    enum Event: Sendable {
        case locations([Location]), error(LocationError), paused, resumed, heading(HeadingUpdate)
        case enter(String, Location), exit(String, Location), dwell(String, Location), determined(RegionState, String)
        case regionFailed(String?, LocationError), visit(Visit), deferredFinished(LocationError?), authorization
        case recovered(FixRecovery)
    }
    private let lock = NSLock()
    private var storage: [Event] = []
    var events: [Event] { lock.withLock { storage } }
    func add(_ e: Event) { lock.withLock { storage.append(e) } }
    func clear() { lock.withLock { storage.removeAll() } }

    var locations: [Location] { events.flatMap { if case .locations(let l) = $0 { return l } else { return [] } } }
    var batches: [[Location]] { events.compactMap { if case .locations(let l) = $0 { return l } else { return nil } } }
    var errors: [LocationError] { events.compactMap { if case .error(let e) = $0 { return e } else { return nil } } }
    var headings: [HeadingUpdate] { events.compactMap { if case .heading(let h) = $0 { return h } else { return nil } } }
    var visits: [Visit] { events.compactMap { if case .visit(let v) = $0 { return v } else { return nil } } }
    var recoveries: [FixRecovery] { events.compactMap { if case .recovered(let r) = $0 { return r } else { return nil } } }
    var pauses: Int { events.filter { if case .paused = $0 { return true } else { return false } }.count }
    var resumes: Int { events.filter { if case .resumed = $0 { return true } else { return false } }.count }

    func locationManager(_ m: LocationManager, didUpdateLocations locations: [Location]) { add(.locations(locations)) }
    func locationManager(_ m: LocationManager, didFailWithError error: LocationError) { add(.error(error)) }
    func locationManagerDidPauseLocationUpdates(_ m: LocationManager) { add(.paused) }
    func locationManagerDidResumeLocationUpdates(_ m: LocationManager) { add(.resumed) }
    func locationManager(_ m: LocationManager, didUpdateHeading heading: HeadingUpdate) { add(.heading(heading)) }
    func locationManager(_ m: LocationManager, didEnterRegion region: CircularRegion, location: Location) { add(.enter(region.identifier, location)) }
    func locationManager(_ m: LocationManager, didExitRegion region: CircularRegion, location: Location) { add(.exit(region.identifier, location)) }
    func locationManager(_ m: LocationManager, didDwellIn region: CircularRegion, location: Location) { add(.dwell(region.identifier, location)) }
    func locationManager(_ m: LocationManager, didDetermineState state: RegionState, for region: CircularRegion) { add(.determined(state, region.identifier)) }
    func locationManager(_ m: LocationManager, monitoringDidFailFor region: CircularRegion?, withError error: LocationError) { add(.regionFailed(region?.identifier, error)) }
    func locationManager(_ m: LocationManager, didVisit visit: Visit) { add(.visit(visit)) }
    func locationManager(_ m: LocationManager, didFinishDeferredUpdatesWithError error: LocationError?) { add(.deferredFinished(error)) }
    func locationManagerDidChangeAuthorization(_ m: LocationManager) { add(.authorization) }
    func locationManager(_ m: LocationManager, didRecoverFix recovery: FixRecovery) { add(.recovered(recovery)) }
}

/// The sim board on a manual clock, following `legs` from Zürich.
func simEngine(_ legs: [Trajectory.Leg], latitude: Double = 47.3769, longitude: Double = 8.5417,
               stateDirectory: String? = nil, receiverTracking: Bool = false) throws -> (LocationEngine, ManualClock, Trajectory) {
    let board = try BoardCatalog.load(builtin: "sim")
    let clock = ManualClock()
    let track = Trajectory.legs(legs, latitude: latitude, longitude: longitude)
    let engine = try LocationEngine.simulated(board: board, stateDirectory: stateDirectory, clock: clock,
                                              trajectory: track, receiverTracking: receiverTracking)
    return (engine, clock, track)
}

/// The sim board following `legs`, with a manager whose delegate is a new recorder.
func managed(_ legs: [Trajectory.Leg], stateDirectory: String? = nil, receiverTracking: Bool = false) throws
    -> (engine: LocationEngine, manager: LocationManager, recorder: Recorder, clock: ManualClock, track: Trajectory)
{
    let (engine, clock, track) = try simEngine(legs, stateDirectory: stateDirectory, receiverTracking: receiverTracking)
    let manager = LocationManager(engine: engine)
    let recorder = Recorder()
    manager.delegate = recorder
    return (engine, manager, recorder, clock, track)
}

/// A fresh temporary folder.
func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "fieldloc-manager-tests-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Checks that each `(events, expected)` recording is refused by the events parser with a message
/// that starts with `expected` (the file, line and key), over the log bytes `raw`.
func expectRefused(raw: [UInt8], _ cases: [(String, String)], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    for (events, expected) in cases {
        do {
            _ = try RecordedSession.parse(raw: raw, events: events, eventsFile: "s.events.jsonl")
            Issue.record("accepted: \(events)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)", sourceLocation: sourceLocation)
        }
    }
}
