import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileServer

/// `ralph-mobile-server pair`: prints a QR code (and its URL) that pairs a phone as a new key.
///
/// It does not call the running server: it writes the code's digest into the data directory's pairing file
/// (``PairingStore``), which the server reads when the phone exchanges the code — the same way `keys create` works.
/// So it needs no admin key and no network path to the server, only the data directory (whose owner is the server's
/// admin anyway); and the code works as soon as it is printed, even before the server starts. The address in the QR
/// code is `--url`, else the one the running server recorded when it started listening (`server-address.json`).
struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a QR code that pairs a phone as a new key (single use, valid for a few minutes).",
        discussion: """
            The QR code holds <url>/pair#code=<code>: the phone's camera opens the dashboard's pairing page, which trades \
            the code for a new key of --role and logs the phone in (the iOS app can scan it too). The key itself is \
            never in the QR code, and the server keeps only a digest of the code. A code works once, for --expires \
            minutes; the code is also printed, to type on a device that cannot scan.
            """
    )

    @Option(help: ArgumentHelp("The new key's role: operator (steer, chat, approvals), viewer (read only) or admin.", valueName: "role"))
    var role = "operator"

    @Option(help: ArgumentHelp("The new key's name: the device that will use it.", valueName: "name"))
    var name = "phone"

    @Option(
        help: ArgumentHelp(
            "The server's address as the phone reaches it, e.g. http://192.168.1.20:8080 or https://ralph.example.net.",
            discussion: "Default: where the running server of --data-dir listens (a wildcard address becomes one of this machine's addresses).",
            valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("Minutes the code stays valid (0.5 to 60).", valueName: "minutes"))
    var expires: Double = PairingStore.defaultLifetime / 60

    @Flag(help: "Draw the QR code without colours (dark modules as blocks), e.g. to save it in a file.")
    var plain = false

    @OptionGroup var data: DataDirectoryOptions
    /// `--database`, an option of the server command, given after the subcommand's name as well.
    @ParentCommand var server: RalphMobileServerCommand

    func validate() throws {
        if Role(rawValue: role) == nil { throw ValidationError("--role must be admin, operator or viewer") }
        if !PairingStore.lifetimes.contains(expires * 60) { throw ValidationError("--expires must be between 0.5 and 60 minutes") }
        if name.count > 200 { throw ValidationError("--name is longer than 200 characters") }
        if let url {
            do {
                _ = try ReachableAddress.validatedBase(url)
            } catch {
                throw ValidationError("--url: \(error)")
            }
        }
    }

    func run() async throws {
        let directory = data.resolved
        let running = ServerAddressRecord.running(in: directory)
        if server.databaseURL != nil || running?.cluster == true {
            fail("pairing codes are kept by one host, so a cluster does not offer them; create a key with `ralph-mobile-server keys create --database`")
        }
        let base: ReachableAddress.Guess
        if let url {
            base = ReachableAddress.Guess(url: (try? ReachableAddress.validatedBase(url)) ?? url, warning: nil)
        } else if let running {
            base = ReachableAddress.guess(boundHost: running.host, port: running.port)
        } else {
            fail("no running server found for \(directory) (it records its address when it starts listening); start it, or give the address the phone uses with --url")
        }
        let store = PairingStore(path: ServerConfiguration(dataDirectory: directory).pairingFile)
        let made: (code: String, entry: PairingStore.Entry)
        do {
            // Whoever can write the data directory is the server's admin: any role may be paired from here.
            made = try store.create(role: Role(rawValue: role) ?? .viewer, name: name.isEmpty ? nil : name, creatorRole: .admin, lifetime: expires * 60)
        } catch {
            fail("\(error)")
        }
        let link = ReachableAddress.pairingURL(base: base.url, code: made.code)
        let qr: QRCode
        do {
            qr = try QRCode(encoding: link)
        } catch {
            fail("\(error)")
        }
        let expiry = Date(timeIntervalSince1970: made.entry.expiresAt)
        let clock = DateFormatter()
        clock.dateFormat = "HH:mm:ss"
        print(qr.terminalText(colors: !plain), terminator: "")
        print("")
        print("Scan with the phone's camera, or open: \(link)")
        print("Pairs as: \(made.entry.role.rawValue) key \"\(made.entry.name ?? "unnamed")\"; code \(made.code), single use.")
        print("Valid until \(clock.string(from: expiry)) (\(Timestamp.format(expiry)), \(Self.minutes(expires)))")
        if let warning = base.warning {
            FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
        }
    }

    /// "5 minutes", "30 seconds".
    static func minutes(_ value: Double) -> String {
        value < 1 ? "\(Int(value * 60)) seconds" : value == 1 ? "1 minute" : "\(value.rounded() == value ? String(Int(value)) : String(value)) minutes"
    }

    /// Prints `error: <message>` and exits with a failure.
    private func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        Foundation.exit(1)
    }
}
