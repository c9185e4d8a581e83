import Beacons
import HardwareInterfaces
import Heading
import LocationAPI
import LocationServices

extension LocationEngine: LocationProvider {
    /// The board's name.
    public var boardName: String { board.name }

    /// In process: the engine takes calls made from inside its sinks.
    public var callsBackSynchronously: Bool { true }

    /// In process, `policy`'s default status and accuracy. The hardware does not decide it: a
    /// device that is missing or inaccessible makes its service unavailable (``capabilities``).
    public func authorization(policy: AccessPolicy) -> ProviderAuthorization {
        let status = policy.defaultStatus
        return ProviderAuthorization(status: status, reason: status.allowsLocations ? nil : "the access policy says \(status.rawValue)",
                                     accuracy: policy.accuracy)
    }

    /// Granted when `policy` declares the purpose key; declined (`promptDeclined`) when the client
    /// has no location access at all.
    public func requestTemporaryFullAccuracy(_ id: Int, purposeKey: String, policy: AccessPolicy) -> LocationError? {
        if policy.purposes[purposeKey] != nil {
            let grant = authorization(policy: policy)
            guard grant.status.allowsLocations else {
                return .promptDeclined("full accuracy for '\(purposeKey)': \(grant.reason ?? "authorization is \(grant.status.rawValue)")")
            }
            return nil
        }
        return .invalidArgument("purpose key '\(purposeKey)' is not declared in the access policy (a line 'purpose \(purposeKey) = why')")
    }
}
