import Foundation

/// Faults queued for the next matching requests (docs/scenarios.md).
extension AppleIDProvider {
    /// Queues a fault; returns it with its id.
    @discardableResult
    public func queueFault(_ fault: Fault) throws(FaultSpecError) -> Fault {
        try world.transition(at: clock.now) { (state, events) throws(FaultSpecError) in try state.queueFault(fault, events: &events) }
    }

    /// The queued faults, in order.
    public func faults() -> [Fault] { world.read { $0.queuedFaults } }

    /// Removes a queued fault; false if none has `id`.
    @discardableResult
    public func removeFault(id: Int) -> Bool { world.transition(at: clock.now) { state, _ in state.removeFault(id: id) } }

    /// Removes every queued fault.
    public func clearFaults() { world.transition(at: clock.now) { state, _ in state.clearFaults() } }

    /// Takes the next transport fault (a 5xx or a delay) for a request to `target`; the HTTP server applies it.
    public func takeTransportFault(_ target: Fault.Target, clientID: String?) -> Fault? {
        guard world.hasQueuedFaults else { return nil }
        return world.transition(at: clock.now) { state, events in state.takeFault(target, clientID: clientID, transport: true, events: &events) }
    }
}
