@testable import NMEA
import Testing

/// The package's geoid (EGM96 on a 20' grid, bicubic) against independent reference values, and the
/// heights it completes in a fix.
@Suite("Geoid: EGM96 in the package")
struct GeoidTests {
    /// NGA's published check values for EGM96 (the sample output `OUTINTPT.DAT` of its interpolation
    /// program, in the readme of the 15' grid), longitudes 0...360 as NGA writes them; and Mount
    /// Everest's geoid height as MathWorks' `egm96geoid` documents it.
    static let published: [(latitude: Double, longitude: Double, n: Double)] = [
        (38.6281550, 269.7791550, -31.628),
        (-14.6212170, 305.0211140, -2.969),
        (46.8743190, 102.4487290, -43.575),
        (-23.6174460, 133.8747120, 15.871),
        (38.6254730, 359.9995000, 50.066),
        (-0.4667440, 0.0023000, 17.329),
        (27.988056, 86.925278, -28.7444),
    ]

    /// The twelve nodes of NGA's 15' grid (`WW15MGH`, as proj-data installs it) where the 20' grid is
    /// furthest from EGM96 (Bhutan and Assam, Hawaii, the Canaries, the Himalaya, Colombia, Puerto
    /// Rico: steep short-wavelength geoid), found by `Benchmarks/geoid/make_geoid.py --measure`'s
    /// comparison over all 1,038,240 nodes.
    static let hardest: [(latitude: Double, longitude: Double, n: Double)] = [
        (27.5, 92.5, -29.033), (19.5, -155.5, 26.576), (28.5, 94.5, -30.658), (27.5, -16.5, 34.668),
        (30.5, 79.5, -19.866), (28.25, -16.5, 50.258), (28.5, -16.5, 47.991), (27.25, 92.5, -33.598),
        (5.0, -74.5, 17.516), (19.5, -68.25, -62.099), (5.5, -74.5, 15.364), (28.25, -16.75, 50.475),
    ]

    @Test("NGA's published EGM96 values are met within 0.1 m (longitudes 0...360 and -180...180 alike)")
    func publishedValues() throws {
        for point in Self.published {
            for longitude in [point.longitude, point.longitude - 360] {
                let n = try #require(EGM96.separation(latitude: point.latitude, longitude: longitude))
                #expect(abs(n - point.n) <= 0.1, "\(point.latitude), \(longitude): \(n) against \(point.n)")
            }
        }
    }

    @Test("the hardest nodes of NGA's 15' grid are within 0.6 m (the interpolation error bound of docs/GEOID.md)")
    func hardestNodes() throws {
        var worst = 0.0
        for point in Self.hardest {
            let n = try #require(EGM96.separation(latitude: point.latitude, longitude: point.longitude))
            worst = max(worst, abs(n - point.n))
        }
        #expect(worst <= 0.6)
        // The bound is tight: the worst node is off by more than half a metre, so a coarser grid or
        // bilinear interpolation would fail here.
        #expect(worst > 0.5)
    }

    @Test("against every node of NGA's 15' grid (proj-data's egm96_15.gtx): max error <= 0.6 m, RMS <= 0.04 m")
    func wholeGrid() throws {
        let path = "/usr/share/proj/egm96_15.gtx"
        guard let data = FileProbe.read(path), data.count == 40 + 721 * 1440 * 4 else {
            print("GeoidTests.wholeGrid: skipped, \(path) is absent (apt-get install proj-data provides it)")
            return
        }
        var worst = 0.0
        var sumSquares = 0.0
        for row in 0..<721 {
            for column in 0..<1440 {
                let offset = 40 + (row * 1440 + column) * 4
                var bits: UInt32 = 0
                for k in 0..<4 { bits = bits << 8 | UInt32(data[offset + k]) }
                let reference = Double(Float(bitPattern: bits))
                let latitude = -90 + Double(row) * 0.25
                let longitude = -180 + Double(column) * 0.25
                let n = try #require(EGM96.separation(latitude: latitude, longitude: longitude))
                let error = abs(n - reference)
                worst = max(worst, error)
                sumSquares += error * error
            }
        }
        let rms = (sumSquares / Double(721 * 1440)).squareRoot()
        print("GeoidTests.wholeGrid: max \(worst) m, RMS \(rms) m over 1,038,240 nodes")
        #expect(worst <= 0.6)
        #expect(rms <= 0.04)
    }

    @Test("poles, the date line and bad coordinates")
    func edges() throws {
        // EGM96 at the poles: 13.606 m north, -29.534 m south (one value for every longitude).
        for longitude in stride(from: -180.0, through: 180, by: 45) {
            let north = try #require(EGM96.separation(latitude: 90, longitude: longitude))
            let south = try #require(EGM96.separation(latitude: -90, longitude: longitude))
            #expect(abs(north - 13.606) < 0.06 && abs(south - -29.534) < 0.06)
        }
        let east = try #require(EGM96.separation(latitude: -17.5, longitude: 180))
        let west = try #require(EGM96.separation(latitude: -17.5, longitude: -180))
        #expect(abs(east - west) < 1e-9)
        let wrapped = try #require(EGM96.separation(latitude: 10, longitude: 540))
        let direct = try #require(EGM96.separation(latitude: 10, longitude: 180))
        #expect(abs(wrapped - direct) < 1e-9)
        #expect(EGM96.separation(latitude: 90.5, longitude: 0) == nil)
        #expect(EGM96.separation(latitude: .nan, longitude: 0) == nil)
        #expect(EGM96.separation(latitude: 0, longitude: .infinity) == nil)
        #expect(EGM96.grid.count == EGM96.rows * EGM96.columns)
    }

    @Test("E-13: a fix with only a height above the ellipsoid gets its MSL height and separation from the model")
    func ellipsoidOnly() throws {
        var fix = Fix()
        fix.latitude = 27.988056
        fix.longitude = 86.925278
        fix.altitudeHAE = 8820
        fix.mode = .threeD
        fix.completeHeightsFromGeoid()
        let n = try #require(fix.geoidSeparation)
        #expect(abs(n - -28.7444) < 0.1)
        #expect(fix.geoidSeparationFromModel)
        let msl = try #require(fix.altitudeMSL)
        #expect(abs(msl - (8820 - n)) < 1e-9)
        #expect(fix.altitudeHAE == 8820)
    }

    @Test("E-13: a GGA with an empty separation gets its ellipsoid height from the model; a stated separation is kept")
    func mslOnly() throws {
        let lines = [withChecksum("$GPGGA,120000,4722.6140,N,00832.5020,E,1,08,1.0,410.0,M,,M,,"),
                     withChecksum("$GPRMC,120000,A,4722.6140,N,00832.5020,E,0.0,0.0,010124,,,A"),
                     withChecksum("$GPGGA,120001,4722.6140,N,00832.5020,E,1,08,1.0,410.0,M,48.0,M,,"),
                     withChecksum("$GPRMC,120001,A,4722.6140,N,00832.5020,E,0.0,0.0,010124,,,A")]
        let bytes = Array(lines.map { $0 + "\r\n" }.joined().utf8)
        var fixes = streamFixes(bytes, options: AssemblerOptions(weekRolloverPivot: nil)).fixes
        try #require(fixes.count == 2)
        #expect(fixes[0].altitudeHAE == nil && fixes[0].geoidSeparation == nil)   // the stream itself adds nothing
        for index in fixes.indices { fixes[index].completeHeightsFromGeoid() }
        let n = try #require(fixes[0].geoidSeparation)
        let zurich = try #require(EGM96.separation(latitude: 47.3769, longitude: 8.54170))
        #expect(abs(n - zurich) < 1e-6)
        #expect(fixes[0].geoidSeparationFromModel)
        let hae = try #require(fixes[0].altitudeHAE)
        #expect(abs(hae - (410 + n)) < 1e-9 && fixes[0].altitudeMSL == 410)
        // The receiver's own separation (48.0) is neither replaced nor marked.
        #expect(fixes[1].geoidSeparation == 48 && !fixes[1].geoidSeparationFromModel && fixes[1].altitudeHAE == 458)
    }

    @Test("a fix without a position or without any height is left as it is")
    func nothingToComplete() {
        var noPosition = Fix()
        noPosition.altitudeHAE = 100
        noPosition.completeHeightsFromGeoid()
        #expect(noPosition.altitudeMSL == nil && noPosition.geoidSeparation == nil)
        var noHeight = Fix()
        noHeight.latitude = 10
        noHeight.longitude = 10
        noHeight.completeHeightsFromGeoid()
        #expect(noHeight.geoidSeparation == nil && !noHeight.geoidSeparationFromModel)
    }
}
