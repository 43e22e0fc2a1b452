import RalphMobileKit
import RalphMobilePresentation
import SwiftUI

/// Onboarding until a server is saved; then the sections — tabs on an iPhone, a sidebar on an iPad — with the
/// server's status above them. Follows the scene phase: feeds close in the background and resume on return.
struct RootView: View {
    var launch = AppLaunchOptions(arguments: [], environment: [:])

    @Environment(AppModel.self) private var app
    @Environment(NotificationsHub.self) private var notifications
    @Environment(\.horizontalSizeClass) private var sizeClass
    @Environment(\.scenePhase) private var scenePhase
    @State private var selection: AppSection = .sessions
    /// The pending approvals, for the badge.
    @State private var approvals: ApprovalsModel?

    var body: some View {
        Group {
            if app.needsOnboarding {
                NavigationStack {
                    OnboardingView(address: launch.serverURL ?? "", apiKey: launch.apiKey ?? "")
                }
            } else if app.client == nil {
                NavigationStack { ConnectingView() }
            } else if sizeClass == .regular {
                // Another server or key: every section starts again with models of the new client.
                SidebarLayout(selection: $selection, pendingApprovals: approvals?.pending.count ?? 0)
                    .id(app.connectionID)
            } else {
                TabLayout(selection: $selection, pendingApprovals: approvals?.pending.count ?? 0)
                    .id(app.connectionID)
            }
        }
        .background(Color(theme: .background))
        .tint(Color(theme: .accent))
        .task(id: app.connectionID) { await followApprovals() }
        .onAppear {
            notifications.show(selection)
            if scenePhase == .active { notifications.enterForeground() }
        }
        .onChange(of: selection) { _, section in notifications.show(section) }
        .onChange(of: notifications.responder.pendingRoute) { _, route in
            guard let route else { return }
            selection = route.section
            if route.opensDetail == false { notifications.responder.pendingRoute = nil }
        }
        .sheet(item: openedDetail) { route in
            NotificationRouteView(route: route)
        }
        .onChange(of: scenePhase) { _, phase in
            switch phase {
            case .background:
                app.enterBackground()
                notifications.enterBackground()
            case .active:
                notifications.enterForeground()
                if app.feeds.isInBackground { Task { await app.enterForeground() } }
            default:
                break
            }
        }
    }

    /// A notification that opens one run or conversation shows it over the section it belongs to.
    private var openedDetail: Binding<NotificationRoute?> {
        Binding(
            get: { notifications.responder.pendingRoute.flatMap { $0.opensDetail ? $0 : nil } },
            set: { if $0 == nil { notifications.responder.pendingRoute = nil } })
    }

    /// A pending-approvals feed of the active server, for the badge.
    private func followApprovals() async {
        approvals?.stop()
        approvals = nil
        guard let client = app.client else { return }
        let model = ApprovalsModel(client: client)
        approvals = model
        app.feeds.register(model)
        await model.start()
    }
}

/// The root view of one section.
struct SectionRoot: View {
    let section: AppSection

    var body: some View {
        switch section {
        case .sessions: SessionsListView()
        case .newRun: NewRunView()
        case .conversations: ConversationsListView()
        case .approvals: ApprovalsInboxView()
        case .library: LibraryView()
        case .settings: SettingsView()
        }
    }
}

/// Before the saved server's client exists (at launch), or when it could not be made.
struct ConnectingView: View {
    @Environment(AppModel.self) private var app

    var body: some View {
        VStack(spacing: 16) {
            ProgressView()
            Text(app.status.title ?? "Connecting…")
                .font(.headline)
                .foregroundStyle(Color(theme: .text))
            if let message = app.status.message {
                Text(message)
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .secondaryText))
                    .multilineTextAlignment(.center)
            }
            NavigationLink("Servers") { ServersView() }
        }
        .padding()
        .frame(maxWidth: .infinity, maxHeight: .infinity)
        .background(Color(theme: .background))
    }
}

/// The active server's trouble (refused key, unreachable), above every section.
struct ServerStatusBanner: View {
    @Environment(AppModel.self) private var app

    var body: some View {
        if let title = app.status.title, let message = app.status.message {
            VStack(alignment: .leading, spacing: 4) {
                Label(title, systemImage: "exclamationmark.triangle.fill")
                    .font(.headline)
                    .foregroundStyle(Color(theme: .warning))
                Text(message)
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .text))
                Button("Try again") {
                    Task { await app.refresh() }
                }
                .font(.footnote.weight(.semibold))
                .accessibilityHint("Asks the server again")
            }
            .frame(maxWidth: .infinity, alignment: .leading)
            .padding(12)
            .background(Color(theme: .surfaceRaised))
            .accessibilityElement(children: .combine)
        }
    }
}

/// iPhone: a tab bar of five sections, each in its own navigation stack.
struct TabLayout: View {
    @Binding var selection: AppSection
    let pendingApprovals: Int
    @Environment(AppModel.self) private var app

    var body: some View {
        TabView(selection: $selection) {
            ForEach(AppSection.tabs(for: app.capabilities)) { section in
                NavigationStack {
                    SectionRoot(section: section)
                        .safeAreaInset(edge: .top) { ServerStatusBanner() }
                }
                .tabItem { Label(section.title, systemImage: section.systemImage) }
                .tag(section)
                .badge(badge(for: section))
                .accessibilityIdentifier(AccessibilityID.section(section))
            }
        }
    }

    private func badge(for section: AppSection) -> Text? {
        guard section == .approvals else { return nil }
        return AppSection.approvalsBadge(pending: pendingApprovals).map { Text($0) }
    }
}

/// iPad: a sidebar of sections beside the selected one.
struct SidebarLayout: View {
    @Binding var selection: AppSection
    let pendingApprovals: Int
    @Environment(AppModel.self) private var app

    var body: some View {
        NavigationSplitView {
            List(AppSection.sidebar(for: app.capabilities), selection: sidebarSelection) { section in
                NavigationLink(value: section) {
                    Label(section.title, systemImage: section.systemImage)
                }
                .badge(badge(for: section))
                .accessibilityLabel(section.accessibilityLabel(pendingApprovals: pendingApprovals))
                .accessibilityIdentifier(AccessibilityID.section(section))
            }
            .navigationTitle(app.activeProfile?.name ?? "Ralph Mobile")
            .scrollContentBackground(.hidden)
            .background(Color(theme: .surface))
        } detail: {
            NavigationStack {
                SectionRoot(section: selection)
                    .safeAreaInset(edge: .top) { ServerStatusBanner() }
            }
            .id(selection)
        }
    }

    private var sidebarSelection: Binding<AppSection?> {
        Binding(get: { selection }, set: { if let section = $0 { selection = section } })
    }

    private func badge(for section: AppSection) -> Text? {
        guard section == .approvals else { return nil }
        return AppSection.approvalsBadge(pending: pendingApprovals).map { Text($0) }
    }
}

#Preview("iPhone, admin") {
    let app = AppModel.preview(role: .admin)
    RootView()
        .environment(app)
        .environment(NotificationsHub(app: app, deviceName: "Preview"))
        .preferredColorScheme(.dark)
}

#Preview("Onboarding") {
    let app = AppModel.preview(servers: false)
    RootView(launch: AppLaunchOptions(arguments: [], environment: [AppLaunchOptions.serverURLVariable: AppFixtures.laptopURL]))
        .environment(app)
        .environment(NotificationsHub(app: app, deviceName: "Preview"))
        .preferredColorScheme(.dark)
}
