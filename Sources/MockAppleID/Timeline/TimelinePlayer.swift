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
        var origin: TimelineOrigin
        var next = 0
        var outcomes: [StepOutcome] = []
        var memory = TimelineMemory()

        var record: SavedProgress { SavedProgress(origin: origin, next: next, outcomes: outcomes, memory: memory) }
    }

    /// How far a timeline has run, as a state store keeps it.
    struct SavedProgress: Sendable, Codable {
        let origin: TimelineOrigin
        let next: Int
        let outcomes: [StepOutcome]
        let memory: TimelineMemory
    }

    /// The store section of the progress.
    static let section = "timeline"

    private let progress: Mutex<Progress>
    /// Where each change of progress is saved (the world's store, when it has one).
    private let save: @Sendable (SavedProgress) -> Void

    init(timeline: Timeline, save: @escaping @Sendable (SavedProgress) -> Void = { _ in }) {
        progress = Mutex(Progress(timeline: timeline, origin: .scenario))
        self.save = save
    }

    /// Replaces the loaded timeline and starts from its first step. `origin` says how to load it again
    /// after a restart with a state file; a timeline built in Swift (``TimelineOrigin/swift``) is not
    /// kept, and the scenario's own is loaded instead.
    public func load(_ timeline: Timeline, origin: TimelineOrigin = .swift) {
        progress.withLock { progress in
            progress = Progress(timeline: timeline, origin: origin)
            save(progress.record)
        }
    }

    /// Saves the progress as it is. Records are saved under the progress lock (then the world's), so
    /// they reach the store in the order the progress changed.
    func saveProgress() { progress.withLock { save($0.record) } }

    /// Puts back progress a state store kept, loading its timeline again (against the restored apps).
    func restore(_ row: WorldRow, provider: AppleIDProvider) throws(StateStoreError) {
        let saved: SavedProgress
        do { saved = try JSONDecoder().decode(SavedProgress.self, from: Data(row.value.utf8)) } catch {
            throw StateStoreError("the timeline's progress cannot be read: \(error)")
        }
        let timeline: Timeline
        switch saved.origin {
        case .scenario, .swift:
            timeline = provider.scenario.timeline
        case let .text(yaml, file, files):
            do throws(ScenarioError) {
                timeline = try Timeline.parse(yaml: yaml, file: file, directory: provider.directory,
                                              resources: EmbeddedResources(files: files, origin: "the state file"))
            } catch {
                throw StateStoreError("the loaded timeline cannot be read again: \(error.description)")
            }
        }
        let restored = saved.origin == .swift
            ? Progress(timeline: timeline, origin: .scenario)
            : Progress(timeline: timeline, origin: saved.origin, next: max(0, min(saved.next, timeline.steps.count)),
                       outcomes: saved.outcomes, memory: saved.memory)
        progress.withLock { $0 = restored }
    }

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
            save(progress.record)
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

/// Where a loaded timeline came from, so that it can be loaded again after a restart.
public enum TimelineOrigin: Sendable, Codable, Equatable {
    /// The scenario's own `timeline:`.
    case scenario
    /// Scenario-file text (`timeline:` with its steps) and the key files it names, path to text.
    case text(yaml: String, file: String, files: [String: String])
    /// Built in Swift: it cannot be loaded again, so a restart starts over with the scenario's.
    case swift
}

/// What later steps may reuse from earlier ones.
struct TimelineMemory: Sendable, Codable {
    var client: String?
    var redirectURI: String?
    var code: String?
    var accessToken: String?
    var refreshToken: String?
    /// The last `transfer_sub` a `userMigration` step got.
    var transferSub: String?
}
