import RalphMobileKit
import RalphMobilePresentation
import SwiftUI

/// One run in ten sections, kept live.
struct SessionDetailView: View {
    let sessionID: String
    @Environment(AppModel.self) private var app
    @Environment(NotificationsHub.self) private var notifications
    @State private var model: SessionDetailScreenModel?

    var body: some View {
        Group {
            if let model {
                SessionDetailScreen(model: model, liveActivity: notifications.liveActivity)
            } else if app.client == nil {
                ContentUnavailableView("No server", systemImage: "server.rack", description: Text("Add a server to see this run."))
            } else {
                ProgressView("Loading the run…")
            }
        }
        .task(id: sessionID) {
            guard let client = app.client else { return }
            if let model, model.sessionID == sessionID {
                await model.resume()
                return
            }
            let created = SessionDetailScreenModel(client: client, sessionID: sessionID, capabilities: app.capabilities)
            model = created
            app.feeds.register(created)
            await created.start()
        }
        .onChange(of: app.capabilities) { _, capabilities in
            model?.capabilities = capabilities
        }
        .onAppear { notifications.show("session", subjectID: sessionID) }
        .onDisappear {
            model?.suspend()
            notifications.show(.sessions)
        }
    }
}

/// The detail screen bound to its model.
struct SessionDetailScreen: View {
    @Bindable var model: SessionDetailScreenModel
    /// The lock screen's Live Activity, kept current from this screen's run.
    let liveActivity: LiveActivityModel
    @Environment(\.horizontalSizeClass) private var sizeClass
    @State private var showsEmit = false
    @State private var showsExport = false

    var body: some View {
        ScrollView {
            LazyVStack(spacing: 12) {
                if let error = model.loadError {
                    ContentUnavailableView("Could not load this run", systemImage: "exclamationmark.triangle", description: Text(error))
                }
                TimelineView(.periodic(from: .now, by: 1)) { context in
                    VStack(spacing: 12) {
                        if let header = model.header(now: context.date) {
                            StatusHeaderCard(header: header, onExport: export)
                        }
                        if let question = model.question(now: context.date) {
                            PendingQuestionView(
                                card: question, answer: $model.answerDraft, runningAction: model.runningAction,
                                onSend: { Task { await model.sendAnswer() } })
                        }
                    }
                }
                if model.modeControl.isShown {
                    ModeControlCard(
                        section: model.modeControl, runningAction: model.runningAction,
                        onPause: { Task { await model.pauseRun() } },
                        onResume: { Task { await model.resumeRun() } },
                        onStop: { model.requestStop() })
                }
                ActionsCard(
                    section: model.actions, steer: $model.steerDraft, runningAction: model.runningAction,
                    onSteer: { Task { await model.sendSteer() } }, onEmit: { showsEmit = true }, onExport: export)
                EventStreamCard(section: model.eventStream())
                if sizeClass == .regular {
                    HStack(alignment: .top, spacing: 12) {
                        VStack(spacing: 12) { leftColumn }
                        VStack(spacing: 12) { rightColumn }
                    }
                } else {
                    leftColumn
                    rightColumn
                }
            }
            .padding()
        }
        .background(Color(theme: .background))
        .refreshable { await model.refresh() }
        .navigationTitle(model.title)
        .navigationBarTitleDisplayMode(.inline)
        .toolbar {
            if let detail = model.monitor.detail, liveActivity.isFollowing(detail.session.id) || liveActivity.canStart(detail.session) {
                ToolbarItem(placement: .primaryAction) {
                    Button {
                        Task { await liveActivity.toggle(detail) }
                    } label: {
                        Label(
                            liveActivity.buttonTitle(for: detail.session.id), systemImage: liveActivity.buttonImage(for: detail.session.id))
                    }
                }
            }
        }
        .safeAreaInset(edge: .bottom) {
            if let note = liveActivity.serverNote, let detail = model.monitor.detail, liveActivity.isFollowing(detail.session.id) {
                Text(note).font(.footnote).foregroundStyle(.secondary).padding(8).frame(maxWidth: .infinity).background(.bar)
            }
        }
        .onChange(of: model.monitor.detail) { _, detail in
            guard let detail else { return }
            Task { await liveActivity.update(detail) }
        }
        .alert(
            "Live Activity",
            isPresented: Binding(get: { liveActivity.problem != nil }, set: { if !$0 { liveActivity.dismissProblem() } })
        ) {
            Button("OK", role: .cancel) { liveActivity.dismissProblem() }
        } message: {
            Text(liveActivity.problem ?? "")
        }
        .sheet(isPresented: $showsEmit) {
            EmitSheet(draft: $model.emitDraft, runningAction: model.runningAction, onSend: { await model.sendEmit() })
        }
        .sheet(isPresented: $showsExport, onDismiss: { model.clearExport() }) {
            ExportSheet(files: model.exportedFiles, error: model.exportError)
        }
        .confirmationDialog(
            model.stopConfirmation?.title ?? "",
            isPresented: Binding(get: { model.stopConfirmation != nil }, set: { if !$0 { model.cancelStop() } }),
            titleVisibility: .visible,
            presenting: model.stopConfirmation
        ) { confirmation in
            Button(confirmation.confirmLabel, role: .destructive) { Task { await model.confirmStop() } }
            Button(confirmation.cancelLabel, role: .cancel) { model.cancelStop() }
        } message: { confirmation in
            Text(confirmation.message)
        }
        .overlay(alignment: .bottom) {
            if let outcome = model.outcome {
                OutcomeBanner(outcome: outcome, onDismiss: { model.dismissOutcome() })
                    .task(id: outcome) {
                        try? await Task.sleep(for: .seconds(5))
                        model.dismissOutcome()
                    }
            }
        }
    }

    @ViewBuilder private var leftColumn: some View {
        if let live = model.rpcLive { RpcLiveCard(section: live) }
        TokenMetricsCard(section: model.tokens)
        TimelineView(.periodic(from: .now, by: 5)) { context in
            BackpressureCard(section: model.backpressure(now: context.date))
        }
        IterationStatsCard(section: model.iterationStats)
    }

    @ViewBuilder private var rightColumn: some View {
        HatFlowCard(section: model.hatFlow(), onToggle: { model.hatFlowExpanded.toggle() })
        RecentEventsCard(section: model.recentEvents())
        HatsReferenceCard(section: model.hatsReference)
    }

    private func export() {
        model.prepareExport()
        showsExport = true
    }
}

#Preview("Detail sections") {
    @Previewable @State var steer = SteerDraft()
    @Previewable @State var answer = AnswerDraft()
    NavigationStack {
        ScrollView {
            VStack(spacing: 12) {
                StatusHeaderCard(header: SessionsFixtures.header, onExport: {})
                if let question = SessionsFixtures.question {
                    PendingQuestionView(card: question, answer: $answer, runningAction: nil, onSend: {})
                }
                ModeControlCard(section: SessionsFixtures.modeControl(), runningAction: nil, onPause: {}, onResume: {}, onStop: {})
                ActionsCard(section: SessionsFixtures.actions(), steer: $steer, runningAction: nil, onSteer: {}, onEmit: {}, onExport: {})
                EventStreamCard(section: SessionsFixtures.eventStream)
                TokenMetricsCard(section: SessionsFixtures.tokens)
                BackpressureCard(section: SessionsFixtures.backpressure)
                IterationStatsCard(section: SessionsFixtures.iterationStats)
                HatFlowCard(section: SessionsFixtures.hatFlow, onToggle: {})
                RecentEventsCard(section: SessionsFixtures.recentEvents)
                HatsReferenceCard(section: SessionsFixtures.hatsReference)
            }
            .padding()
        }
        .background(Color(theme: .background))
        .navigationTitle(SessionsFixtures.header.title)
    }
}
