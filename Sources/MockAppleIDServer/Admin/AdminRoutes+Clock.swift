import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    func registerClock(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("clock") { _, _ in try AdminResponse.json(ClockView(provider.clock)) }
        admin.post("clock") { request, _ in try await changeClock(request) }
    }

    /// `{"set": ISO 8601 text or epoch seconds, "advance": seconds, "frozen": bool}`; any subset.
    /// Times outside 1970–9999 and advances beyond about 100 years are refused with a 400 naming the limit.
    private func changeClock(_ request: Request) async throws -> Response {
        let body = try await body(request, allowing: ["set", "advance", "frozen"])
        let frozen = try body.flag("frozen")
        let advance = try body["advance"].map { (value: JSONValue) throws(AdminError) -> Double in
            guard let seconds = value.doubleValue else { throw AdminError.badRequest("advance must be a number of seconds") }
            return seconds
        }
        let date = try body.instant("set")
        if let date {
            try provider.setClock(to: date, frozen: frozen ?? provider.clock.isFrozen)
        } else if let frozen {
            try provider.setClock(to: provider.clock.now, frozen: frozen)
        }
        if let advance { try provider.advanceClock(by: advance) }
        return try AdminResponse.json(ClockView(provider.clock))
    }
}
