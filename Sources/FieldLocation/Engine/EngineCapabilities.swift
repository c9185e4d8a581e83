import LocationAPI

extension LocationEngine {
    /// Each service of the board with whether its device can be used, as last checked: at the
    /// start, and again whenever the platform's device watch saw a node appear, go or change
    /// permissions (``refreshCapabilities()``).
    public var capabilities: DeviceCapabilities { devices.withLock { $0.capabilities } }

    /// Starts the platform's device watch (once, from `init`).
    func watchDevices() {
        let watch = platform.watchDevices(for: board) { [weak self] in self?.refreshCapabilities() }
        devices.withLock { $0.watch = watch }
    }

    /// Checks every service's device again; when anything changed, every client hears the new
    /// capabilities (``EngineEvent/capabilities(_:)``: a manager tells its delegate) and, when the
    /// receiver's port just appeared, the receiver opens it without waiting for its retry time.
    /// Returns the capabilities now. Any thread.
    @discardableResult
    public func refreshCapabilities() -> DeviceCapabilities {
        let now = platform.capabilities(for: board)
        let old = devices.withLock { d in
            defer { d.capabilities = now }
            return d.capabilities
        }
        guard old != now else { return now }
        if now.isAvailable(.location) && !old.isAvailable(.location) { apply { engine in for receiver in engine.receivers { receiver.retryPortNow() } } }
        registry.broadcast(.capabilities(now))
        return now
    }
}
