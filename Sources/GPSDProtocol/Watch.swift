// A client's subscription policy and gpsd's rules for changing it.

/// One client's current WATCH policy. A new connection starts with everything off.
///
/// ``apply(_:)`` merges a `?WATCH={...}` as gpsd 3.22 does (`json_watch_read` in
/// `libgps/shared_json.c`, whose defaults are filled before the members are read):
/// - `enable` becomes `true` when omitted (`?WATCH={"raw":2}` starts streaming);
/// - `json`, `nmea` and `raw` keep their previous values when omitted (sticky);
/// - `scaled`, `split24`, `pps` and `timing` fall back to `false` when omitted;
/// - `device` and `remote` are cleared when omitted (an empty string also clears them, as in gpsd).
public struct GPSDWatchPolicy: Sendable, Equatable {
    /// Whether reports are streamed to this client (gpsd's `watcher`).
    public var enable = false
    /// Stream JSON reports.
    public var json = false
    /// Stream NMEA sentences.
    public var nmea = false
    /// 0, 1 or 2 (see ``GPSDWatchRequest/raw``).
    public var raw = 0
    /// Echoed only (AIS/subframe scaling).
    public var scaled = false
    /// Echoed only (AIS type 24 halves).
    public var split24 = false
    /// Also send TOFF and PPS reports.
    public var pps = false
    /// Echoed only (gpsd developer timing).
    public var timing = false
    /// Only this device is watched; `nil` watches all.
    public var device: String?
    /// Set by relaying gpsd instances; not echoed in the WATCH report (gpsd does not either).
    public var remote: String?

    /// The policy of a client that has not sent a WATCH.
    public init() {}

    /// Merges a WATCH request into this policy by gpsd's rules (see the type's documentation).
    public mutating func apply(_ request: GPSDWatchRequest) {
        enable = request.enable ?? true
        json = request.json ?? json
        nmea = request.nmea ?? nmea
        raw = request.raw ?? raw
        scaled = request.scaled ?? false
        split24 = request.split24 ?? false
        pps = request.pps ?? false
        timing = request.timing ?? false
        device = request.device.flatMap { $0.isEmpty ? nil : $0 }
        remote = request.remote.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// This policy with `request` merged in.
    public func applying(_ request: GPSDWatchRequest) -> GPSDWatchPolicy {
        var copy = self
        copy.apply(request)
        return copy
    }

    /// Whether a report from the device at `path` goes to this client: enabled, and either no device
    /// filter or the same path.
    public func watches(device path: String) -> Bool {
        enable && (device == nil || device == path)
    }

    /// The WATCH report echoing this policy (``GPSDReport/watch(_:)``).
    public var report: String { GPSDReport.watch(self) }
}
