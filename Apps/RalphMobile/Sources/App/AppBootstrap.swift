import Foundation
import RalphMobileKit
import RalphMobilePresentation

/// Where the app keeps its state and keys, from how it was launched.
enum AppBootstrap {
    /// `Application Support/RalphMobile` and the Keychain; under UI tests a fresh temporary directory and keys in memory.
    @MainActor
    static func makeModel(_ launch: AppLaunchOptions) -> AppModel {
        let support =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?.path
            ?? NSHomeDirectory() + "/Library/Application Support"
        let directory = launch.storageDirectory(
            standard: support + "/RalphMobile", temporary: NSTemporaryDirectory(), runID: UUID().uuidString)
        let secrets: any SecretStore = launch.keepsKeysInMemory ? MemorySecretStore() : DeviceKeychain()
        return AppModel.open(directory: directory, secrets: secrets)
    }
}
