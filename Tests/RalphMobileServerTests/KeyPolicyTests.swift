import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

@Suite("Weak API keys")
struct KeyPolicyTests {
    static let weak = ["", " ", "   ", "1", "secret", "admin-key", "aaaaaaaaaaaaaaaaaaaaaaaa", "abcabcabcabcabcabcabc", " padded-key-0123456789", "tab\tinside-key-0123456789"]
    static let strong = ["rmk_test_secret_0123456789", "correct horse battery staple", "admin-secret-for-tests"]

    @Test("weak keys are refused at startup, on every address: empty, blank, short, few different characters, padded")
    func weakKeysRefused() throws {
        let tmp = TemporaryDirectory()
        var configuration = ServerConfiguration(dataDirectory: tmp.subdirectory("data"))
        configuration.workspaces = [tmp.subdirectory("root")]
        for host in ["0.0.0.0", "127.0.0.1"] {
            configuration.host = host
            for key in Self.weak {
                configuration.apiKey = key
                do {
                    _ = try RalphMobileServer(configuration: configuration)
                    Issue.record("the key '\(key)' was accepted on \(host)")
                } catch {
                    #expect(error.description.contains("refusing the API key") && error.description.contains("at least 16 characters"), "\(error)")
                }
            }
            for key in Self.strong + [KeyStore.generateSecret()] {
                configuration.apiKey = key
                _ = try RalphMobileServer(configuration: configuration)
            }
        }
    }

    @Test("the rule: at least 16 characters, 8 different ones, no control characters or surrounding whitespace")
    func rule() {
        #expect(Self.weak.allSatisfy { APIKeyPolicy.weakness(of: $0) != nil })
        #expect(Self.strong.allSatisfy { APIKeyPolicy.weakness(of: $0) == nil })
        #expect((0..<50).allSatisfy { _ in APIKeyPolicy.weakness(of: KeyStore.generateSecret()) == nil })
        #expect(APIKeyPolicy.weakness(of: "1") == "it is 1 character long; at least 16 are needed")
        #expect(APIKeyPolicy.weakness(of: " ") == "it is empty or only whitespace")
    }

    @Test("ralph-mobile-server --bind-all with --api-key ' ' or '1', or a weak RALPH_MOBILE_API_KEY, exits with the reason")
    func commandLineRefusesWeakKeys() async throws {
        let tmp = TemporaryDirectory()
        for (arguments, environment) in [
            (["--api-key", " "], [:]), (["--api-key", "1"], [:]), ([], ["RALPH_MOBILE_API_KEY": "1"]), ([], ["RALPH_MOBILE_API_KEY": "  "]),
        ] as [([String], [String: String])] {
            let all = ["--bind-all", "--port", "0", "--data-dir", tmp.path + "/data", "--workspace", tmp.subdirectory("root")] + arguments
            let server = try Executable.Server(all, environment: environment)
            let exited = (try? await eventually(20, "the server to refuse") { !server.process.isRunning }) != nil
            if !exited { _ = try await server.terminate() }
            #expect(exited, "\(arguments) \(environment) must not start")
            #expect(!exited || server.process.terminationStatus != 0)
            // The exit can be seen before the pipe's last bytes were read: wait for them.
            let said = (try? await eventually(5, "the reason in the log") { server.log.value.contains("refusing the API key") }) != nil
            #expect(said, "\(server.log.value)")
        }
    }
}
