import Logging

/// `serve`'s log handler: swift-log's `StreamLogHandler` on standard error, with the logger's metadata
/// rendered only when an entry is written. `StreamLogHandler` renders its metadata each time it is set,
/// and Hummingbird sets a request id on the logger of every request, nearly all of which write nothing.
struct StandardErrorLogHandler: LogHandler {
    /// Writes the entries; its own metadata stays empty until an entry is written.
    private var stream: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    init(label: String, level: Logger.Level) {
        stream = StreamLogHandler.standardError(label: label)
        stream.logLevel = level
    }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var writer = stream
        writer.metadata = metadata
        writer.log(event: event)
    }
}
