import RalphMobileKit
import RalphMobilePresentation
import Security
import SwiftUI
import UIKit
import XCTest

@testable import RalphMobile

/// The app target's own code on a simulator: the Keychain store and the theme's dynamic colours. Everything else the
/// app shows is tested on Linux in RalphMobilePresentationTests.
final class DeviceKeychainTests: XCTestCase {
    private let keychain = DeviceKeychain(service: "dev.ralphmobile.tests.\(UUID().uuidString)")

    override func tearDown() {
        try? keychain.removeSecret(for: "server")
        super.tearDown()
    }

    func testStoresReplacesAndRemovesAKey() throws {
        XCTAssertNil(try keychain.secret(for: "server"))
        try keychain.setSecret("rmk_first_key_0123456789", for: "server")
        XCTAssertEqual(try keychain.secret(for: "server"), "rmk_first_key_0123456789")
        try keychain.setSecret("rmk_second_key_0123456789", for: "server")
        XCTAssertEqual(try keychain.secret(for: "server"), "rmk_second_key_0123456789")
        try keychain.removeSecret(for: "server")
        XCTAssertNil(try keychain.secret(for: "server"))
        XCTAssertNoThrow(try keychain.removeSecret(for: "server"), "removing a missing key is not an error")
    }

    func testKeysAreReadableOnlyWhenUnlockedAndStayOnThisDevice() throws {
        try keychain.setSecret("rmk_device_only_0123456789", for: "server")
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: keychain.service,
            kSecAttrAccount as String: "server",
            kSecReturnAttributes as String: true,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        var item: CFTypeRef?
        XCTAssertEqual(SecItemCopyMatching(query as CFDictionary, &item), errSecSuccess)
        let attributes = try XCTUnwrap(item as? [String: Any])
        XCTAssertEqual(attributes[kSecAttrAccessible as String] as? String, kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String)
    }
}

final class ThemeColorTests: XCTestCase {
    private func components(_ color: UIColor, theme: AppTheme) -> [Int] {
        let resolved = color.resolvedColor(with: UITraitCollection { $0.appTheme = theme })
        var red: CGFloat = 0
        var green: CGFloat = 0
        var blue: CGFloat = 0
        var alpha: CGFloat = 0
        XCTAssertTrue(resolved.getRed(&red, green: &green, blue: &blue, alpha: &alpha))
        return [red, green, blue].map { Int(($0 * 255).rounded()) }
    }

    @MainActor
    func testDynamicColoursFollowTheChosenTheme() {
        for theme in AppTheme.allCases {
            for color in ThemeColor.textColors + ThemeColor.backgrounds + [.hat("builder")] {
                let rgb = color.rgb(in: theme)
                let expected = [Int(rgb.red), Int(rgb.green), Int(rgb.blue)]
                XCTAssertEqual(components(UIColor(theme: color), theme: theme), expected, "\(color.token) in \(theme)")
            }
        }
        let background = UIColor(theme: .background)
        XCTAssertNotEqual(components(background, theme: .cyberpunk), components(background, theme: .contrast))
    }

    @MainActor
    func testTheSwiftUIEnvironmentCarriesTheTheme() {
        var environment = EnvironmentValues()
        XCTAssertEqual(environment.appTheme, .cyberpunk)
        environment.appTheme = .contrast
        XCTAssertEqual(environment.appTheme, .contrast)
        let traits = UITraitCollection { $0.appTheme = .contrast }
        XCTAssertEqual(AppThemeKey.read(from: traits), .contrast)
    }
}

final class AppBootstrapTests: XCTestCase {
    @MainActor
    func testUITestLaunchesStartCleanWithKeysInMemory() {
        let launch = AppLaunchOptions(arguments: ["RalphMobile", AppLaunchOptions.uiTestingArgument], environment: [:])
        let model = AppBootstrap.makeModel(launch)
        XCTAssertTrue(model.needsOnboarding)
        XCTAssertEqual(model.status, .noServer)
    }
}
