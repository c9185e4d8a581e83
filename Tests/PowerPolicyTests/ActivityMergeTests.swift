import PowerPolicy
import Testing

/// The activity the receiver's dynamic model is set for (issue 20): merged across clients.
@Suite("Power policy: the merged activity")
struct ActivityMergeTests {
    @Test("the most dynamic client that wants locations wins; heading-only clients do not count; none gives nil")
    func merged() {
        let policy = PowerPolicy(profile: .ubloxM10)
        let walker = ClientDemand(client: "walk", desiredAccuracy: .best, activity: .fitness)
        let car = ClientDemand(client: "car", desiredAccuracy: .hundredMeters, activity: .automotiveNavigation)
        let plane = ClientDemand(client: "compass", desiredAccuracy: nil, activity: .airborne, wantsHeading: true)
        #expect(policy.decide([walker], state: PolicyState()).activity == .fitness)
        #expect(policy.decide([walker, car], state: PolicyState()).activity == .automotiveNavigation)
        #expect(policy.decide([walker, plane], state: PolicyState()).activity == .fitness, "headings only: no say")
        #expect(policy.decide([plane], state: PolicyState()).activity == nil)
        #expect(policy.decide([], state: PolicyState()).activity == nil)
        #expect(ActivityType.merged([ClientDemand(client: "x"), ClientDemand(client: "y", activity: .otherNavigation)]) == .otherNavigation)
        #expect(ActivityType.merged([ClientDemand(client: "x", activity: .airborne), car]) == .airborne)
    }
}
