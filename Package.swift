// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "mock-appleid",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MockAppleID", targets: ["MockAppleID"]),
        .library(name: "MockAppleIDServer", targets: ["MockAppleIDServer"]),
        .library(name: "MockAppleIDStorage", targets: ["MockAppleIDStorage"]),
        .library(name: "MockAppleIDTesting", targets: ["MockAppleIDTesting"]),
        .library(name: "MockAppleIDAudit", targets: ["MockAppleIDAudit"]),
        .executable(name: "mock-appleid", targets: ["mock-appleid"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // Already in SwiftNIO's graph; its Deque keeps the bounded event log's appends O(1).
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        // Already in Hummingbird's graph; named so that HTTP field names and graceful shutdown can be used.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Already in Hummingbird's graph; its HTTP parts are what the connection guard sees.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Outbound HTTP: notifications to relying parties, and the CLI driving a running server's admin API.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // The HTTPS listener: TLS (already in async-http-client's graph) and the local CA's certificates.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // The HTML pages' templates (Hummingbird's own Mustache), escaping by default.
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // The state file (`serve --state`): SQLite compiled into the package (no system library, so
        // the portable binary stays self-contained), driven off the event loops on NIO's thread pool.
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        // The shared store (`serve --database-url`): several servers keep one world in PostgreSQL.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // The button images: zlib (Hummingbird's author's binding over ByteBuffer) deflates their PNGs and
        // inflates the label masters they are drawn from.
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
    ],
    targets: [
        // Apple's protocol, keys, JWS, grants, personas/teams/apps and the scenario model. No HTTP.
        .target(
            name: "MockAppleID",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "DequeModule", package: "swift-collections"),
                "SystemLibcrypto",
            ]
        ),
        // RS256 signatures from the system's OpenSSL 3 libcrypto, opened at run time on Linux (nothing on macOS).
        .target(name: "SystemLibcrypto"),
        // Hummingbird 2: Apple's endpoints, the consent page, the admin API, the embeddable service.
        .target(
            name: "MockAppleIDServer",
            dependencies: [
                "MockAppleID",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The private relay's SMTP listener and its upstream forwarding.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // The HTTPS listener: HTTP/2 streams, TLS with ALPN, and the local certificate authority.
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "CompressNIO", package: "compress-nio"),
                // The admin API's OpenAPI document is read once to make a tenant's variant of it.
                .product(name: "Yams", package: "Yams"),
            ],
            // The admin API's OpenAPI document, compiled in so that the portable binary stays one file.
            resources: [.embedInCode("Admin/openapi.yaml")]
        ),
        // Where a world is kept between runs: the SQLite state file, or PostgreSQL shared by several servers.
        .target(
            name: "MockAppleIDStorage",
            dependencies: [
                "MockAppleID",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Helpers for Swift test suites that start the server in-process.
        .target(
            name: "MockAppleIDTesting",
            dependencies: [
                "MockAppleID",
                "MockAppleIDServer",
                "MockAppleIDAudit",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "MockAppleIDAudit",
            dependencies: [
                "MockAppleID",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Its thread pool runs the blocking name lookups of the audit's target check.
                .product(name: "NIOPosix", package: "swift-nio"),
                // The certificate authorities the audit's browser trusts for a relying party served over https (--ca).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                // The HTML report (`--html`), rendered as the server's pages are, escaping by default.
                .product(name: "Mustache", package: "swift-mustache"),
                // An attacker's self-signed certificate for id_token.x5c_header.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .executableTarget(
            name: "mock-appleid",
            dependencies: [
                "MockAppleID",
                "MockAppleIDServer",
                "MockAppleIDStorage",
                "MockAppleIDTesting",
                "MockAppleIDAudit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The references Benchmarks/run measures mock-appleid against in the same run, built with the package so that
        // they reuse its release build: a bare SwiftNIO responder serving fixed bytes; the signing rate on one core of
        // swift-crypto and of the core's SigningKey (with each RS256 library); and the stack floor, the least a server
        // on mock-appleid's stack does, linked with every library mock-appleid's executable links.
        .executableTarget(
            name: "bare-responder",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/Sources/bare-responder"
        ),
        .executableTarget(
            name: "signing-rate",
            dependencies: [
                "MockAppleID",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Benchmarks/Sources/signing-rate"
        ),
        // Its dependencies are every library mock-appleid's targets use, gathered from them below.
        .executableTarget(
            name: "stack-floor",
            path: "Benchmarks/Sources/stack-floor"
        ),
        .testTarget(
            name: "MockAppleIDTests",
            // Storage's keepers, for the tests of a world kept in a store (stand-in stores in memory).
            dependencies: ["MockAppleID", "MockAppleIDStorage", "SystemLibcrypto"]
        ),
        .testTarget(
            name: "MockAppleIDAuditTests",
            dependencies: ["MockAppleID", "MockAppleIDAudit", .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "CryptoExtras", package: "swift-crypto")]
        ),
        .testTarget(
            name: "MockAppleIDStorageTests",
            dependencies: ["MockAppleID", "MockAppleIDStorage", .product(name: "SQLiteNIO", package: "sqlite-nio"),
                           .product(name: "PostgresNIO", package: "postgres-nio")]
        ),
        .testTarget(
            name: "MockAppleIDServerTests",
            dependencies: [
                "MockAppleID",
                "MockAppleIDServer",
                "MockAppleIDStorage",
                "MockAppleIDTesting",
                "MockAppleIDAudit",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
    ]
)

// The stack floor links every library mock-appleid's executable links: the products its target and the targets it
// depends on (and theirs) use, each once, read from those targets so that the two lists cannot drift apart.
var linkedLibraries: [Target.Dependency] = []
var seenLibraries: Set<String> = []
var targetsToRead = ["mock-appleid"]
var targetsRead: Set<String> = []
while let name = targetsToRead.popLast() {
    guard targetsRead.insert(name).inserted, let target = package.targets.first(where: { $0.name == name }) else { continue }
    for dependency in target.dependencies {
        switch dependency {
        case let .productItem(product, packageName, _, _):
            if seenLibraries.insert("\(packageName ?? "")/\(product)").inserted { linkedLibraries.append(dependency) }
        case let .targetItem(dependencyName, _), let .byNameItem(dependencyName, _):
            targetsToRead.append(dependencyName)
        @unknown default:
            break
        }
    }
}
package.targets.first { $0.name == "stack-floor" }?.dependencies = linkedLibraries
