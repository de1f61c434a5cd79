import ArgumentParser
import Foundation

/// `serve`'s flags read from the environment, as containers are configured: every long flag `--NAME` of
/// `serve` is also `MOCK_APPLEID_NAME` (upper case, `-` as `_`), so `MOCK_APPLEID_PORT=9000` is `--port 9000`
/// and `MOCK_APPLEID_ACCESS_LOG=true` is `--access-log`. The command line wins over the environment; an
/// empty variable counts as unset. The names come from the argument parser's own description of `serve`,
/// so a new flag is readable from the environment without being listed here.
struct EnvironmentOptions {
    /// What every variable's name starts with.
    static let prefix = "MOCK_APPLEID_"

    /// One of the command's flags: its long name and whether it takes a value (an option) or not (a flag).
    struct Flag: Equatable {
        let name: String
        let takesValue: Bool

        /// The environment variable that sets it.
        var variable: String { EnvironmentOptions.prefix + name.uppercased().replacingOccurrences(of: "-", with: "_") }
    }

    /// A variable that was read: its name, the flag it sets and the arguments it stands for.
    struct Setting: Equatable {
        let variable: String
        let flagName: String
        let arguments: [String]
    }

    /// Flags whose variable the command already reads as a default of its own (`MOCK_APPLEID_TLS_DIR`: the
    /// local CA's folder, also for `tls init`, whether or not HTTPS is served).
    static let readByTheCommand: Set<String> = ["tls-dir"]

    /// The flags of `command` a variable can set (help and ``readByTheCommand`` aside).
    static func flags(of command: ParsableCommand.Type) -> [Flag] {
        struct Description: Decodable {
            struct Command: Decodable { let arguments: [Argument]? }
            struct Argument: Decodable {
                struct Name: Decodable { let kind: String; let name: String }
                let kind: String
                let names: [Name]?
            }
            let command: Command
        }
        guard let description = try? JSONDecoder().decode(Description.self, from: Data(command._dumpHelp().utf8)) else { return [] }
        return (description.command.arguments ?? []).compactMap { argument in
            guard argument.kind != "positional", let long = argument.names?.first(where: { $0.kind == "long" })?.name,
                  long != "help", !readByTheCommand.contains(long) else { return nil }
            return Flag(name: long, takesValue: argument.kind == "option")
        }
    }

    /// Whether `environment` has any variable of ours (when none has, nothing more need be looked at).
    static func isUsed(in environment: [String: String]) -> Bool {
        environment.keys.contains { $0.hasPrefix(prefix) }
    }

    /// Two sides of flags that cannot be used together (either side's flags may go together among themselves).
    typealias Exclusion = (Set<String>, Set<String>)

    /// The settings `environment` makes for `flags`, leaving out those `arguments` (the command line) already
    /// gives, or whose other side of an `exclusive` pair the command line names (the command line's choice
    /// wins). A flag without a value takes true/false, yes/no, on/off or 1/0; anything else is refused,
    /// naming the variable.
    static func settings(for flags: [Flag], environment: [String: String], arguments: [String],
                         exclusive: [Exclusion] = []) throws -> [Setting] {
        func given(_ name: String) -> Bool { arguments.contains { $0 == "--\(name)" || $0.hasPrefix("--\(name)=") } }
        return try flags.compactMap { flag throws -> Setting? in
            let rivals = exclusive.reduce(into: Set([flag.name])) { rivals, pair in
                if pair.0.contains(flag.name) { rivals.formUnion(pair.1) }
                if pair.1.contains(flag.name) { rivals.formUnion(pair.0) }
            }
            guard let value = environment[flag.variable], !value.isEmpty, !rivals.contains(where: given) else { return nil }
            guard !flag.takesValue else { return Setting(variable: flag.variable, flagName: flag.name, arguments: ["--\(flag.name)=\(value)"]) }
            switch value.lowercased() {
            case "true", "yes", "on", "1": return Setting(variable: flag.variable, flagName: flag.name, arguments: ["--\(flag.name)"])
            case "false", "no", "off", "0": return nil
            default: throw ValidationError("\(flag.variable)=\(value.prefix(100)) must be true or false (it stands for --\(flag.name))")
            }
        }
    }

    /// The settings made, as one line for an error message: which variable stood for which flag (not their
    /// values, which may be secret).
    static func describe(_ settings: [Setting]) -> String {
        "set from the environment: " + settings.map { "\($0.variable) as --\($0.flagName)" }.joined(separator: ", ")
    }
}
