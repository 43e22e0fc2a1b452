import RalphMobileKit
import RalphMobilePresentation
import SwiftUI

/// A screen over a live model built from the active server's client (the conversations list, the approvals inbox):
/// a spinner until the model exists, then its content. The model is built once, registered with the app's live
/// feeds (suspended in the background, resumed on return) and started. Layout only; the rules are in the model.
struct LiveFeedScreen<Model: StartableFeed, Content: View>: View {
    let title: String
    let loading: String
    let make: @MainActor (RalphClient, Capabilities) -> Model
    @ViewBuilder let content: (Model) -> Content

    @Environment(AppModel.self) private var app
    @State private var model: Model?

    var body: some View {
        Group {
            if let model {
                content(model)
            } else {
                ProgressView(loading)
            }
        }
        .navigationTitle(title)
        .task {
            guard model == nil, let client = app.client else { return }
            let made = make(client, app.capabilities)
            model = made
            app.feeds.register(made)
            await made.start()
        }
    }
}

/// A live model that starts itself: reads what it shows, then follows its stream until suspended.
@MainActor
protocol StartableFeed: LiveFeed {
    func start() async
}

extension ApprovalsInboxModel: StartableFeed {}
extension ConversationsListModel: StartableFeed {}
