import Foundation
import RalphMobileKit

/// Keys kept in memory only, for UI tests (nothing reaches the Keychain or survives the process) and previews.
public final class MemorySecretStore: SecretStore, @unchecked Sendable {
    // @unchecked: every access to `secrets` holds `lock`.
    private let lock = NSLock()
    private var secrets: [String: String]

    public init(_ secrets: [String: String] = [:]) {
        self.secrets = secrets
    }

    public func secret(for account: String) throws -> String? {
        lock.withLock { secrets[account] }
    }

    public func setSecret(_ secret: String, for account: String) throws {
        lock.withLock { secrets[account] = secret }
    }

    public func removeSecret(for account: String) throws {
        lock.withLock { _ = secrets.removeValue(forKey: account) }
    }
}
