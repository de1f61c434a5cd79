import HTTPTypes
import Hummingbird
import Synchronization

/// Which methods each registered path answers, so that a request with the wrong method gets 405
/// with `Allow` instead of 404. Filled while routes are registered, read while serving.
final class RouteTable: Sendable {
    private struct Route {
        /// The path as registered.
        let path: String
        /// Path segments; nil for a parameter (`{id}`), which matches any one segment.
        let segments: [String?]
        var methods: [HTTPRequest.Method]
    }

    private let routes = Mutex<[Route]>([])

    func add(_ path: RouterPath, _ method: HTTPRequest.Method) {
        let segments = Self.segments(path.description).map { $0.hasPrefix("{") || $0.hasPrefix(":") ? nil : $0 }
        routes.withLock { routes in
            if let index = routes.firstIndex(where: { $0.segments == segments }) {
                routes[index].methods.append(method)
            } else {
                routes.append(Route(path: path.description, segments: segments, methods: [method]))
            }
        }
    }

    /// The methods `path` answers (HEAD wherever GET is), in registration order; empty when no route has that path.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let requested = Self.segments(path)
        let methods = routes.withLock { routes in
            routes.filter { route in
                route.segments.count == requested.count
                    && zip(route.segments, requested).allSatisfy { pattern, segment in pattern.map { $0 == segment } ?? true }
            }.flatMap(\.methods)
        }
        return methods.contains(.get) && !methods.contains(.head) ? methods + [.head] : methods
    }

    /// Every registered path with its methods, in registration order (what the admin API's OpenAPI
    /// document is checked against).
    var registered: [(path: String, methods: [HTTPRequest.Method])] {
        routes.withLock { $0.map { ($0.path, $0.methods) } }
    }

    private static func segments(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }
}

/// A router that records each route's path and method in a ``RouteTable`` as it registers them.
/// Groups made from it (`group("/__admin")`) register through it, so their routes are recorded too.
final class RecordingRouter: RouterMethods {
    typealias Context = BasicRequestContext

    let router: Router<BasicRequestContext>
    let table: RouteTable

    init(router: Router<BasicRequestContext>, table: RouteTable) {
        self.router = router
        self.table = table
    }

    @discardableResult
    func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
    where Responder.Context == BasicRequestContext {
        table.add(path, method)
        router.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult
    func add(middleware: any MiddlewareProtocol<Request, Response, BasicRequestContext>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}
