import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    /// Load, step and inspect a timeline: `GET /__admin/timeline`, `POST /__admin/timeline`
    /// (`{"timeline": [steps…]}` in the scenario file's step format, or `{"scenario": true}` for the
    /// scenario's own), `POST /__admin/timeline/step` (the next step), `POST /__admin/timeline/run` (the rest).
    func registerTimeline(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("timeline") { _, _ in try AdminResponse.json(TimelineView(provider.timeline)) }
        admin.post("timeline") { request, _ in
            let body = try await body(request)
            if try body.flag("scenario") == true {
                provider.timeline.load(provider.scenario.timeline)
            } else {
                guard let steps = body["timeline"] else { throw AdminError.badRequest("give timeline (a list of steps) or scenario: true") }
                do throws(ScenarioError) {
                    let text = JSONValue.object([("timeline", steps)]).serialized
                    provider.timeline.load(try Timeline.parse(yaml: text, file: "request", directory: provider.directory,
                                                              resources: DirectoryResources(baseDirectory: URL(fileURLWithPath: "."))))
                } catch {
                    throw AdminError.badRequest(error.description)
                }
            }
            return try AdminResponse.json(TimelineView(provider.timeline))
        }
        admin.post("timeline/step") { _, _ in
            guard let outcome = provider.timeline.step(provider) else { throw AdminError(status: .conflict, code: "timeline_done", message: "every step has run") }
            return try AdminResponse.json(outcome)
        }
        admin.post("timeline/run") { _, _ in try AdminResponse.json(TimelineView(outcomes: provider.timeline.runAll(provider), provider.timeline)) }
    }
}

/// `GET /__admin/timeline`: how far the loaded timeline has run and what came of each step.
struct TimelineView: Encodable {
    let steps: Int
    let done: Int
    let passed: Bool
    let outcomes: [StepOutcome]

    init(outcomes: [StepOutcome]? = nil, _ player: TimelinePlayer) {
        let position = player.position
        steps = position.steps
        done = position.done
        let all = outcomes ?? player.outcomes
        self.outcomes = all
        passed = all.allSatisfy(\.passed)
    }
}
