// swift-tools-version:6.2
import PackageDescription

// The references the benchmarks measure mock-appleid against in the same run (Benchmarks/run):
// a bare SwiftNIO responder serving fixed bytes, and the signing rate on one core of swift-crypto and of the
// core's SigningKey (with each RS256 library); and the two
// probes Benchmarks/portable builds to measure what `import Foundation` costs beside FoundationEssentials.
let package = Package(
    name: "mock-appleid-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(name: "mock-appleid", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "bare-responder",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "signing-rate",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "MockAppleID", package: "mock-appleid"),
            ]
        ),
        .executableTarget(name: "foundation-probe"),
        .executableTarget(name: "essentials-probe"),
    ]
)
