import RalphAPI
import RalphMobilePresentation
import SwiftUI
import UniformTypeIdentifiers

/// A conversation's auto-reply loop: its live status and controls, and the settings form (presets, the five modes with
/// their limits, the next prompt, switches, import and export). Builds its ``AutoReplySettingsModel`` and registers it
/// as a live feed.
struct AutoReplySettingsView: View {
    let conversationID: String

    @Environment(AppModel.self) private var app
    @State private var model: AutoReplySettingsModel?

    var body: some View {
        Group {
            if let model {
                AutoReplySettingsForm(model: model)
            } else {
                ProgressView("Loading auto-reply…")
            }
        }
        .navigationTitle("Auto-reply")
        .task(id: conversationID) {
            guard let client = app.client else { return }
            let settings = AutoReplySettingsModel(client: client, conversationID: conversationID, capabilities: app.capabilities)
            model = settings
            app.feeds.register(settings)
            await settings.start()
        }
        .onDisappear { model?.suspend() }
    }
}

/// The form over its model.
struct AutoReplySettingsForm: View {
    @Bindable var model: AutoReplySettingsModel

    @State private var importing = false
    @State private var pasting = false
    @State private var pasted = ""

    var body: some View {
        Form {
            Section {
                AutoReplyStatusBarView(bar: model.status) { control in
                    Task { await model.perform(control) }
                }
                .disabled(model.isWorking)
            }
            Section {
                Menu("Fill from a preset") {
                    ForEach(model.presets) { preset in
                        Button(preset.label) { model.applyPreset(preset.name) }
                    }
                }
                .disabled(!model.canEdit)
                Picker("Mode", selection: $model.mode) {
                    ForEach(model.modes, id: \.self) { mode in
                        Text(model.title(of: mode)).tag(mode)
                    }
                }
                Text(model.modeExplanation)
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .secondaryText))
                problem(.mode)
            } header: {
                Text("Settings")
            }
            Section("Limits") {
                number(.maxIterations, text: $model.maxIterationsText)
                number(.maxMinutes, text: $model.maxMinutesText)
                number(.maxMessages, text: $model.maxMessagesText)
                number(.minConfidence, text: $model.minConfidenceText, decimal: true)
            }
            Section {
                TextField(model.nextPromptPlaceholder, text: $model.nextPromptText, axis: .vertical)
                    .lineLimit(3...8)
                problem(.nextPrompt)
                if let judge = model.judgeText {
                    LabeledContent("Judge", value: judge)
                }
                problem(.judge)
            } header: {
                Text(AutoReplySettingsModel.Field.nextPrompt.label)
            } footer: {
                Text(AutoReplySettingsModel.Field.nextPrompt.hint ?? "")
            }
            Section {
                ForEach(AutoReplySettingsModel.Switch.allCases) { option in
                    Toggle(option.label, isOn: Binding(get: { model.isOn(option) }, set: { model.set(option, $0) }))
                }
                Toggle(model.saveAsDefaultLabel, isOn: $model.saveAsDefault)
            }
            .disabled(!model.canEdit)
            Section {
                if let error = model.lastError {
                    Text(error).foregroundStyle(Color(theme: .danger))
                }
                HStack {
                    Button("Save settings") { Task { await model.save() } }
                        .buttonStyle(.borderedProminent)
                        .disabled(!model.canSave)
                    Button("Revert") { model.revert() }
                        .disabled(model.dirtyText == nil)
                    Spacer()
                    if let dirty = model.dirtyText {
                        Text(dirty).font(.caption).foregroundStyle(Color(theme: .warning))
                    }
                }
                .buttonStyle(.borderless)
            }
            Section("Import and export") {
                ShareLink(item: model.exportText, subject: Text(model.exportFileName), preview: SharePreview(model.exportFileName)) {
                    Label("Export as JSON", systemImage: "square.and.arrow.up")
                }
                Button {
                    importing = true
                } label: {
                    Label("Import a JSON file", systemImage: "square.and.arrow.down")
                }
                .disabled(!model.canEdit)
                Button {
                    pasted = ""
                    pasting = true
                } label: {
                    Label("Paste JSON", systemImage: "doc.on.clipboard")
                }
                .disabled(!model.canEdit)
            }
        }
        .fileImporter(isPresented: $importing, allowedContentTypes: [.json, .plainText]) { result in
            guard case .success(let url) = result else { return }
            let scoped = url.startAccessingSecurityScopedResource()
            defer { if scoped { url.stopAccessingSecurityScopedResource() } }
            if let text = try? String(contentsOf: url, encoding: .utf8) { model.importJSON(text) }
        }
        .sheet(isPresented: $pasting) {
            NavigationStack {
                TextEditor(text: $pasted)
                    .font(.footnote.monospaced())
                    .padding()
                    .navigationTitle("Paste settings JSON")
                    .toolbar {
                        ToolbarItem(placement: .cancellationAction) {
                            Button("Cancel") { pasting = false }
                        }
                        ToolbarItem(placement: .confirmationAction) {
                            Button("Import") { if model.importJSON(pasted) { pasting = false } }
                        }
                    }
            }
        }
        .overlay(alignment: .bottom) {
            ToastView(text: model.notice, onShown: model.clearNotice).padding(.bottom, 12)
        }
    }

    @ViewBuilder private func number(_ field: AutoReplySettingsModel.Field, text: Binding<String>, decimal: Bool = false) -> some View {
        VStack(alignment: .leading, spacing: 2) {
            LabeledContent {
                TextField(field.label, text: text)
                    .keyboardType(decimal ? .decimalPad : .numberPad)
                    .multilineTextAlignment(.trailing)
                    .disabled(!model.canEdit)
            } label: {
                Text(field.label)
                    .foregroundStyle(model.applies(field) ? Color(theme: .text) : Color(theme: .secondaryText))
            }
            if let hint = field.hint {
                Text(hint).font(.caption).foregroundStyle(Color(theme: .secondaryText))
            }
            problem(field)
        }
    }

    @ViewBuilder private func problem(_ field: AutoReplySettingsModel.Field) -> some View {
        if let message = model.problem(field) {
            Text(message)
                .font(.footnote)
                .foregroundStyle(Color(theme: .danger))
        }
    }
}

#Preview("Status bar in the form") {
    Form {
        AutoReplyStatusBarView(bar: ChatFixtures.statusBar)
    }
}
