import ArgumentParser
import MockAppleIDServer

/// `mock-appleid admin-api`: the admin API's own description, without a server.
struct AdminAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin-api",
        abstract: "Describe the admin API (what GET /__admin/openapi.yaml serves), without a running server.",
        subcommands: [OpenAPI.self, Reference.self])

    struct OpenAPI: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "openapi", abstract: "Print the admin API's OpenAPI 3.1 document (YAML).")

        func run() { print(AdminAPIReference.openAPIDocument, terminator: "") }
    }

    struct Reference: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reference", abstract: "Print every admin operation with its summary (a Markdown table).")

        func run() { print(AdminAPIReference.operationsTable) }
    }
}
