#if canImport(Security)
import Foundation
import RalphMobileKit
import Security

/// API keys in the iOS Keychain, as generic passwords readable only while the device is unlocked and never moved to
/// another device (`kSecAttrAccessibleWhenUnlockedThisDeviceOnly`: not in backups restored elsewhere, not synced).
struct DeviceKeychain: SecretStore {
    let service: String

    init(service: String = "dev.ralphmobile.api-keys") {
        self.service = service
    }

    private func itemQuery(_ account: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }

    func secret(for account: String) throws -> String? {
        var query = itemQuery(account)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else { throw KeychainError(status: status) }
        return String(decoding: data, as: UTF8.self)
    }

    func setSecret(_ secret: String, for account: String) throws {
        let attributes: [String: Any] = [
            kSecValueData as String: Data(secret.utf8),
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
        ]
        let updated = SecItemUpdate(itemQuery(account) as CFDictionary, attributes as CFDictionary)
        if updated == errSecSuccess { return }
        guard updated == errSecItemNotFound else { throw KeychainError(status: updated) }
        let item = itemQuery(account).merging(attributes) { _, new in new }
        let added = SecItemAdd(item as CFDictionary, nil)
        guard added == errSecSuccess else { throw KeychainError(status: added) }
    }

    func removeSecret(for account: String) throws {
        let status = SecItemDelete(itemQuery(account) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }
}

/// A Keychain call that failed, with the system's description of its status.
struct KeychainError: Error, CustomStringConvertible {
    let status: OSStatus

    var description: String {
        (SecCopyErrorMessageString(status, nil) as String?) ?? "Keychain error \(status)"
    }
}
#endif
