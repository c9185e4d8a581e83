import FieldLocation
import LocationAPI
import LocationServices

extension ClientSocketConnection {
    /// The access policy was reloaded: judge the peer again and, when its grant moved, tell each of
    /// its clients (an `authorization` event) and apply it: a denied peer's services stop (their
    /// demand goes), a peer's accuracy follows the policy. Runs on the connection's event loop.
    func policyChanged(_ policy: AccessPolicy) {
        guard var p = peer, !gate.closing else { return }
        let status = policy.status(user: p.identity.user ?? "", groups: p.identity.groups)
        let accuracy = policy.accuracy
        guard status != p.status || accuracy != p.accuracy else { return }
        let who = p.identity.user ?? "uid \(p.credentials.uid)"
        p.status = status
        p.accuracy = accuracy
        p.reason = status.allowsLocations ? nil : "fieldlocd's access policy gives \(who) '\(status.rawValue)'"
        peer = p
        hub.logger.notice("client \(who) (pid \(p.credentials.pid)): the reloaded access policy gives \(status.rawValue), \(accuracy.rawValue)")
        let grant = ProviderAuthorization(status: status, reason: p.reason, accuracy: accuracy)
        for (wireID, c) in clients.sorted(by: { $0.key < $1.key }) {
            if status.allowsLocations {
                let reduced = c.wantsReduced || (accuracy == .reducedAccuracy && !c.fullAccuracy)
                engine.update(c.engineID) { $0.reducedAccuracy = reduced }
            } else {
                engine.update(c.engineID) { $0 = ClientServices() }
            }
            eventSink(for: wireID)(.authorization(grant))
        }
    }
}
