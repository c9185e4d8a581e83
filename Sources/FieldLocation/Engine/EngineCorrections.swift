import LocationServices
import NTRIP

/// RTK and DGPS corrections from an NTRIP caster (docs/NTRIP.md).
extension LocationEngine {
    /// Starts `client` and forwards its frames to the receiver's UART from the next step on; each
    /// location then carries ``Location/corrections``. One client per engine: a second call
    /// replaces the first (which is stopped).
    public func attachCorrections(_ client: NTRIPClient) {
        let previous = published.withLock { p -> CorrectionForwarder? in
            defer { p.corrections = CorrectionForwarder(client: client) }
            return p.corrections
        }
        previous?.client.stop()
        client.start()
    }

    /// Stops the NTRIP client, if one is attached, and forgets it.
    public func detachCorrections() {
        published.withLock { p -> CorrectionForwarder? in
            defer { p.corrections = nil }
            return p.corrections
        }?.client.stop()
    }

    /// The corrections' status now (link, age, message types, the last fix's solution), or `nil`
    /// without an NTRIP client.
    public var correctionStatus: CorrectionStatus? {
        published.withLock { $0.corrections }?.status(at: clock.now())
    }

    /// The attached corrections' forwarder (bytes written), for tests and tools.
    public var correctionForwarder: CorrectionForwarder? { published.withLock { $0.corrections } }

    /// Tells the clients running location updates when the corrections' link fails, as Core Location
    /// reports `network`: once per outage (a failure, its retries and their failures are one), and
    /// again after the link has streamed. Called on each step.
    func reportCorrectionLink() {
        guard let forwarder = published.withLock({ $0.corrections }) else { return }
        let link = forwarder.client.status.link
        let tell: Bool = published.withLock { p in
            if case .streaming = link { p.correctionFailureTold = false }
            guard link.isFailure, !p.correctionFailureTold else { return false }
            p.correctionFailureTold = true
            return true
        }
        guard tell else { return }
        let error = LocationError.network("NTRIP \(forwarder.client.configuration.displayName): \(link.description); fixes go on without corrections")
        registry.broadcast(.error(error), onlyLocation: true)
    }
}
