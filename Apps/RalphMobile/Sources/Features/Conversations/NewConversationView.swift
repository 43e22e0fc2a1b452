import RalphAPI
import RalphMobilePresentation
import SwiftUI

/// The "New conversation" form: the agent (those the server cannot run shown disabled with why), where it works, an
/// optional title, model and permission mode (the agent's), and a first message.
struct NewConversationView: View {
    @Bindable var form: NewConversationModel
    /// The conversation made, and why its first message was not sent (if it was not).
    var onCreated: @MainActor (Conversation, String?) -> Void = { _, _ in }

    @Environment(\.dismiss) private var dismiss

    var body: some View {
        Form {
            if !form.backends.isEmpty {
                Section {
                    ForEach(form.backends) { choice in
                        BackendChoiceRow(choice: choice, isChosen: choice.id == form.backend) {
                            form.choose(backend: choice.id)
                        }
                    }
                    problem(.backend)
                } header: {
                    Text("Agent")
                }
            }
            Section {
                TextField("Working directory", text: $form.directory)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                    .font(.body.monospaced())
                    .onChange(of: form.directory) { form.edited(.directory) }
                if !form.recentDirectories.isEmpty {
                    Menu("Recent folders") {
                        ForEach(form.recentDirectories, id: \.self) { directory in
                            Button(directory) { form.directory = directory }
                        }
                    }
                    .accessibilityLabel("Choose a recent folder")
                }
                problem(.directory)
            } header: {
                Text("Working directory")
            } footer: {
                Text("Relative to the workspace root (\".\" is the root itself), or an absolute path inside it.")
            }
            Section("Title (optional)") {
                TextField("Named after the first message when empty", text: $form.title)
                    .onChange(of: form.title) { form.edited(.title) }
                problem(.title)
            }
            Section {
                TextField("The CLI default", text: $form.model)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                    .onChange(of: form.model) { form.edited(.model) }
                Menu("Suggestions") {
                    ForEach(NewConversationModel.suggestedModels, id: \.self) { name in
                        Button(name) { form.model = name }
                    }
                }
                .accessibilityLabel("Choose a model name")
                problem(.model)
            } header: {
                Text("Model (optional)")
            }
            Section {
                Picker("Permission mode", selection: $form.permissionMode) {
                    ForEach(form.permissionModes, id: \.self) { mode in
                        Text(form.label(forMode: mode)).tag(mode)
                    }
                }
                .onChange(of: form.permissionMode) { form.edited(.permissionMode) }
                problem(.permissionMode)
            } footer: {
                Text(form.permissionModesNote)
            }
            Section("First message (optional)") {
                TextField("What \(form.agentTitle) should do first", text: $form.firstMessage, axis: .vertical)
                    .lineLimit(3...8)
                problem(.firstMessage)
            }
            if let error = form.formError ?? form.firstMessageError {
                Section {
                    Text(error).foregroundStyle(Color(theme: .danger))
                }
            }
        }
        .navigationTitle("New conversation")
        .toolbar {
            ToolbarItem(placement: .cancellationAction) {
                Button("Cancel") { dismiss() }
            }
            ToolbarItem(placement: .confirmationAction) {
                Button(form.isCreating ? "Creating…" : "Create") {
                    Task {
                        if let created = await form.create() {
                            onCreated(created, form.firstMessageError)
                            dismiss()
                        }
                    }
                }
                .disabled(!form.canCreate)
            }
        }
        .task { await form.loadAgent() }
    }

    @ViewBuilder private func problem(_ field: NewConversationModel.Field) -> some View {
        if let message = form.problems[field] {
            Text(message)
                .font(.footnote)
                .foregroundStyle(Color(theme: .danger))
        }
    }
}

/// One agent of the picker: its name and version with a checkmark when chosen; one the server cannot run is disabled,
/// with why under it.
struct BackendChoiceRow: View {
    let choice: ChatBackendChoice
    let isChosen: Bool
    var onChoose: @MainActor () -> Void = {}

    var body: some View {
        Button(action: onChoose) {
            HStack {
                VStack(alignment: .leading, spacing: 2) {
                    Text(choice.label)
                        .foregroundStyle(Color(theme: choice.isUsable ? .text : .secondaryText))
                    if let why = choice.unavailableText {
                        Text(why)
                            .font(.footnote)
                            .foregroundStyle(Color(theme: .danger))
                    }
                }
                Spacer()
                if isChosen {
                    Image(systemName: "checkmark")
                        .foregroundStyle(Color(theme: .accent))
                        .accessibilityHidden(true)
                }
            }
        }
        .disabled(!choice.isUsable)
        .accessibilityLabel(choice.accessibilityLabel)
        .accessibilityAddTraits(isChosen ? .isSelected : [])
    }
}

#Preview("Agents") {
    Form {
        ForEach(DiffFixtures.agents.map(ChatBackendChoice.init)) { choice in
            BackendChoiceRow(choice: choice, isChosen: choice.id == "claude")
        }
    }
}
