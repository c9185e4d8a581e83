extension Fix {
    /// Completes the heights the way gpsd does, with the package's geoid (``EGM96``) instead of
    /// gpsd's 5° table: when the fix has a position and no geoid separation, the separation is
    /// EGM96's there (``geoidSeparationFromModel`` is set); then a height above the ellipsoid without
    /// a height above mean sea level (an ECEF-only solution, UBX NAV-SOL) gets `altitudeMSL =
    /// altitudeHAE − N`, and a height above mean sea level without one above the ellipsoid (a GGA
    /// with an empty separation field) gets `altitudeHAE = altitudeMSL + N`. A separation the receiver
    /// stated is never replaced. The engine applies this to every fix it delivers; a replay's fixes
    /// (`fieldloc replay`, the conformance measurement) keep the receiver's heights only.
    public mutating func completeHeightsFromGeoid() {
        guard altitudeMSL != nil || altitudeHAE != nil, let latitude, let longitude else { return }
        if geoidSeparation == nil {
            guard let n = EGM96.separation(latitude: latitude, longitude: longitude) else { return }
            geoidSeparation = n
            geoidSeparationFromModel = true
        }
        guard let n = geoidSeparation else { return }
        if let hae = altitudeHAE, altitudeMSL == nil {
            altitudeMSL = hae - n
        } else if let msl = altitudeMSL, altitudeHAE == nil {
            altitudeHAE = msl + n
        }
    }
}
