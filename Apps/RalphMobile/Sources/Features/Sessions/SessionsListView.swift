import RalphMobileKit
import RalphMobilePresentation
import SwiftUI

/// The sessions list: every run of the active server, newest first, live.
struct SessionsListView: View {
    @Environment(AppModel.self) private var app
    @State private var model: SessionsListScreenModel?
    @State private var showsNewRun = false

    var body: some View {
        Group {
            if let model {
                SessionsListScreen(model: model, canStartRuns: app.capabilities.canStartRuns, onNewRun: { showsNewRun = true })
            } else if app.client == nil {
                ContentUnavailableView(
                    "No server", systemImage: "server.rack", description: Text("Add a server to see its runs."))
            } else {
                ProgressView("Loading runs…")
            }
        }
        .navigationTitle("Sessions")
        .toolbar {
            if app.capabilities.canStartRuns {
                ToolbarItem(placement: .primaryAction) {
                    Button {
                        showsNewRun = true
                    } label: {
                        Label("New run", systemImage: "plus")
                    }
                    .accessibilityLabel("Start a new run")
                }
            }
        }
        .sheet(isPresented: $showsNewRun) {
            NavigationStack { NewRunView() }
        }
        .task(id: app.client?.baseURL) {
            guard let client = app.client else {
                model = nil
                return
            }
            if let model, model.list.client.baseURL == client.baseURL {
                await model.resume()
                return
            }
            let store = HiddenSessionsStore(fileURL: SessionsListScreenModel.defaultHiddenFileURL, server: client.baseURL)
            let created = SessionsListScreenModel(client: client, hiddenStore: store)
            model = created
            app.feeds.register(created)
            await created.start()
        }
        .onDisappear { model?.suspend() }
    }
}

/// The list itself, bound to its model.
struct SessionsListScreen: View {
    @Bindable var model: SessionsListScreenModel
    let canStartRuns: Bool
    let onNewRun: () -> Void

    var body: some View {
        TimelineView(.periodic(from: .now, by: 5)) { context in
            SessionsListBody(
                rows: model.rows(now: context.date),
                summary: model.summary,
                connection: model.connectionLine,
                emptyState: model.emptyState(canStartRuns: canStartRuns),
                storeError: model.storeError,
                filterOptions: model.filterOptions,
                filter: $model.filter,
                hostOptions: model.hostOptions,
                hostFilter: $model.hostFilter,
                hosts: model.hostsSection(now: context.date),
                showHidden: $model.showHidden,
                hiddenToggleLabel: model.hiddenToggleLabel,
                onHide: { model.hide($0) },
                onUnhide: { model.unhide($0) },
                onEmptyAction: { action in
                    if action == .startRun {
                        onNewRun()
                    } else {
                        Task { await model.perform(action) }
                    }
                }
            )
        }
        .refreshable { await model.refresh() }
    }
}

/// What the list lays out, from values (previews feed it fixtures).
struct SessionsListBody: View {
    let rows: [SessionRow]
    let summary: String
    let connection: ConnectionLine
    let emptyState: SessionsEmptyState?
    let storeError: String?
    let filterOptions: [SessionsFilterOption]
    @Binding var filter: SessionsFilter
    /// Empty for a server on its own: no host picker then.
    let hostOptions: [HostFilterOption]
    @Binding var hostFilter: String?
    /// Nil for a server on its own: no hosts section then.
    let hosts: HostsSection?
    @Binding var showHidden: Bool
    let hiddenToggleLabel: String?
    let onHide: (String) -> Void
    let onUnhide: (String) -> Void
    let onEmptyAction: (SessionsEmptyState.Action) -> Void

    var body: some View {
        List {
            Section {
                Picker("Show", selection: $filter) {
                    ForEach(filterOptions) { option in
                        Text(option.label).tag(option.filter)
                    }
                }
                .pickerStyle(.segmented)
                .accessibilityLabel("Filter runs")
                if !hostOptions.isEmpty {
                    Picker("Host", selection: $hostFilter) {
                        ForEach(hostOptions) { option in
                            Text(option.label).tag(option.hostID)
                        }
                    }
                    .pickerStyle(.menu)
                    .accessibilityLabel("Show the runs of one host")
                }
                ConnectionLineView(line: connection)
                if let hosts, let banner = hosts.banner {
                    Label(banner, systemImage: "exclamationmark.triangle.fill")
                        .font(.subheadline.weight(.semibold))
                        .foregroundStyle(Color(theme: hosts.bannerTone.themeColor))
                }
                if !summary.isEmpty {
                    Text(summary).font(.footnote).foregroundStyle(Color(theme: .secondaryText))
                }
                if let hiddenToggleLabel {
                    Toggle(hiddenToggleLabel, isOn: $showHidden)
                }
                if let storeError {
                    Text(storeError).font(.footnote).foregroundStyle(Color(theme: .danger))
                }
            }
            if let emptyState {
                Section {
                    SessionsEmptyStateView(state: emptyState, onAction: onEmptyAction)
                }
            } else {
                Section {
                    ForEach(rows) { row in
                        NavigationLink {
                            SessionDetailView(sessionID: row.id)
                        } label: {
                            SessionRowView(row: row)
                        }
                        .swipeActions(edge: .trailing) {
                            if row.isHidden {
                                Button("Unhide") { onUnhide(row.id) }
                                    .tint(Color(theme: .info))
                                    .accessibilityLabel("Unhide this run")
                            } else {
                                Button("Hide") { onHide(row.id) }
                                    .tint(Color(theme: .secondaryText))
                                    .accessibilityLabel("Hide this run on this device")
                            }
                        }
                        .accessibilityAction(named: row.isHidden ? "Unhide" : "Hide") {
                            if row.isHidden {
                                onUnhide(row.id)
                            } else {
                                onHide(row.id)
                            }
                        }
                    }
                }
            }
            // After the runs: the cluster's hosts, online or not (a server on its own has none).
            if let hosts {
                HostsSectionView(section: hosts)
            }
        }
        .scrollContentBackground(.hidden)
        .background(Color(theme: .background))
    }
}

/// A list's empty state with its action.
struct SessionsEmptyStateView: View {
    let state: SessionsEmptyState
    let onAction: (SessionsEmptyState.Action) -> Void

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            Text(state.title).font(.headline).foregroundStyle(Color(theme: .text))
            if !state.message.isEmpty {
                Text(state.message).font(.body).foregroundStyle(Color(theme: .secondaryText))
            }
            if let action = state.action {
                Button(action.label) { onAction(action) }
                    .buttonStyle(.borderedProminent)
                    .tint(Color(theme: .accent))
            }
        }
        .padding(.vertical, 8)
    }
}

#Preview("Sessions") {
    @Previewable @State var filter = SessionsFilter.all
    @Previewable @State var hostFilter: String?
    @Previewable @State var showHidden = true
    NavigationStack {
        SessionsListBody(
            rows: SessionsFixtures.rows, summary: SessionsFixtures.listSummary, connection: SessionsFixtures.listConnection,
            emptyState: nil, storeError: nil, filterOptions: SessionsFixtures.filterOptions, filter: $filter,
            hostOptions: [], hostFilter: $hostFilter, hosts: nil, showHidden: $showHidden,
            hiddenToggleLabel: SessionsFixtures.listHiddenToggleLabel, onHide: { _ in }, onUnhide: { _ in }, onEmptyAction: { _ in }
        )
        .navigationTitle("Sessions")
    }
}

#Preview("Reconnecting, empty") {
    @Previewable @State var filter = SessionsFilter.live
    @Previewable @State var hostFilter: String?
    @Previewable @State var showHidden = false
    NavigationStack {
        SessionsListBody(
            rows: [], summary: SessionsFixtures.finishedOnlySummary, connection: SessionsFixtures.listReconnecting,
            emptyState: SessionsFixtures.liveFilteredOut,
            storeError: nil, filterOptions: SessionsFixtures.finishedOnlyFilterOptions, filter: $filter, hostOptions: [],
            hostFilter: $hostFilter, hosts: nil, showHidden: $showHidden,
            hiddenToggleLabel: nil, onHide: { _ in }, onUnhide: { _ in }, onEmptyAction: { _ in }
        )
        .navigationTitle("Sessions")
    }
}

#Preview("Cluster, a host offline") {
    @Previewable @State var filter = SessionsFilter.all
    @Previewable @State var hostFilter: String?
    @Previewable @State var showHidden = false
    NavigationStack {
        SessionsListBody(
            rows: SessionsFixtures.clusterRows, summary: SessionsFixtures.clusterSummary, connection: SessionsFixtures.listConnection,
            emptyState: nil, storeError: nil, filterOptions: SessionsFixtures.clusterFilterOptions, filter: $filter,
            hostOptions: SessionsFixtures.hostOptions, hostFilter: $hostFilter, hosts: SessionsFixtures.hostsSection,
            showHidden: $showHidden, hiddenToggleLabel: nil, onHide: { _ in }, onUnhide: { _ in }, onEmptyAction: { _ in }
        )
        .navigationTitle("Sessions")
    }
}
