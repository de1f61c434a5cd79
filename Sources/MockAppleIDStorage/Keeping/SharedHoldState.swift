import MockAppleID

/// What ``SharedWorldAccess`` knows about this server's holds of a shared world: whether one is opening,
/// open or closing, who is in it and who waits, the rows it will write, and the store's version this
/// copy matches. Its transitions return what the access must do next (open a hold, let waiters in, wake
/// those waiting for the end), so it is tested on its own with any stand-ins for the hold and the waiters,
/// and with the time given, without a store or a task.
struct SharedHoldState<Hold, Waiter, IdleWaiter> {
    enum Phase { case idle, opening, open, closing }

    typealias Admission = SharedHoldAdmission<Hold>

    /// A hold's end: what its last member writes, and the hold whose members wait on the write.
    struct Closing {
        let rows: [PendingRow]
        let replacingAll: Bool
        let hold: Hold
    }

    /// The most requests one hold admits, and how long after it opened one may still join.
    let mostMembers: Int
    let joinWindow: Duration

    private(set) var phase = Phase.idle
    private var hold: Hold
    private(set) var members = 0
    private var admitted = 0
    private var openedAt: ContinuousClock.Instant
    private(set) var waiting: [Waiter] = []
    private var idleWaiters: [IdleWaiter] = []
    private(set) var rows: [PendingRow] = []
    private var replacingAll = false
    /// The store's version this server's copy matches; negative: reload everything.
    private(set) var version: Int64 = -1
    private(set) var closed = false

    init(mostMembers: Int, joinWindow: Duration, firstHold: Hold, now: ContinuousClock.Instant) {
        self.mostMembers = mostMembers
        self.joinWindow = joinWindow
        hold = firstHold
        openedAt = now
    }

    /// Joins the open hold when it is young enough, or opens a new one (`newHold`) when none is under
    /// way; nil: wait (``park(_:)``) for the next.
    mutating func admit(now: ContinuousClock.Instant, newHold: () -> Hold) -> Admission? {
        if closed { return .failed(StateStoreError("the world is no longer kept in the shared store")) }
        switch phase {
        case .open where admitted < mostMembers && openedAt.duration(to: now) < joinWindow:
            members += 1
            admitted += 1
            return .member(hold)
        case .idle:
            return open(newHold())
        default:
            return nil
        }
    }

    /// Waits for the next hold.
    mutating func park(_ waiter: Waiter) { waiting.append(waiter) }

    /// The hold opened (the store's world taken at `version`): it is open, and as many of those
    /// waiting as it admits join it now.
    mutating func opened(version openedVersion: Int64, now: ContinuousClock.Instant) -> (joining: [Waiter], hold: Hold) {
        phase = .open
        version = openedVersion
        openedAt = now
        let count = min(waiting.count, mostMembers - admitted)
        members += count
        admitted += count
        defer { waiting.removeFirst(count) }
        return (Array(waiting.prefix(count)), hold)
    }

    /// The store's world was complete: what this copy queued is replaced by it, so writing it later
    /// would undo others' changes.
    mutating func dropQueued() {
        rows = []
        replacingAll = false
    }

    /// Opening failed: the hold is over, and so are the waits of those waiting for it (the next hold
    /// reloads everything).
    mutating func failedOpening() -> (waiting: [Waiter], idle: [IdleWaiter]) {
        phase = .idle
        members = 0
        version = -1
        defer {
            waiting = []
            idleWaiters = []
        }
        return (waiting, idleWaiters)
    }

    /// Queues rows the world changed, to be written when the hold ends. True when no hold is under way
    /// that will write them (none, or one already writing).
    mutating func enqueue(_ newRows: [PendingRow], replacingAll replacing: Bool) -> Bool {
        if replacing {
            rows = newRows
            replacingAll = true
        } else {
            rows += newRows
        }
        return phase == .idle || phase == .closing
    }

    /// One member fewer; the last one takes what the hold changed, to write it.
    mutating func memberLeft() -> Closing? {
        members -= 1
        guard members == 0 else { return nil }
        phase = .closing
        defer { dropQueued() }
        return Closing(rows: rows, replacingAll: replacingAll, hold: hold)
    }

    /// The hold's write ended (`version`: the store's now, negative after a failure): the next waiter
    /// opens a new hold, or, with none, those waiting for the end are woken.
    mutating func closedHold(version writtenVersion: Int64, newHold: () -> Hold) -> (next: (waiter: Waiter, admission: Admission)?, idle: [IdleWaiter]) {
        version = writtenVersion
        phase = .idle
        guard waiting.isEmpty else { return ((waiting.removeFirst(), open(newHold())), []) }
        defer { idleWaiters = [] }
        return (nil, idleWaiters)
    }

    /// Refuses new holds. True when no hold is under way (the caller goes on); false: `waiter` waits for
    /// the hold under way to end.
    mutating func refuseNewHolds(_ waiter: IdleWaiter) -> Bool {
        closed = true
        if phase == .idle { return true }
        idleWaiters.append(waiter)
        return false
    }

    private mutating func open(_ newHold: Hold) -> Admission {
        phase = .opening
        hold = newHold
        members = 1
        admitted = 1
        return .opener(newHold)
    }
}

/// What a request asking to enter a hold of a shared world gets.
enum SharedHoldAdmission<Hold> {
    /// A place in the open hold.
    case member(Hold)
    /// A place in a new hold, which it must open (take the world from the store) first.
    case opener(Hold)
    case failed(StateStoreError)
}
