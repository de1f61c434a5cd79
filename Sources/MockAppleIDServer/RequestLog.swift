import Logging
import MockAppleID

/// Writes each Apple-endpoint request of the event log to the server's log: `info` when it
/// succeeded, `notice` with Apple's error code and the real reason when it failed. A reader of the
/// event log, like the journal; it ends when its task is cancelled.
struct RequestLog: Sendable {
    let events: EventLog
    let logger: Logger

    func run() async {
        for await recorded in events.subscribe() {
            guard case let .request(record) = recorded.event else { continue }
            let metadata: Logger.Metadata = [
                "endpoint": .string(record.endpoint), "client_id": .string(record.clientID ?? "-"),
                "status": .stringConvertible(record.status), "via": .string(record.via.rawValue),
            ]
            if let error = record.error {
                logger.notice("\(error): \(record.reason)", metadata: metadata)
            } else if record.status >= 400 {
                logger.notice("\(record.reason)", metadata: metadata)
            } else {
                logger.info("\(record.reason)", metadata: metadata)
            }
        }
    }
}
