import Logging
import MockAppleID
import ServiceLifecycle

/// Writes each Apple-endpoint request of the event log to the server's log. As an access log: `info`
/// when it succeeded, `notice` with Apple's error code and the real reason when it failed. Otherwise
/// every line is `debug`, so the default level costs nothing per request (the journal keeps the
/// reasons). A reader of the event log, like the journal; it ends at graceful shutdown.
struct RequestLog: Service {
    let events: EventLog
    let logger: Logger
    let accessLog: Bool

    func run() async {
        for await recorded in events.subscribe().cancelOnGracefulShutdown() {
            guard case let .request(record) = recorded.event else { continue }
            let metadata: Logger.Metadata = [
                "endpoint": .string(record.endpoint), "client_id": .string(record.clientID ?? "-"),
                "status": .stringConvertible(record.status), "via": .string(record.via.rawValue),
            ]
            let failed = record.error != nil || record.status >= 400
            let level: Logger.Level = accessLog ? (failed ? .notice : .info) : .debug
            logger.log(level: level, "\(record.error.map { "\($0): " } ?? "")\(record.reason)", metadata: metadata)
        }
    }
}
