// swift-tools-version:6.2
import PackageDescription

// The two probes Benchmarks/portable builds with the static Swift SDK to measure what `import Foundation` costs
// beside FoundationEssentials. The references Benchmarks/run measures against are targets of the main package, so
// that they reuse its release build.
let package = Package(
    name: "mock-appleid-benchmarks",
    platforms: [.macOS(.v15)],
    targets: [
        .executableTarget(name: "foundation-probe"),
        .executableTarget(name: "essentials-probe"),
    ]
)
