import ArgumentParser
import FieldLocation
import FieldLocationOutput
import Foundation
import Heading
import NMEA

extension FieldLoc {
    /// `fieldloc geomag`: the World Magnetic Model at a point or for a CSV of points.
    struct Geomag: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Magnetic field from WMM2025: declination, inclination and intensity.",
            discussion: """
            With LAT LON prints one point (heights are above the WGS84 ellipsoid). With --csv FILE reads \
            rows 'decimal_year,height_km,lat_deg,lon_deg' (with that header) and prints them followed by \
            X_nT,Y_nT,Z_nT,H_nT,F_nT,I_deg,D_deg.
            """)

        @Argument(parsing: .allUnrecognized,
                  help: "LAT LON: geodetic latitude and longitude in degrees (negative numbers allowed).")
        var coordinates: [String] = []

        var latitude: Double? { coordinates.count == 2 ? Double(coordinates[0]) : nil }
        var longitude: Double? { coordinates.count == 2 ? Double(coordinates[1]) : nil }

        @Option(name: .customLong("height-km"), help: "Height above the WGS84 ellipsoid, km.")
        var heightKm: Double = 0

        @Option(help: "Date, YYYY-MM-DD (default: today, UTC).")
        var date: String?

        @Option(help: "Evaluate every row of this CSV file.")
        var csv: String?

        func validate() throws {
            if csv == nil {
                guard coordinates.count == 2 else {
                    throw ValidationError("give LAT LON, or --csv FILE (got \(coordinates.count) values: \(coordinates.joined(separator: " ")))")
                }
                guard let latitude, let longitude else {
                    throw ValidationError("'\(coordinates.joined(separator: " "))' is not two numbers LAT LON")
                }
                guard (-90...90).contains(latitude) else { throw ValidationError("latitude \(latitude) is outside -90...90") }
                guard longitude.isFinite else { throw ValidationError("longitude must be a number") }
            }
            guard heightKm.isFinite, heightKm > -10, heightKm < 2000 else {
                throw ValidationError("--height-km \(heightKm) is outside -10...2000 km")
            }
        }

        func run() throws {
            if let csv {
                guard let data = FileManager.default.contents(atPath: csv) else {
                    throw ValidationError("cannot read \(csv)")
                }
                do {
                    let result = try GeomagCSV.process(String(decoding: data, as: UTF8.self), file: csv)
                    Console.out(result.csv)
                    for warning in result.warnings { Console.err("warning: \(warning)\n") }
                } catch {
                    throw ValidationError(error.description)
                }
                return
            }
            guard let latitude, let longitude else { return }
            let year: Double
            do {
                year = try date.map { try GeomagCSV.decimalYear($0) } ?? currentDecimalYear()
            } catch let error as GeomagError {
                throw ValidationError(error.description)
            }
            let model = WorldMagneticModel.wmm2025
            let e = model.evaluate(latitude: latitude, longitude: longitude, heightKm: heightKm, decimalYear: year)
            var text = "\(model.name) at \(latitude), \(longitude), \(heightKm) km, \(FixText.fixed(year, 3))\n"
            text += "  declination  \(FixText.fixed(e.declination, 2))°  (\(FixText.fixed(e.declinationRate, 2))°/yr)\n"
            text += "  inclination  \(FixText.fixed(e.inclination, 2))°  (\(FixText.fixed(e.inclinationRate, 2))°/yr)\n"
            text += "  X \(FixText.fixed(e.x, 1))  Y \(FixText.fixed(e.y, 1))  Z \(FixText.fixed(e.z, 1))  nT\n"
            text += "  H \(FixText.fixed(e.horizontalIntensity, 1))  F \(FixText.fixed(e.totalIntensity, 1))  nT\n"
            if let grid = e.gridVariation { text += "  grid variation \(FixText.fixed(grid, 2))°\n" }
            if e.outsideValidityPeriod { text += "  warning: the date is outside \(model.name)'s validity period (2025.0-2030.0)\n" }
            if e.inBlackoutZone { text += "  warning: horizontal field below 2000 nT: a compass is unreliable here\n" }
            Console.out(text)
        }

        private func currentDecimalYear() -> Double {
            let seconds = Int(Date().timeIntervalSince1970)
            let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            return GeomagCSV.decimalYear(CalendarDate(daysSinceEpoch: days))
        }
    }
}
