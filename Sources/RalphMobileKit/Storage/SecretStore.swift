import Foundation
import RalphAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Security)
import Security
#endif

/// Where API keys are kept: never in the profiles file.
public protocol SecretStore: Sendable {
    /// The secret kept for `account`, or nil when there is none; throws when the store cannot be read.
    func secret(for account: String) throws -> String?
    /// Keeps `secret` for `account`, replacing any earlier one.
    func setSecret(_ secret: String, for account: String) throws
    /// Forgets `account`'s secret; an account without one is not an error.
    func removeSecret(for account: String) throws
}

/// Why a ``SecretStore`` failed, worded for a person (with what to do, where it can say).
public struct SecretStoreError: Error, CustomStringConvertible {
    /// What went wrong: the file and the fix, or the Keychain status.
    public let description: String
}

/// A JSON file readable only by its owner (mode 0600), for Linux and the terminal client. A file others can read
/// is refused.
public struct FileSecretStore: SecretStore {
    /// The JSON file (`{"<account>": "<secret>"}`); it and its directory are created on the first write.
    public let path: String

    /// A store in `path`; nothing is read or written until asked.
    public init(path: String) {
        self.path = path
    }

    func load() throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        var st = stat()
        if stat(path, &st) == 0, (st.st_mode & 0o077) != 0 {
            throw SecretStoreError(description: "\(path) is readable by other users; run: chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw SecretStoreError(description: "cannot read \(path)") }
        guard let secrets = try? WireJSON.decode([String: String].self, from: data) else {
            // Never overwrite a file we cannot read: it may hold keys we would lose.
            throw SecretStoreError(description: "\(path) is not a secrets file (a JSON object of strings); fix or remove it")
        }
        return secrets
    }

    func save(_ secrets: [String: String]) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let data = try WireJSON.encode(secrets)
        // Created 0600 from the start (never readable by others, not even for a moment), then moved into place.
        let temp = path + ".tmp-\(getpid())"
        unlink(temp)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SecretStoreError(description: "cannot write \(temp): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == data.count, synced, rename(temp, path) == 0 else {
            unlink(temp)
            throw SecretStoreError(description: "cannot replace \(path)")
        }
    }

    /// Reads the file (a missing file holds no secrets). Throws ``SecretStoreError`` when others can read it, or it is not
    /// a JSON object of strings.
    public func secret(for account: String) throws -> String? { try load()[account] }

    /// Reads the file (refused as in ``secret(for:)``), then writes it anew: a temporary file created with mode 0600,
    /// synced, then renamed over `path`.
    public func setSecret(_ secret: String, for account: String) throws {
        var all = try load()
        all[account] = secret
        try save(all)
    }

    /// Rewrites the file without `account`; an account it does not hold leaves the file untouched.
    public func removeSecret(for account: String) throws {
        var all = try load()
        guard all.removeValue(forKey: account) != nil else { return }
        try save(all)
    }
}

#if canImport(Security)
/// The Keychain (Apple platforms): generic passwords under a service name.
public struct KeychainSecretStore: SecretStore {
    /// The Keychain service the items are kept under.
    public let service: String

    /// A store of generic passwords under `service`.
    public init(service: String = "ralph-mobile") {
        self.service = service
    }

    func query(_ account: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }

    /// The item's data as UTF-8; nil when there is no item, ``SecretStoreError`` on any other Keychain status.
    public func secret(for account: String) throws -> String? {
        var q = query(account)
        q[kSecReturnData as String] = true
        q[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(q as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else { throw SecretStoreError(description: "Keychain error \(status)") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Replaces the item; it is readable after the device's first unlock (`kSecAttrAccessibleAfterFirstUnlock`).
    public func setSecret(_ secret: String, for account: String) throws {
        try removeSecret(for: account)
        var q = query(account)
        q[kSecValueData as String] = Data(secret.utf8)
        q[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
        let status = SecItemAdd(q as CFDictionary, nil)
        guard status == errSecSuccess else { throw SecretStoreError(description: "Keychain error \(status)") }
    }

    /// Deletes the item; no item is not an error.
    public func removeSecret(for account: String) throws {
        let status = SecItemDelete(query(account) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw SecretStoreError(description: "Keychain error \(status)") }
    }
}
#endif
