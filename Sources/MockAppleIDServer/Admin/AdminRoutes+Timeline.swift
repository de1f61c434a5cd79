import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    /// Load, step and inspect a timeline: `GET /__admin/timeline`, `POST /__admin/timeline`
    /// (`{"timeline": [steps…]}` in the scenario file's step format; `{"yaml": scenario file text,
    /// "file": its name for error messages, "files": {path: text} for the key files it names}`; or
    /// `{"scenario": true}` for the scenario's own), `POST /__admin/timeline/step` (the next step),
    /// `POST /__admin/timeline/run` (the rest).
    func registerTimeline(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("timeline") { _, _ in try AdminResponse.json(TimelineView(provider.timeline)) }
        admin.post("timeline") { request, _ in
            let body = try await body(request, allowing: ["scenario", "timeline", "yaml", "file", "files"])
            if try body.flag("scenario") == true {
                provider.timeline.load(provider.scenario.timeline, origin: .scenario)
            } else {
                let (timeline, origin) = try await offEventLoop { try self.timeline(from: body) }  // may generate keys
                provider.timeline.load(timeline, origin: origin)
            }
            return try AdminResponse.json(TimelineView(provider.timeline))
        }
        admin.post("timeline/step") { _, _ in
            guard let outcome = provider.timeline.step(provider) else { throw AdminError(status: .conflict, code: "timeline_done", message: "every step has run") }
            return try AdminResponse.json(outcome)
        }
        admin.post("timeline/run") { _, _ in try AdminResponse.json(TimelineView(outcomes: provider.timeline.runAll(provider), provider.timeline)) }
    }

    /// The timeline a `POST /__admin/timeline` body carries, parsed against this server's apps and
    /// personas, with the text it came from (to load it again after a restart with a state file).
    private func timeline(from body: JSONValue) throws(AdminError) -> (Timeline, TimelineOrigin) {
        let text: String
        let file: String
        var files: [String: String] = [:]
        switch (body["timeline"], try body.text("yaml")) {
        case let (steps?, nil):
            (text, file) = (JSONValue.object([("timeline", steps)]).serialized, "request")
        case let (nil, yaml?):
            (text, file) = (yaml, try body.text("file") ?? "request")
            files = try self.files(in: body)
        default:
            throw AdminError.badRequest("give timeline (a list of steps), yaml (a scenario file's text) or scenario: true")
        }
        do throws(ScenarioError) {
            let timeline = try Timeline.parse(yaml: text, file: file, directory: provider.directory,
                                              resources: EmbeddedResources(files: files, origin: "the client"))
            return (timeline, .text(yaml: text, file: file, files: files))
        } catch {
            throw AdminError.badRequest(error.description)
        }
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
