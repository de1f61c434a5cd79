import Foundation
import Synchronization

/// What came of one timeline step.
public struct StepOutcome: Sendable, Equatable, Codable {
    /// From 0.
    public let index: Int
    public let location: String
    public let summary: String
    public let passed: Bool
    /// Each unmet expectation, in words.
    public let failures: [String]
    /// What happened (the error a step expected, the claims it checked).
    public let notes: [String]
}

/// Replays a timeline against a provider one step at a time, remembering the last sign-in's client,
/// code and tokens so later steps can reuse them. The admin API, `scenario run` and the Swift API
/// drive it; each step is logged as a ``DomainEvent/timelineStep(index:summary:passed:)`` event.
public final class TimelinePlayer: Sendable {
    struct Progress: Sendable {
        var timeline: Timeline
        var next = 0
        var outcomes: [StepOutcome] = []
        var memory = TimelineMemory()
    }

    private let progress: Mutex<Progress>

    init(timeline: Timeline) { progress = Mutex(Progress(timeline: timeline)) }

    /// Replaces the loaded timeline and starts from its first step.
    public func load(_ timeline: Timeline) { progress.withLock { $0 = Progress(timeline: timeline) } }

    /// How many steps are loaded, and how many have run.
    public var position: (steps: Int, done: Int) { progress.withLock { ($0.timeline.steps.count, $0.next) } }

    /// The outcomes so far, in order.
    public var outcomes: [StepOutcome] { progress.withLock { $0.outcomes } }

    /// Runs the next step against `provider`; nil when every step has run.
    public func step(_ provider: AppleIDProvider) -> StepOutcome? {
        guard let (index, step, memory) = progress.withLock({ progress -> (Int, TimelineStep, TimelineMemory)? in
            guard progress.next < progress.timeline.steps.count else { return nil }
            defer { progress.next += 1 }
            return (progress.next, progress.timeline.steps[progress.next], progress.memory)
        }) else { return nil }
        var runner = TimelineStepRunner(provider: provider, memory: memory)
        let outcome = runner.run(step, index: index)
        progress.withLock { progress in
            progress.memory = runner.memory
            progress.outcomes.append(outcome)
        }
        let now = provider.clock.now
        provider.world.record(.timelineStep(index: index, summary: outcome.summary, passed: outcome.passed), at: now)
        return outcome
    }

    /// Runs every remaining step.
    public func runAll(_ provider: AppleIDProvider) -> [StepOutcome] {
        var outcomes: [StepOutcome] = []
        while let outcome = step(provider) { outcomes.append(outcome) }
        return outcomes
    }
}

/// What later steps may reuse from earlier ones.
struct TimelineMemory: Sendable {
    var client: String?
    var redirectURI: String?
    var code: String?
    var accessToken: String?
    var refreshToken: String?
    /// The last `transfer_sub` a `userMigration` step got.
    var transferSub: String?
}
