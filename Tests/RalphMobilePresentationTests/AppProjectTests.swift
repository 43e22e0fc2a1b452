import Foundation
import Testing
import Yams

/// The iOS app's project (Apps/RalphMobile/project.yml, for XcodeGen) and Info.plist, checked here since the app
/// cannot be built on Linux: targets, bundle ids, deployment target, Swift 6 settings, the package products, every
/// Swift file in a target, the Info.plist keys (local network, ATS limited to local networking), the CI workflow.
@Suite("The iOS app project")
struct AppProjectTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let app = repository + "/Apps/RalphMobile"

    /// project.yml as a dictionary.
    static func project() throws -> [String: Any] {
        let text = try String(contentsOfFile: app + "/project.yml", encoding: .utf8)
        return try #require(try Yams.load(yaml: text) as? [String: Any], "project.yml is a YAML mapping")
    }

    static func targets() throws -> [String: [String: Any]] {
        try #require(try project()["targets"] as? [String: [String: Any]], "project.yml has targets")
    }

    /// A target's base build settings.
    static func settings(_ target: [String: Any]) -> [String: Any] {
        ((target["settings"] as? [String: Any])?["base"] as? [String: Any]) ?? [:]
    }

    /// YAML `YES`/`true` (XcodeGen writes either as YES).
    static func isYes(_ value: Any?) -> Bool {
        if let bool = value as? Bool { return bool }
        return (value as? String)?.uppercased() == "YES"
    }

    /// The source folders of a target, relative to the app's folder.
    static func sources(_ target: [String: Any]) -> [String] {
        switch target["sources"] {
        case let path as String: [path]
        case let list as [Any]: list.compactMap { ($0 as? String) ?? (($0 as? [String: Any])?["path"] as? String) }
        default: []
        }
    }

    static func infoPlist() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: app + "/Resources/Info.plist"))
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    /// Every Swift file under Apps/, relative to the app's folder.
    static func swiftFiles() throws -> [String] {
        let root = repository + "/Apps"
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        var files: [String] = []
        while let path = enumerator.nextObject() as? String {
            guard path.hasSuffix(".swift"), !path.contains(".build/"), !path.contains("DerivedData/") else { continue }
            files.append("Apps/" + path)
        }
        return files.sorted()
    }

    @Test("four targets: the app, its Live Activity widget extension (embedded), its unit tests and its UI tests, for iOS")
    func targetsAndTypes() throws {
        let targets = try Self.targets()
        #expect(Set(targets.keys) == ["RalphMobile", "RalphMobileWidgets", "RalphMobileTests", "RalphMobileUITests"])
        #expect(targets["RalphMobile"]?["type"] as? String == "application")
        #expect(targets["RalphMobileWidgets"]?["type"] as? String == "app-extension")
        let appDependencies = targets["RalphMobile"]?["dependencies"] as? [[String: Any]] ?? []
        #expect(appDependencies.contains { $0["target"] as? String == "RalphMobileWidgets" }, "the app embeds the widget extension")
        #expect(targets["RalphMobileTests"]?["type"] as? String == "bundle.unit-test")
        #expect(targets["RalphMobileUITests"]?["type"] as? String == "bundle.ui-testing")
        for (name, target) in targets {
            #expect(target["platform"] as? String == "iOS", "\(name) is an iOS target")
        }
        for test in ["RalphMobileTests", "RalphMobileUITests"] {
            let dependencies = targets[test]?["dependencies"] as? [[String: Any]] ?? []
            #expect(dependencies.contains { $0["target"] as? String == "RalphMobile" }, "\(test) tests the app")
        }
    }

    @Test("bundle ids: valid, distinct, the tests' under the app's")
    func bundleIDs() throws {
        let targets = try Self.targets()
        let ids = try targets.mapValues { try #require(Self.settings($0)["PRODUCT_BUNDLE_IDENTIFIER"] as? String) }
        let app = try #require(ids["RalphMobile"])
        #expect(app == "dev.ralphmobile.RalphMobile")
        #expect(Set(ids.values).count == ids.count, "distinct")
        for (name, id) in ids {
            #expect(id.split(separator: ".").count >= 3, "\(name): reverse-DNS")
            #expect(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }, "\(name): only letters, digits, dots, hyphens")
            if name != "RalphMobile" { #expect(id.hasPrefix("dev.ralphmobile."), "\(name) under the app's prefix") }
        }
        // An embedded extension's id must start with its app's.
        #expect(ids["RalphMobileWidgets"]?.hasPrefix(app + ".") == true)
    }

    @Test("iOS 17, Swift 6 language mode, complete strict concurrency, iPhone and iPad")
    func swiftSettings() throws {
        let project = try Self.project()
        let options = try #require(project["options"] as? [String: Any])
        #expect((options["deploymentTarget"] as? [String: Any])?["iOS"] as? String == "17.0")
        let base = try #require((project["settings"] as? [String: Any])?["base"] as? [String: Any])
        #expect(base["SWIFT_VERSION"] as? String == "6.0")
        #expect(base["SWIFT_STRICT_CONCURRENCY"] as? String == "complete")
        #expect(base["IPHONEOS_DEPLOYMENT_TARGET"] as? String == "17.0")
        for (name, target) in try Self.targets() {
            #expect(target["deploymentTarget"] as? String == "17.0", "\(name) targets iOS 17")
            // No target may weaken the project's Swift settings.
            #expect(Self.settings(target)["SWIFT_VERSION"] == nil && Self.settings(target)["SWIFT_STRICT_CONCURRENCY"] == nil, "\(name)")
        }
        let app = Self.settings(try #require(try Self.targets()["RalphMobile"]))
        #expect(app["TARGETED_DEVICE_FAMILY"] as? String == "1,2", "iPhone and iPad")
        #expect(app["INFOPLIST_FILE"] as? String == "Resources/Info.plist")
        #expect(!Self.isYes(app["GENERATE_INFOPLIST_FILE"]))
    }

    @Test("the app depends on this repository's package: RalphMobilePresentation, RalphMobileKit, RalphAPI")
    func packageDependency() throws {
        let project = try Self.project()
        let packages = try #require(project["packages"] as? [String: [String: Any]])
        #expect(packages.count == 1, "only the repository's own package (no other dependencies)")
        let (name, package) = try #require(packages.first)
        let path = try #require(package["path"] as? String, "a local package")
        let packageDirectory = URL(fileURLWithPath: Self.app + "/" + path).standardizedFileURL.path
        #expect(packageDirectory == URL(fileURLWithPath: Self.repository).standardizedFileURL.path, "\(path) is the repository's root")
        let manifest = try String(contentsOfFile: packageDirectory + "/Package.swift", encoding: .utf8)
        let app = try #require(try Self.targets()["RalphMobile"])
        let dependencies = try #require(app["dependencies"] as? [[String: Any]])
        let products = dependencies.filter { $0["package"] as? String == name }.flatMap { ($0["products"] as? [String]) ?? [$0["product"] as? String].compactMap { $0 } }
        #expect(Set(products) == ["RalphMobilePresentation", "RalphMobileKit", "RalphAPI"])
        for product in products {
            #expect(manifest.contains(".library(name: \"\(product)\""), "Package.swift offers \(product)")
        }
    }

    @Test("the package supports the app's deployment target (Xcode refuses a package product that needs a newer iOS)")
    func packagePlatform() throws {
        let manifest = try String(contentsOfFile: Self.repository + "/Package.swift", encoding: .utf8)
        let declared = try #require(manifest.firstMatch(of: /\.iOS\(\.v(\d+)\)/), "Package.swift declares an iOS platform")
        let packageMinimum = try #require(Int(declared.output.1))
        #expect(packageMinimum <= 17, "Package.swift says .iOS(.v\(packageMinimum)); the app targets iOS 17: it must say .iOS(.v17)")
    }

    @Test("every Swift file under Apps/ is in exactly one target's sources")
    func everySwiftFileInATarget() throws {
        let targets = try Self.targets()
        let files = try Self.swiftFiles()
        #expect(!files.isEmpty)
        for file in files {
            let relative = String(file.dropFirst("Apps/RalphMobile/".count))
            #expect(file.hasPrefix("Apps/RalphMobile/"), "\(file) belongs to the app's folder")
            let owners = targets.filter { _, target in Self.sources(target).contains { relative.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") } }
            #expect(owners.count == 1, "\(file) is in \(owners.keys.sorted())")
        }
        #expect(Self.sources(try #require(targets["RalphMobile"])) == ["Sources"])
        #expect(files.contains("Apps/RalphMobile/Tests/RalphMobileTests.swift"))
        #expect(files.contains("Apps/RalphMobile/UITests/RalphMobileUITests.swift"))
    }

    @Test("the feature folders the shell's navigation opens are in the app's sources")
    func features() throws {
        let root = try String(contentsOfFile: Self.app + "/Sources/App/RootView.swift", encoding: .utf8)
        for view in ["SessionsListView()", "NewRunView()", "ConversationsListView()", "ApprovalsInboxView()", "LibraryView()", "SettingsView()"] {
            #expect(root.contains(view), "RootView opens \(view)")
        }
        #expect(root.contains("NavigationSplitView") && root.contains("TabView"), "a sidebar on iPad, tabs on iPhone")
        #expect(root.contains("scenePhase"))
    }

    @Test("Info.plist: local network usage explained; ATS allows local networking and nothing else; no Bonjour unless used")
    func infoPlistKeys() throws {
        let info = try Self.infoPlist()
        let usage = try #require(info["NSLocalNetworkUsageDescription"] as? String)
        #expect(usage.count > 20 && usage.contains("local network"))
        let ats = try #require(info["NSAppTransportSecurity"] as? [String: Any])
        #expect(Set(ats.keys) == ["NSAllowsLocalNetworking"], "no arbitrary loads, no exception domains")
        #expect(ats["NSAllowsLocalNetworking"] as? Bool == true)
        let sources = try Self.swiftFiles().map { try String(contentsOfFile: Self.repository + "/" + $0, encoding: .utf8) }.joined()
        let usesBonjour = ["NWBrowser", "NetServiceBrowser", "NWListener", "_tcp"].contains { sources.contains($0) }
        #expect((info["NSBonjourServices"] != nil) == usesBonjour, "NSBonjourServices only when the app browses for services")
        #expect(info["CFBundleIdentifier"] as? String == "$(PRODUCT_BUNDLE_IDENTIFIER)")
        #expect(info["CFBundleExecutable"] as? String == "$(EXECUTABLE_NAME)")
        #expect(info["UILaunchScreen"] is [String: Any])
        #expect(info["UIUserInterfaceStyle"] as? String == "Dark")
        let ipad = try #require(info["UISupportedInterfaceOrientations~ipad"] as? [String])
        #expect(ipad.count == 4, "every orientation on iPad (multitasking)")
        // No other plist in the app says otherwise (the widget extension has its own, for its extension point).
        let plists = (FileManager.default.enumerator(atPath: Self.app)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".plist") }
        #expect(Set(plists) == ["Resources/Info.plist", "Widgets/Info.plist"])
    }

    @Test("notifications and Live Activities: push entitlement, Live Activities allowed, the widget's extension point, the link scheme")
    func notificationKeys() throws {
        let info = try Self.infoPlist()
        #expect(info["NSSupportsLiveActivities"] as? Bool == true)
        let schemes = (info["CFBundleURLTypes"] as? [[String: Any]] ?? []).flatMap { ($0["CFBundleURLSchemes"] as? [String]) ?? [] }
        #expect(schemes == ["ralphmobile"], "the Live Activity opens ralphmobile://open?path=…")
        let app = Self.settings(try #require(try Self.targets()["RalphMobile"]))
        let entitlementsPath = try #require(app["CODE_SIGN_ENTITLEMENTS"] as? String)
        let entitlementsData = try Data(contentsOf: URL(fileURLWithPath: Self.app + "/" + entitlementsPath))
        let entitlements = try #require(try PropertyListSerialization.propertyList(from: entitlementsData, format: nil) as? [String: Any])
        #expect(entitlements["aps-environment"] as? String == "development")
        let widgets = Self.settings(try #require(try Self.targets()["RalphMobileWidgets"]))
        #expect(widgets["INFOPLIST_FILE"] as? String == "Widgets/Info.plist")
        let widgetData = try Data(contentsOf: URL(fileURLWithPath: Self.app + "/Widgets/Info.plist"))
        let widgetInfo = try #require(try PropertyListSerialization.propertyList(from: widgetData, format: nil) as? [String: Any])
        #expect((widgetInfo["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String == "com.apple.widgetkit-extension")
        // The app's code names the categories and buttons the presentation model defines, and the widget lays out its state.
        let sources = try Self.swiftFiles().map { try String(contentsOfFile: Self.repository + "/" + $0, encoding: .utf8) }.joined()
        for needed in ["NotificationCategory.all", "registerForRemoteNotifications", "UNTextInputNotificationAction", "ActivityConfiguration(for: LiveActivitySubject.self)",
            "Activity<LiveActivitySubject>.request", "NotificationSettingsView"]
        {
            #expect(sources.contains(needed), "the app has \(needed)")
        }
    }

    @Test("the generated Xcode project is never committed")
    func noCommittedProject() throws {
        let ignore = try String(contentsOfFile: Self.app + "/.gitignore", encoding: .utf8)
        #expect(ignore.split(separator: "\n").contains("*.xcodeproj/"))
        let listed = try FileManager.default.contentsOfDirectory(atPath: Self.app)
        #expect(!listed.contains { $0.hasSuffix(".xcodeproj") && Self.isTracked("Apps/RalphMobile/" + $0) })
    }

    /// Whether git tracks a path (false outside a git checkout).
    static func isTracked(_ path: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", repository, "ls-files", "--error-unmatch", path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test("the Mac workflow generates the project, starts the demo server, builds, runs the unit and UI tests")
    func workflow() throws {
        let text = try String(contentsOfFile: Self.repository + "/.github/workflows/ios.yml", encoding: .utf8)
        let workflow = try #require(try Yams.load(yaml: text) as? [String: Any])
        let jobs = try #require(workflow["jobs"] as? [String: [String: Any]])
        #expect(!jobs.isEmpty)
        for (name, job) in jobs {
            #expect((job["runs-on"] as? String)?.hasPrefix("macos") == true, "\(name) runs on macOS")
        }
        for needed in ["brew install xcodegen", "xcodegen generate", "swift run ralph-mobile-server --demo", "/api/health", "-scheme RalphMobile",
            "RalphMobileTests", "RalphMobileUITests", "actions/upload-artifact"]
        {
            #expect(text.contains(needed), "the workflow has \(needed)")
        }
    }
}
