import Foundation
import LocationAPI

extension Monitor {
    /// What a condition watches (see ``MonitorCondition``).
    public typealias Condition = MonitorCondition
    /// A condition's state (see ``MonitorState``).
    public typealias State = MonitorState
    /// A change of a condition's state (see ``MonitorEvent``).
    public typealias Event = MonitorEvent
    /// A condition and its last event (see ``MonitorRecord``).
    public typealias Record = MonitorRecord

    /// Why a monitor could not be opened, changed or saved.
    public struct MonitorError: Error, Sendable, CustomStringConvertible, Equatable {
        /// The file involved, when there is one.
        public var path: String?
        /// What went wrong.
        public var reason: String
        public var description: String { path.map { "\($0): \(reason)" } ?? reason }
    }
}
