import RalphAPI
import RalphMobilePresentation
import SwiftUI

/// Settings: the server, who you are, the theme, the saved servers, log out, and the API keys for admins.
struct SettingsView: View {
    /// A model to show instead of one built from the app (previews).
    var preset: SettingsModel?

    @Environment(AppModel.self) private var app
    @State private var model: SettingsModel?

    var body: some View {
        Group {
            if let model {
                SettingsList(model: model)
            } else {
                ProgressView()
            }
        }
        .navigationTitle("Settings")
        .task(id: app.connectionID) {
            guard preset == nil else {
                model = preset
                return
            }
            let settings = SettingsModel(app: app)
            model = settings
            await settings.loadKeys()
        }
    }
}

private struct SettingsList: View {
    @Bindable var model: SettingsModel
    @State private var confirmingLogOut = false
    @State private var creatingKey = false
    @State private var pendingRevoke: KeyRow?

    var body: some View {
        List {
            Section("Server") {
                ForEach(model.serverRows) { row in
                    SettingsRowView(row: row)
                }
                if let note = model.compatibilityNote {
                    Label(note, systemImage: "exclamationmark.triangle")
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .warning))
                }
                if !model.serverCapabilities.isEmpty {
                    DisclosureGroup(model.capabilitiesTitle) {
                        ForEach(model.serverCapabilities, id: \.self) { capability in
                            Text(capability)
                                .font(.footnote.monospaced())
                                .foregroundStyle(Color(theme: .secondaryText))
                        }
                    }
                }
                NavigationLink {
                    ServersView()
                } label: {
                    Label("Servers", systemImage: "server.rack")
                }
                .accessibilityIdentifier(AccessibilityID.settingsServers)
            }
            .listRowBackground(Color(theme: .surfaceRaised))

            Section("You") {
                ForEach(model.youRows) { row in
                    SettingsRowView(row: row)
                }
                Text(model.roleDescription)
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .secondaryText))
                if model.canLogOut {
                    Button("Log out", role: .destructive) { confirmingLogOut = true }
                        .accessibilityHint("Deletes this server's API key from this device")
                        .accessibilityIdentifier(AccessibilityID.settingsLogOut)
                }
            }
            .listRowBackground(Color(theme: .surfaceRaised))

            Section("Notifications") {
                NavigationLink {
                    NotificationSettingsView()
                } label: {
                    Label("Notifications", systemImage: "bell.badge")
                }
            }
            .listRowBackground(Color(theme: .surfaceRaised))

            Section("Theme") {
                Picker("Theme", selection: $model.theme) {
                    ForEach(AppTheme.allCases) { theme in
                        VStack(alignment: .leading) {
                            Text(theme.title)
                            Text(theme.hint)
                                .font(.caption)
                                .foregroundStyle(Color(theme: .secondaryText))
                        }
                        .tag(theme)
                    }
                }
                .pickerStyle(.inline)
                .labelsHidden()
            }
            .listRowBackground(Color(theme: .surfaceRaised))

            if model.showsKeys {
                KeysSection(model: model, creating: $creatingKey, pendingRevoke: $pendingRevoke)
            }

            if let error = model.lastError {
                Section {
                    Label(error, systemImage: "exclamationmark.triangle.fill")
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .danger))
                }
                .listRowBackground(Color(theme: .surfaceRaised))
            }
        }
        .scrollContentBackground(.hidden)
        .background(Color(theme: .background))
        .refreshable {
            await model.app.refresh()
            await model.loadKeys()
        }
        .confirmationDialog("Log out?", isPresented: $confirmingLogOut, titleVisibility: .visible) {
            Button("Log out", role: .destructive) {
                Task { await model.logOut() }
            }
        } message: {
            Text(model.logOutConfirmation)
        }
        .confirmationDialog(
            "Revoke this key?", isPresented: isConfirmingRevoke, titleVisibility: .visible, presenting: pendingRevoke
        ) { row in
            Button("Revoke \(row.name)", role: .destructive) {
                Task { await model.revoke(row.id) }
            }
        } message: { row in
            Text(model.revokeConfirmation(for: row))
        }
        .sheet(isPresented: $creatingKey, onDismiss: { model.dismissCreatedKey() }) {
            KeySheet(model: model)
        }
    }

    private var isConfirmingRevoke: Binding<Bool> {
        Binding(get: { pendingRevoke != nil }, set: { if !$0 { pendingRevoke = nil } })
    }
}

/// A label and its value, read together by VoiceOver.
struct SettingsRowView: View {
    let row: SettingsRow

    var body: some View {
        LabeledContent {
            Text(row.value)
                .font(row.monospaced ? .body.monospaced() : .body)
                .foregroundStyle(Color(theme: .text))
                .multilineTextAlignment(.trailing)
                .textSelection(.enabled)
        } label: {
            Text(row.label)
                .foregroundStyle(Color(theme: .secondaryText))
        }
        .accessibilityElement(children: .combine)
    }
}

#Preview("Admin") {
    NavigationStack { SettingsView(preset: .preview(role: .admin)) }
        .environment(AppModel.preview(role: .admin))
        .preferredColorScheme(.dark)
}

#Preview("Viewer") {
    NavigationStack { SettingsView(preset: .preview(role: .viewer)) }
        .environment(AppModel.preview(role: .viewer))
        .preferredColorScheme(.dark)
}
