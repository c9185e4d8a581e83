import NMEA
import RealModule

/// One satellite of the emulated sky at an instant, as a multi-GNSS receiver tracks it.
public struct EmulatedSatellite: Sendable, Hashable {
    /// Its constellation.
    public var constellation: Constellation
    /// The u-blox satellite id (`svId` of NAV-SAT): GPS 1-32, SBAS 120-158, Galileo 1-36,
    /// BeiDou 1-63, GLONASS slot 1-24.
    public var svid: Int
    /// Elevation above the horizon, whole degrees.
    public var elevation: Int
    /// Azimuth from true north, whole degrees 0-359.
    public var azimuth: Int
    /// Carrier-to-noise density, dB-Hz; 0 when not tracked.
    public var cn0: Int
    /// Whether the satellite is used in the solution.
    public var used: Bool

    /// The u-blox `gnssId` (gpsd's `gnssid`): 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 6 GLONASS.
    public var gnssID: UInt8 { UBXGNSS.gnssID(constellation) }

    /// The number NMEA 4.10/4.11 gives it in GSV and GSA: GLONASS 65-96, SBAS 33-64 (PRN - 87),
    /// the others their own number.
    public var nmeaPRN: Int {
        switch constellation {
        case .glonass: return 64 + svid
        case .sbas: return svid - 87
        default: return svid
        }
    }

    /// The GSV talker that lists it: SBAS rides with GPS on GP.
    public var talker: String {
        switch constellation {
        case .gps, .sbas: return "GP"
        case .glonass: return "GL"
        case .galileo: return "GA"
        case .beidou: return "GB"
        case .qzss: return "GQ"
        case .navic: return "GI"
        }
    }

    /// The NMEA 4.10 system ID of GSA's last field (SBAS counts as GPS).
    public var systemID: Int {
        switch constellation {
        case .gps, .sbas: return 1
        case .glonass: return 2
        case .galileo: return 3
        case .beidou: return 4
        case .qzss: return 5
        case .navic: return 6
        }
    }

    /// The NMEA 4.11 signal ID of the one signal it is tracked on (GSV's last field): GPS L1 C/A 1,
    /// GLONASS L1 OF 1, Galileo E1 C/B 7, BeiDou B1I 1, SBAS L1 C/A 1.
    public var signalID: Int { constellation == .galileo ? 7 : 1 }
}

/// The emulator's sky: satellites on circular orbits of each constellation's nominal shape
/// (Walker-like planes with the real semi-major axes, inclinations and periods; geostationary SBAS
/// at their operators' longitudes), seen from the receiver's position at a UTC instant. The orbits
/// are not the real ephemerides, but elevations, azimuths, rise and set behave as real ones do:
/// a mid-latitude observer sees about 8-12 GPS, 6-10 GLONASS, Galileo and BeiDou satellites and
/// the SBAS satellites of the region, each moving across the sky over hours.
public enum EmulatedSky {
    /// Below this elevation (degrees) a satellite is not listed (the receivers' default mask).
    public static let horizonMask = 5.0
    /// Below this elevation a listed satellite is not used in the solution.
    public static let useMask = 10.0

    struct Shell {
        var constellation: Constellation
        /// Semi-major axis, km.
        var radius: Double
        /// Inclination, degrees.
        var inclination: Double
        /// Orbital period, seconds.
        var period: Double
        var planes: Int
        var ids: [Int]
    }

    /// GPS 24 in 6 planes (26 560 km, 55°, half a sidereal day); GLONASS 24 in 3 planes (25 508 km,
    /// 64.8°, 11 h 15 min 44 s); Galileo 24 in 3 planes (29 600 km, 56°, 14 h 4 min 42 s); BeiDou-3 MEO
    /// 24 in 3 planes (27 906 km, 55°, 12 h 53 min 24 s).
    static let shells: [Shell] = [
        Shell(constellation: .gps, radius: 26_560, inclination: 55, period: 43_082, planes: 6,
              ids: [1, 2, 3, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 24, 25, 26, 29]),
        Shell(constellation: .glonass, radius: 25_508, inclination: 64.8, period: 40_544, planes: 3, ids: Array(1...24)),
        Shell(constellation: .galileo, radius: 29_600, inclination: 56, period: 50_682, planes: 3,
              ids: [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 15, 19, 21, 24, 25, 26, 27, 30, 31, 33, 34, 36]),
        Shell(constellation: .beidou, radius: 27_906, inclination: 55, period: 46_404, planes: 3,
              ids: [19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46]),
    ]

    /// Geostationary SBAS satellites: PRN and longitude (EGNOS, WAAS, MSAS, GAGAN, SouthPAN, SDCM, BDSBAS).
    static let sbas: [(prn: Int, longitude: Double)] = [
        (121, -5), (123, 31.5), (136, 5), (131, -117), (133, -129), (135, -125), (137, 140), (129, 145),
        (127, 55), (128, 83), (122, 164), (125, -16), (140, 95), (130, 140), (144, 110),
    ]

    /// The satellites above the horizon mask at `unixSeconds` (UTC seconds since 1970) from
    /// `latitude`, `longitude` (degrees), by constellation (GPS, SBAS, GLONASS, Galileo, BeiDou)
    /// then satellite id.
    public static func satellites(unixSeconds: Double, latitude: Double, longitude: Double) -> [EmulatedSatellite] {
        let earthRadius = 6371.0
        let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
        let observer = (earthRadius * Double.cos(phi) * Double.cos(lambda), earthRadius * Double.cos(phi) * Double.sin(lambda),
                        earthRadius * Double.sin(phi))
        // Greenwich sidereal angle: 280.46° at J2000.0 (2000-01-01T12:00Z), one turn per sidereal day.
        let sidereal = (280.46 * .pi / 180) + 7.292_115_9e-5 * (unixSeconds - 946_728_000)
        func look(_ p: (Double, Double, Double)) -> (elevation: Double, azimuth: Double) {
            let d = (p.0 - observer.0, p.1 - observer.1, p.2 - observer.2)
            let east = -Double.sin(lambda) * d.0 + Double.cos(lambda) * d.1
            let north = -Double.sin(phi) * Double.cos(lambda) * d.0 - Double.sin(phi) * Double.sin(lambda) * d.1 + Double.cos(phi) * d.2
            let up = Double.cos(phi) * Double.cos(lambda) * d.0 + Double.cos(phi) * Double.sin(lambda) * d.1 + Double.sin(phi) * d.2
            let elevation = Double.atan2(y: up, x: (east * east + north * north).squareRoot()) * 180 / .pi
            var azimuth = Double.atan2(y: east, x: north) * 180 / .pi
            if azimuth < 0 { azimuth += 360 }
            return (elevation, azimuth)
        }
        var out: [EmulatedSatellite] = []
        func add(_ constellation: Constellation, _ id: Int, _ view: (elevation: Double, azimuth: Double)) {
            guard view.elevation >= horizonMask else { return }
            // C/N0 rises with elevation (antenna gain, shorter path), with a fixed spread per satellite.
            let spread = Double((id * 7 + Int(constellation.rawValue) * 3) % 5) - 2
            let cn0 = constellation == .sbas ? 36 + spread : 30 + 18 * Double.sin(view.elevation * .pi / 180) + spread
            let tracked = view.elevation >= horizonMask + 2
            out.append(EmulatedSatellite(constellation: constellation, svid: id, elevation: Int(view.elevation.rounded()),
                                         azimuth: Int(view.azimuth.rounded()) % 360, cn0: tracked ? Int(cn0.rounded()) : 0,
                                         used: tracked && constellation != .sbas && view.elevation >= useMask))
        }
        for shell in shells {
            let inclination = shell.inclination * .pi / 180
            let perPlane = shell.ids.count / shell.planes
            let motion = 2 * Double.pi / shell.period
            for (index, id) in shell.ids.enumerated() {
                let plane = index % shell.planes, slot = index / shell.planes
                // Walker phasing: planes spread in right ascension, satellites along each plane, the
                // planes offset from each other by a fraction of the slot spacing.
                let node = 2 * Double.pi * Double(plane) / Double(shell.planes) + Double(shell.constellation.rawValue)
                let slotAngle = 2 * Double.pi / Double(perPlane)
                let u = slotAngle * (Double(slot) + Double(plane) / Double(shell.planes)) + motion * unixSeconds
                let x = Double.cos(u) * Double.cos(node) - Double.sin(u) * Double.cos(inclination) * Double.sin(node)
                let y = Double.cos(u) * Double.sin(node) + Double.sin(u) * Double.cos(inclination) * Double.cos(node)
                let z = Double.sin(u) * Double.sin(inclination)
                // Inertial to Earth-fixed: turn back by the sidereal angle.
                let (c, s) = (Double.cos(sidereal), Double.sin(sidereal))
                let r = shell.radius
                add(shell.constellation, id, look((r * (c * x + s * y), r * (-s * x + c * y), r * z)))
            }
        }
        for geo in sbas {
            let l = geo.longitude * .pi / 180
            add(.sbas, geo.prn, look((42_164 * Double.cos(l), 42_164 * Double.sin(l), 0)))
        }
        let order: [Constellation] = [.gps, .sbas, .glonass, .galileo, .beidou]
        return out.sorted { a, b in
            let (i, j) = (order.firstIndex(of: a.constellation) ?? 9, order.firstIndex(of: b.constellation) ?? 9)
            return i != j ? i < j : a.svid < b.svid
        }
    }

    /// The NMEA 4.11 sentences (bodies, without `$` and checksum) of a sky: one GSA per system (at most
    /// 12 satellites each, more in a further GSA) with its system ID, then GSV per talker (GP with
    /// SBAS, GL, GA, GB) with the signal ID. `fix` is GSA's mode (1 none, 3 3D), `dops` its PDOP, HDOP,
    /// VDOP text. Without a fix GSA lists no satellites.
    static func sentences(_ sky: [EmulatedSatellite], fix: Int, dops: String, gsa: Bool, gsv: Bool) -> [String] {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var out: [String] = []
        if gsa {
            for system in [1, 2, 3, 4] {
                let used = fix > 1 ? sky.filter { $0.used && $0.systemID == system }.map(\.nmeaPRN) : []
                var chunks = stride(from: 0, to: used.count, by: 12).map { Array(used[$0..<min($0 + 12, used.count)]) }
                if chunks.isEmpty { chunks = [[]] }
                for chunk in chunks {
                    let fields = chunk.map(two) + Array(repeating: "", count: 12 - chunk.count)
                    out.append("GNGSA,A,\(fix),\(fields.joined(separator: ",")),\(dops),\(system)")
                }
            }
        }
        if gsv {
            for talker in ["GP", "GL", "GA", "GB"] {
                let listed = sky.filter { $0.talker == talker }
                let signal = listed.first?.signalID ?? (talker == "GA" ? 7 : 1)
                let total = max(1, (listed.count + 3) / 4)
                for message in 0..<total {
                    let group = listed.dropFirst(message * 4).prefix(4)
                    let views = group.map { "\(two($0.nmeaPRN)),\(two($0.elevation)),\(String(String(1000 + $0.azimuth).dropFirst())),\($0.cn0 > 0 ? two($0.cn0) : "")" }
                    let body = (["\(talker)GSV", "\(total)", "\(message + 1)", two(listed.count)] + views + ["\(signal)"]).joined(separator: ",")
                    out.append(body)
                }
            }
        }
        return out
    }
}
