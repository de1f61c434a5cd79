import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    /// App transfers: `POST /__admin/apps/{app}/transfer` (`{"team": Team ID, "at": time}`: move the app
    /// group to that team now, or when the clock reaches `at`) and `GET /__admin/transfers`.
    func registerTransfers(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("transfers") { _, _ in try AdminResponse.json(TransfersView(transfers: provider.transfers())) }
        admin.post("apps/{app}/transfer") { request, context in
            let app = try pathParameter("app", context)
            let body = try await body(request, allowing: ["team", "at"])
            guard let team = try body.text("team") else { throw AdminError.badRequest("team (the recipient Team ID) is required") }
            if let date = try dateAhead(body.instant("at")) {
                provider.scheduleTransfer(app, to: team, at: date)
                return AdminResponse.json(JSONValue.object([
                    ("scheduled", .string(date.formatted(.iso8601))), ("app", .string(app)), ("team", .string(team)),
                ]), status: .accepted)
            }
            let transfer: AppTransfer
            transfer = try provider.transferApp(app, to: team)
            return try AdminResponse.json(transfer, status: .created)
        }
    }
}

/// `GET /__admin/transfers`.
struct TransfersView: Encodable {
    let transfers: [AppTransfer]
}
