import RalphMobilePresentation
import SwiftUI

/// The run or conversation a tapped notification opens, over the section it belongs to.
struct NotificationRouteView: View {
    let route: NotificationRoute
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        NavigationStack {
            Group {
                switch route {
                case .session(let id): SessionDetailView(sessionID: id)
                case .conversation(let id): ChatView(conversationID: id)
                case .section(let section): SectionRoot(section: section)
                }
            }
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Close") { dismiss() }
                }
            }
        }
    }
}
