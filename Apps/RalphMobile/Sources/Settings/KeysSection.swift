import RalphAPI
import RalphMobilePresentation
import SwiftUI
import UIKit

/// API keys, for admins: the list (yours marked), New key, Revoke (asked first, by the list's dialog).
struct KeysSection: View {
    @Bindable var model: SettingsModel
    /// Opens the new-key sheet.
    @Binding var creating: Bool
    /// The key to ask about revoking.
    @Binding var pendingRevoke: KeyRow?

    var body: some View {
        Section {
            switch model.keysState {
            case .idle, .loading:
                ProgressView()
                    .accessibilityLabel("Loading the keys")
            case .failed(let message):
                Label(message, systemImage: "exclamationmark.triangle.fill")
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .danger))
                Button("Try again") { Task { await model.loadKeys() } }
            case .loaded:
                if let empty = model.emptyKeysMessage {
                    Text(empty)
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .secondaryText))
                }
                ForEach(model.keyRows) { row in
                    KeyRowView(row: row)
                        .swipeActions {
                            Button(role: .destructive) {
                                pendingRevoke = row
                            } label: {
                                Label("Revoke", systemImage: "trash")
                            }
                        }
                        .accessibilityAction(named: "Revoke") { pendingRevoke = row }
                }
            }
            Button {
                model.startNewKey()
                creating = true
            } label: {
                Label("New key", systemImage: "key.fill")
            }
        } header: {
            Text("API keys")
        } footer: {
            Text(
                "Keys let phones, this app and scripts in. The server keeps only a digest of each: a key's secret is shown once, when it is created."
            )
            .font(.footnote)
            .foregroundStyle(Color(theme: .secondaryText))
        }
        .listRowBackground(Color(theme: .surfaceRaised))
    }
}

/// The new-key sheet: the form, then — once created — the secret, in the same sheet.
struct KeySheet: View {
    @Bindable var model: SettingsModel

    var body: some View {
        NavigationStack {
            if model.createdKey != nil {
                CreatedKeyView(model: model)
            } else {
                NewKeyForm(model: model)
            }
        }
        .interactiveDismissDisabled(model.createdKey != nil)
    }
}

private struct KeyRowView: View {
    let row: KeyRow

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            HStack(spacing: 8) {
                Text(row.name)
                    .font(.body.weight(.semibold))
                    .foregroundStyle(Color(theme: .text))
                RoleBadge(role: row.role)
                if row.isMine {
                    Text("you")
                        .font(.caption.weight(.bold))
                        .foregroundStyle(Color(theme: .success))
                }
            }
            Text(row.id)
                .font(.footnote.monospaced())
                .foregroundStyle(Color(theme: .secondaryText))
            Text(row.createdLine)
                .font(.caption)
                .foregroundStyle(Color(theme: .secondaryText))
        }
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(row.accessibilityLabel)
    }
}

/// A role in the web dashboard's badge colours: admin pink, operator cyan, viewer grey.
struct RoleBadge: View {
    let role: Role

    var body: some View {
        Text(role.rawValue.uppercased())
            .font(.caption2.weight(.bold))
            .foregroundStyle(Color(theme: color))
            .padding(.horizontal, 6)
            .padding(.vertical, 2)
            .overlay(Capsule().strokeBorder(Color(theme: color)))
    }

    private var color: ThemeColor { .role(role) }
}

private struct NewKeyForm: View {
    @Bindable var model: SettingsModel
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        Form {
            if let warning = model.createKeyWarning {
                Section {
                    Label(warning, systemImage: "exclamationmark.triangle.fill")
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .warning))
                }
                .listRowBackground(Color(theme: .surfaceRaised))
            }
            Section {
                TextField("e.g. phone, ci-bot", text: $model.newKeyName)
                    .textInputAutocapitalization(.never)
                    .accessibilityLabel("Key name, optional")
                if let problem = model.newKeyNameProblem {
                    Text(problem)
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .danger))
                }
            } header: {
                Text("Name")
            } footer: {
                Text("Where the key will be used; optional, up to 200 characters.")
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .secondaryText))
            }
            .listRowBackground(Color(theme: .surfaceRaised))
            Section("Role") {
                Picker("Role", selection: $model.newKeyRole) {
                    ForEach(SettingsModel.keyRoles, id: \.role) { choice in
                        Text(choice.label).tag(choice.role)
                    }
                }
                .pickerStyle(.inline)
                .labelsHidden()
            }
            .listRowBackground(Color(theme: .surfaceRaised))
            if let error = model.lastError {
                Section {
                    Text(error)
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .danger))
                }
                .listRowBackground(Color(theme: .surfaceRaised))
            }
        }
        .scrollContentBackground(.hidden)
        .background(Color(theme: .background))
        .navigationTitle("New API key")
        .navigationBarTitleDisplayMode(.inline)
        .toolbar {
            ToolbarItem(placement: .cancellationAction) {
                Button("Cancel") { dismiss() }
            }
            ToolbarItem(placement: .confirmationAction) {
                Button("Create") {
                    Task { await model.createKey() }
                }
                .disabled(!model.canCreateKey)
            }
        }
    }
}

/// The key just created: its secret, shown once, to copy or share; on a server that trusted this device, the offer to
/// use it here.
private struct CreatedKeyView: View {
    @Bindable var model: SettingsModel
    @Environment(\.dismiss) private var dismiss
    @State private var copied = false

    var body: some View {
        Form {
            if let created = model.createdKey {
                Section {
                    Label(
                        "Copy this key now. It is not shown again: the server keeps only a digest of it.",
                        systemImage: "exclamationmark.triangle.fill"
                    )
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .warning))
                    Text(created.secret)
                        .font(.body.monospaced())
                        .foregroundStyle(Color(theme: .text))
                        .textSelection(.enabled)
                        .accessibilityLabel("The key's secret")
                    Button(copied ? "Copied" : "Copy") {
                        UIPasteboard.general.string = created.secret
                        copied = true
                    }
                    ShareLink(item: created.secret) {
                        Label("Share", systemImage: "square.and.arrow.up")
                    }
                }
                .listRowBackground(Color(theme: .surfaceRaised))
                if model.createdOnTrustedServer {
                    Section {
                        Button("Use this key on this device") {
                            Task {
                                if await model.useCreatedKeyHere() { dismiss() }
                            }
                        }
                        .disabled(model.isWorking)
                    } footer: {
                        Text("The server now asks every caller for a key, this device too.")
                            .font(.footnote)
                            .foregroundStyle(Color(theme: .secondaryText))
                    }
                    .listRowBackground(Color(theme: .surfaceRaised))
                }
            }
        }
        .scrollContentBackground(.hidden)
        .background(Color(theme: .background))
        .navigationTitle("Key created")
        .navigationBarTitleDisplayMode(.inline)
        .toolbar {
            ToolbarItem(placement: .confirmationAction) {
                Button("Done") {
                    model.dismissCreatedKey()
                    dismiss()
                }
            }
        }
    }
}

#Preview("Keys") {
    NavigationStack {
        List { KeysSection(model: .preview(role: .admin), creating: .constant(false), pendingRevoke: .constant(nil)) }
    }
    .environment(AppModel.preview(role: .admin))
    .preferredColorScheme(.dark)
}

#Preview("New key") {
    KeySheet(model: .preview(role: .admin))
        .environment(AppModel.preview(role: .admin))
        .preferredColorScheme(.dark)
}
