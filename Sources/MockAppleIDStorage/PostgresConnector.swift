import Logging
import MockAppleID
import PostgresNIO

/// Opens the connections of one ``PostgresStore`` (its world's, its tenants', the notification
/// sender's), backing off while the database cannot be reached (``ReconnectBackoff``): a request then
/// fails at once with the last failure, instead of opening a connection of its own. The log says when
/// the database was lost and when it came back.
final class PostgresConnector: Sendable {
    let address: PostgresAddress
    private let logger: Logger
    private let backoff: ReconnectBackoff

    init(address: PostgresAddress, logger: Logger, backoff: ReconnectBackoff = ReconnectBackoff()) {
        self.address = address
        self.logger = logger
        self.backoff = backoff
    }

    /// A new connection, within the configuration's connect timeout; refused at once while backing off.
    func connect() async throws(StateStoreError) -> PostgresConnection {
        let round: Int
        switch backoff.admit() {
        case let .attempt(admitted): round = admitted
        case let .refused(reason, remaining):
            throw StateStoreError("\(address.name): cannot be reached (\(reason))"
                                  + (remaining > .zero ? "; the next attempt is in \(Self.seconds(remaining)) s" : "; an attempt is under way"))
        }
        do {
            // After a failure the database may be frozen rather than down (its host still accepts connections and
            // never answers them): a probe gets a statement's deadline, not the first connection's.
            let deadline = backoff.isBackingOff ? PostgresWorldStore.statementDeadline : DatabaseStep.connectDeadline
            let connection = try await DatabaseStep.connect(address.configuration, within: deadline, logger: logger)
            if backoff.succeeded(round) { logger.notice("\(address.name): reachable again") }
            return connection
        } catch is CancellationError {
            backoff.abandoned(round)
            throw StateStoreError("\(address.name): connecting was cancelled")
        } catch {
            let reason = PostgresStore.describe(error)
            if backoff.failed(reason, round: round)?.first == true { logLost(reason) }
            throw StateStoreError("\(address.name): cannot be reached: \(reason)")
        }
    }

    /// A connection this connector opened stopped answering (or closed under a request): back off as after a
    /// failed connect.
    func lost(_ reason: String) {
        if backoff.lost(reason)?.first == true { logLost(reason) }
    }

    /// Why a new connection would be refused now, without trying the database; nil when one may be tried.
    var unavailable: StateStoreError? {
        backoff.refusal.map { StateStoreError("\(address.name): cannot be reached (\($0)); requests are refused while it is retried") }
    }

    private func logLost(_ reason: String) {
        logger.error("\(address.name): cannot be reached (\(reason)); requests are refused while it is retried, at most every \(Self.seconds(ReconnectBackoff.longestDelay)) s")
    }

    /// `remaining` in seconds with one decimal.
    private static func seconds(_ duration: Duration) -> String {
        let tenths = (duration.components.seconds * 10) + duration.components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
