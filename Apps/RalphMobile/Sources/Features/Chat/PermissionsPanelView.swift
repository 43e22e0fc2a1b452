import RalphMobilePresentation
import SwiftUI

/// The Permissions panel: the mode the agent reports, its version, and the rules "allow for this session" granted,
/// each with who granted it and how often it was used, and Revoke for operators.
struct PermissionsPanelView: View {
    let panel: ChatPermissionsPanel
    var onRevoke: @MainActor (String) -> Void = { _ in }

    var body: some View {
        TimelineView(.periodic(from: .now, by: 30)) { context in
            List {
                Section {
                    LabeledContent("Permission mode", value: panel.modeText)
                    LabeledContent("Claude Code", value: panel.versionText)
                }
                Section("Allowed for this session") {
                    ForEach(panel.rules) { rule in
                        HStack {
                            VStack(alignment: .leading, spacing: 2) {
                                Text(rule.display).font(.subheadline.monospaced())
                                Text(rule.detail(now: context.date))
                                    .font(.caption)
                                    .foregroundStyle(Color(theme: .secondaryText))
                            }
                            Spacer()
                            if panel.canRevoke {
                                Button(rule.revokeLabel, role: .destructive) { onRevoke(rule.id) }
                                    .buttonStyle(.bordered)
                                    .accessibilityLabel(rule.revokeAccessibilityLabel)
                            }
                        }
                    }
                    if let footnote = panel.footnote {
                        Text(footnote)
                            .font(.footnote)
                            .foregroundStyle(Color(theme: .secondaryText))
                    }
                }
            }
        }
        .navigationTitle("Permissions")
    }
}

#Preview {
    NavigationStack {
        PermissionsPanelView(panel: ChatFixtures.permissionsPanel)
    }
}
