import ArgumentParser
import Dispatch
import Foundation
import MockAppleID
import NIOCore
import NIOPosix

/// The process's entry: Swift concurrency's jobs run on SwiftNIO's event loops (installed before any task
/// exists), so a request's handler runs on the thread that read it instead of being handed to a second pool.
@main
enum MockAppleIDMain {
    static func main() {
        AllocatorTuning.keepLargeBlocksMapped()
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        Task {
            if await !ServeCommand.runAlone(CommandLine.arguments) { await MockAppleIDCommand.main() }
            exit(0)
        }
        dispatchMain()
    }
}

/// `mock-appleid`: a local stand-in for Sign in with Apple (appleid.apple.com).
struct MockAppleIDCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-appleid",
        abstract: "A local, scriptable stand-in for Sign in with Apple (appleid.apple.com).",
        version: MockAppleIDVersion.current,
        subcommands: [ServeCommand.self, KeysCommand.self, ScenarioCommand.self, NativeSignInCommand.self, NotificationsCommand.self, RelayCommand.self,
                      TransferCommand.self, ClientSecretCommand.self, TLSCommand.self, AdminAPICommand.self, HealthCommand.self, AuditCommand.self],
        defaultSubcommand: nil)
}
