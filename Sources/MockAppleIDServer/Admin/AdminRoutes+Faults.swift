import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    func registerFaults(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("faults") { _, _ in try AdminResponse.json(FaultsView(provider.faults())) }
        admin.post("faults") { request, _ in
            let body = try await body(request, allowing: Fault.specFields)
            try provider.queueFault(Fault(spec: body))
            return try AdminResponse.json(FaultsView(provider.faults()), status: .created)
        }
        admin.delete("faults") { _, _ in
            provider.clearFaults()
            return try AdminResponse.json(FaultsView([]))
        }
        admin.delete("faults/{id}") { _, context in
            guard let id = Int(try pathParameter("id", context)), provider.removeFault(id: id) else {
                throw AdminError.notFound("no queued fault has that id")
            }
            return try AdminResponse.json(FaultsView(provider.faults()))
        }
    }
}
