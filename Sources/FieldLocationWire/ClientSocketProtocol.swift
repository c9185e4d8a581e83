import Foundation

/// The wire protocol of `fieldlocd`'s local client socket: the ``LocationProvider`` interface as JSON
/// lines, so programs on the unit share one receiver through ``LocationManager`` (over
/// ``RemoteLocationProvider``) with the same semantics as in process.
///
/// **Transport.** A Unix stream socket (``defaultPath``, or ``pathVariable`` from the environment;
/// mode 0660). Every message is one JSON object (``ClientRequest`` one way, ``ClientMessage`` the other)
/// on one line ending in LF (a CR before it is ignored, empty lines are ignored), UTF-8, at most
/// ``maximumLineLength`` bytes without the LF, in both directions. The daemon answers a longer line
/// with one error reply and skips it up to its LF; the connection stays open. Both ends frame with
/// ``LineDecoder``.
///
/// **Version.** This is version 1 (``version``). The daemon announces it in `hello`; a request may
/// carry `"version": 1`, and a request naming another version is refused. Version 1 readers ignore
/// keys they do not know, so keys may be added without a new version.
///
/// **Hello.** On connecting, the daemon reads the peer's credentials (`SO_PEERCRED`) and sends:
/// ```json
/// {"type":"hello","version":1,"server":"fieldlocd","board":"sim","locationServicesEnabled":true,
///  "headingAvailable":true,"authorization":"authorizedAlways","accuracy":"fullAccuracy",
///  "peer":{"pid":4242,"uid":1000,"gid":1000,"user":"alice","groups":["alice","dialout"]},"now":81234000000}
/// ```
/// `authorization` is the access policy's status for that user (`authorizedAlways`,
/// `authorizedWhenInUse`, `denied`, `restricted`) with a `reason` when it refuses; `accuracy` is
/// `fullAccuracy` or `reducedAccuracy` (positions coarsened to about 5 km). `capabilities` lists
/// each service of the board (`location`, `heading`, `time`, `beacons`) with its device, whether it
/// is `available`, and when not a `problem` (`missing`, `permission`, `not-enabled`) and a `reason`
/// naming the device: `[{"service":"heading","device":"/dev/i2c-1","available":false,
/// "problem":"not-enabled","reason":"/dev/i2c-1 (the sensors' I2C bus) does not exist: …"}]`. `now` is the engine's
/// monotonic clock in nanoseconds; every instant on the wire (`receivedAt`, `takenAt`, `arrivedAt`,
/// `departedAt`) is on that clock.
///
/// **Requests** (client to daemon) carry an `id` (an integer the client chooses, echoed in the reply),
/// an `op`, and for the client operations a `client`: an integer the connection chooses for each
/// of its clients (1 to 2³¹−1, unique on the connection).
///
/// | op | fields | reply |
/// | --- | --- | --- |
/// | `hello` | | the hello message again, as a reply |
/// | `register` | `client`, `name`, `persistent`? | `problems` (restoring stored regions) |
/// | `services` | `client`, `services` | — |
/// | `request` | `client`, `timeout` (seconds, 0 < t ≤ 86400) | — (the answer comes as an event) |
/// | `flush` | `client` | — (the client's batched or deferred locations come now as one `locations` event) |
/// | `monitor` | `client`, `region` | — or an error (`regionMonitoringFailure`) |
/// | `unmonitor` | `client`, `identifier` | — or an error |
/// | `regions` | `client` | `regions` |
/// | `state` | `client`, `identifier` | `state`: `unknown`, `inside`, `outside` |
/// | `record` | `client`, `identifier` | `record`? (the region's last event: `{"identifier","lastEvent","state","time"?,"receivedAt"}`) |
/// | `fullAccuracy` | `client`, `purpose` | — or an error (`invalidArgument`: the key is not declared) |
/// | `last` | `client`? | `location`?, `heading`? (the engine's last values) |
/// | `unregister` | `client` | — |
/// | `ack` | `client`, `seq` | — (the queued events numbered up to `seq` leave the queue) |
/// | `visits` | `client` | `visits` (a persistent client's visit history, oldest first) |
/// | `health` | | `health`: the unit's health counters and gauges (`UnitHealth`, the keys of `fieldloc status --json`'s `health`) |
/// | `monitorOpen` | `monitor` | `identifiers`, `pending`, `dropped` (then the queued `monitorEvent` lines) |
/// | `monitorAdd` | `monitor`, `identifier`, `condition`, `assuming`? | — or an error |
/// | `monitorRemove` | `monitor`, `identifier` | `removed` |
/// | `monitorIdentifiers` | `monitor` | `identifiers` |
/// | `monitorRecord` | `monitor`, `identifier` | `monitorRecord`? (`{"condition","lastEvent"}`) |
/// | `monitorAck` | `monitor`, `seq` | — (saved before the reply: the events up to `seq` leave the queue) |
/// | `monitorClose` | `monitor` | — (the daemon keeps deciding its conditions) |
///
/// `services` is the whole set a client runs (``ClientServices``): `updatingLocation`,
/// `desiredAccuracy` (`best`, `bestForNavigation`, `nearestTenMeters`, `hundredMeters`, `kilometer`,
/// `threeKilometers`, `reduced`), `distanceFilter`?, `activityType`, `pausesAutomatically`,
/// `maximumAge`, `updatingHeading`, `headingFilter`?, `headingOrientation` (`forward`, `right`,
/// `backward`, `left`), `significantChanges`, `visits`, `reducedAccuracy`, `deferral`?
/// (`{"distance":…,"timeout":…}`), `batchingMaximumDelay`?. A region is
/// `{"identifier","latitude","longitude","radius","notifyOnEntry","notifyOnExit","dwellTime"?}`, and
/// optionally `polygon` (`{"vertices":[[lat,lon],…],"holes"?:[[[lat,lon],…],…]}`: a polygon region,
/// the circle then being its bounding cap), `expiresAfter` (seconds from when monitoring starts) and
/// `expiresAt` (UTC seconds since 1970). A daemon built before these keys ignores them: it would
/// monitor a polygon's bounding circle, without expiry (the `record` op is what tells them apart:
/// such a daemon answers it with `invalidArgument`).
///
/// **Replies**: `{"type":"reply","id":7,"ok":true,…}` or
/// `{"type":"reply","id":7,"ok":false,"error":{"code":"denied","message":"…"}}`. Error codes are
/// ``LocationError``'s cases (`locationUnknown`, `denied`, `headingFailure`,
/// `regionMonitoringFailure` with `region`, `deferredFailed`, `invalidArgument`, `hardware` with
/// `cause`, `regionMonitoringDenied`, `regionMonitoringSetupDelayed` with `region`,
/// `rangingUnavailable`, `rangingFailure`, `promptDeclined`, `requestExpired`, `network`). A line that is not a JSON object, lacks `op`, names an unknown op or has fields of the
/// wrong type is answered with `invalidArgument` (with the `id` when one could be read), and the
/// connection stays open. A client whose policy status is `denied` or `restricted` gets `denied` for
/// every op but `hello`.
///
/// **Events** (daemon to client, at any time between replies):
/// `{"type":"event","client":1,"now":…,"event":{"kind":…}}` with `kind` `locations` (`locations`,
/// oldest first; a batch longer than ``locationsPerEvent`` is split over several events, all but the
/// last with `"continues":true`, and is one delivery), `paused`, `resumed`, `heading` (`heading`),
/// `region` (`region`: `{"kind":"enter"|"exit"|"dwell"|"determined","state"?,"region","location"}`),
/// `regionExpired` (`region`: the region that lapsed and is no longer monitored),
/// `visit` (`visit`), `deferredFinished` (`error`?), `error` (`error`), `authorization`
/// (`authorization`: `{"status","accuracy","reason"?}`, sent to each client when a reloaded access
/// policy changed the connection's grant), `servicesEnabled` (`enabled`: false when the board's
/// privacy switch turns location services off, true when it turns them back on), `sky` (`sky`:
/// `{"timestamp"?,"receivedAt","pdop"?,"hdop"?,"vdop"?,"satellites":[{"constellation","prn",
/// "elevation"?,"azimuth"?,"cn0"?,"used"}]}`, each epoch to a client whose services have
/// `updatingSky`), `capabilities` (`capabilities`, as in `hello`: sent to every client when a device
/// of the board appeared, went or changed permissions, so a receiver plugged in late makes location
/// available without reconnecting).
///
/// Services carry `updateInterval`, `minimumUpdateInterval`, `fixLossTimeout`, `updateDuration` and
/// `accurateFirstFixWait` (seconds, absent for none) and `maximumUpdates` (absent for no limit: when the updates end on
/// their own the client gets an `error` event with code `requestExpired`), and `passive` (true for a client
/// that receives the fixes others cause and adds no demand; absent for false); a location carries `fixType`, `speedAccuracy`, `courseAccuracy`, `accuracyModel` and
/// `accuracyConfidence` when they say more than the defaults (the mode's 2D/3D, `unknown`, one
/// sigma), a negative `horizontalAccuracy` when it is unknown, and `corrections` (solution, link,
/// age, station, message types, counters) on a unit with an NTRIP client, and `timeAccuracy` (seconds)
/// with `timeAccuracySource` (`receiver`, `pps` or `gst`) when something measured the fix's time, and
/// `leapSeconds` with `leapSecondsSource` (`receiver`, `table` or `assumed`) when the count is known.
///
/// The values are the public types' own `Codable` forms: `Location`, `Visit`, `RegionEvent` and
/// `LocationError` (in LocationServices), `HeadingUpdate`, `ClientServices` and `EngineEvent`
/// (conformances in this module).
///
/// **Lifetime.** Closing the connection unregisters its clients: their demand goes (the last one out
/// idles the receiver). Regions of a client registered with `persistent` by a user the policy
/// authorises `always` are kept in the daemon's state folder under that user's uid and the name
/// (`regions-uid1000-NAME.json`) and restored when it registers again under that name; other
/// clients' regions live as long as the connection. A client that leaves more than the daemon's
/// output limit unread (256 KiB by default) is disconnected.
///
/// **Monitoring while disconnected.** For such a persistent client (authorised `always`, with a state
/// folder) the daemon keeps the engine client when the connection closes or the client unregisters:
/// its regions, and visits if it ran them, stay monitored, across daemon restarts too
/// (`pending-uid1000-NAME.json` in the state folder). Its `region` and `visit` events carry a `seq`
/// (1, 2, …) and are written to that file (atomically, with `fsync`) before they are sent; each stays
/// queued until the client sends `{"op":"ack","client":…,"seq":N}` (every event up to N leaves the
/// queue; a crash right after it may send them once more, so a client skips a `seq` it has seen). When it registers again under the same name, the queued events are sent in order after
/// the reply, whose `pending` counts them and `dropped` counts the events dropped (oldest first)
/// while the queue was full (512 events). While one client holds a name, another client registering
/// it is served as before (its regions persist) but is not monitored in the background. The file also
/// keeps the wall time of a visit in progress's arrival (`arrivalDate`), so a restarted daemon resumes
/// the visit and its departure closes the same stay.
///
/// **Monitors** (Core Location's `CLMonitor`; `RemoteMonitor` in FieldLocationClient). A client the
/// policy authorises `always` (others get `regionMonitoringDenied`) opens a named monitor with
/// `{"op":"monitorOpen","monitor":"site"}`; the daemon keeps it in its state folder under the peer's
/// uid (`monitors/monitor-uid1000-site.json`), decides its conditions with an engine client of its
/// own whether a connection holds it or not, across daemon restarts too, and one connection holds a
/// monitor at a time (`invalidArgument` to another until it closes it or goes). A `condition` is
/// `{"kind":"circle","latitude","longitude","radius"}`, `{"kind":"polygon","polygon":{…}}` or
/// `{"kind":"beacon","beacon":{"uuid","major"?,"minor"?}}`; `assuming` is `unknown` (the default),
/// `satisfied` or `unsatisfied`. Each event is saved (atomically, with `fsync`) before it is sent as
/// `{"type":"monitorEvent","monitor":"site","seq":4,"monitorEvent":{"seq":4,"identifier":"yard",
/// "state":"satisfied","date":1790000000.5,"reason"?},"now":…}` (`state` `satisfied`,
/// `unsatisfied` or `unmonitored` with its `reason`; `date` UTC seconds since 1970) and stays queued
/// until `monitorAck` with its `seq`: on `monitorOpen` the queued events follow the reply, in order,
/// before any new one (at most 512 wait; older ones are dropped and counted in `dropped`).
public enum ClientSocketProtocol {
    /// The protocol version this build speaks.
    public static let version = 1
    /// The longest line accepted or sent, in bytes without its LF.
    public static let maximumLineLength = 65_536
    /// Where the daemon listens by default.
    public static let defaultPath = "/run/fieldloc/client.sock"
    /// The environment variable that moves the socket for the daemon and its clients alike (for
    /// development without root: `FIELDLOC_CLIENT_SOCKET=/tmp/fieldloc.sock`).
    public static let pathVariable = "FIELDLOC_CLIENT_SOCKET"
    /// The socket's path: ``pathVariable`` when set and not empty, else ``defaultPath``.
    public static var configuredPath: String {
        if let value = ProcessInfo.processInfo.environment[pathVariable], !value.isEmpty { return value }
        return defaultPath
    }
    /// The most locations in one event line; longer batches continue over several lines.
    public static let locationsPerEvent = 100
    /// The longest error message sent (longer ones are cut).
    package static let maximumMessageLength = 4096
    /// The longest client name and region identifier accepted, bytes.
    package static let maximumNameLength = 256
    /// The ops a daemon of this version answers.
    package static let operations = ["hello", "register", "services", "request", "flush", "monitor", "unmonitor", "regions", "state",
                             "fullAccuracy", "record", "last", "unregister", "ack", "visits",
                             "monitorBeacon", "unmonitorBeacon", "beaconRegions", "beaconState", "health",
                             "monitorOpen", "monitorClose", "monitorAdd", "monitorRemove", "monitorIdentifiers", "monitorRecord", "monitorAck"]
}
