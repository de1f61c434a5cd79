import ArgumentParser

/// `mock-appleid`: a local stand-in for Sign in with Apple (appleid.apple.com).
@main
struct MockAppleIDCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-appleid",
        abstract: "A local, scriptable stand-in for Sign in with Apple (appleid.apple.com).",
        subcommands: [ServeCommand.self, KeysCommand.self, ScenarioCommand.self, NativeSignInCommand.self, NotificationsCommand.self, RelayCommand.self, TransferCommand.self, ClientSecretCommand.self, TLSCommand.self],
        defaultSubcommand: nil)
}
