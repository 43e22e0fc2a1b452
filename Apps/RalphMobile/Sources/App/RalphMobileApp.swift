import RalphMobilePresentation
import SwiftUI

/// Ralph Mobile: watch and steer the AI coding agents running on your computer, from an iPhone or an iPad.
@main
struct RalphMobileApp: App {
    @State private var app: AppModel
    private let launch: AppLaunchOptions

    init() {
        let launch = AppLaunchOptions(arguments: ProcessInfo.processInfo.arguments, environment: ProcessInfo.processInfo.environment)
        self.launch = launch
        _app = State(initialValue: AppBootstrap.makeModel(launch))
    }

    var body: some Scene {
        WindowGroup {
            RootView(launch: launch)
                .environment(app)
                .environment(\.appTheme, app.theme)
                .preferredColorScheme(.dark)
                .task { await app.start() }
        }
    }
}
