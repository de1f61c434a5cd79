extension WorldState {
    mutating func addKey(_ key: SigningKey, events: inout [DomainEvent]) throws(KeyRing.Failure) {
        try keys.add(key)
        events.append(.keyAdded(kid: key.kid))
    }

    mutating func activateKey(_ kid: String, events: inout [DomainEvent]) throws(KeyRing.Failure) {
        try keys.activate(kid)
        events.append(.keyActivated(kid: kid))
    }

    mutating func retireKey(_ kid: String, events: inout [DomainEvent]) throws(KeyRing.Failure) {
        try keys.retire(kid)
        events.append(.keyRetired(kid: kid))
    }

    mutating func setJWKSShuffled(_ shuffled: Bool, events: inout [DomainEvent]) {
        keys.setShuffled(shuffled)
        events.append(.jwksShuffleChanged(shuffled))
    }

    mutating func queueFault(_ fault: Fault, events: inout [DomainEvent]) throws(FaultSpecError) -> Fault {
        let queued = try faults.enqueue(fault)
        events.append(.faultQueued(queued))
        return queued
    }

    /// Takes the next fault for `target` and `clientID` (transport or protocol ones, as `transport` says).
    /// The queue changes (and a state store rewrites it) only when one is taken.
    mutating func takeFault(_ target: Fault.Target, clientID: String?, transport: Bool, events: inout [DomainEvent]) -> Fault? {
        guard let index = faults.index(for: target, clientID: clientID, where: { $0.isTransport == transport }) else { return nil }
        let fault = faults.take(at: index)
        events.append(.faultApplied(fault))
        return fault
    }

    mutating func removeFault(id: Int) -> Bool { faults.remove(id: id) }

    mutating func clearFaults() { faults.removeAll() }
}
