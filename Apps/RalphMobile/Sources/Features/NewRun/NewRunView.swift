import RalphAPI
import RalphMobileKit
import RalphMobilePresentation
import SwiftUI

/// The create-run wizard (admin only).
struct NewRunView: View {
    var prefill: RunPrefill?
    @Environment(AppModel.self) private var app
    @State private var model: NewRunModel?
    @State private var openedRun: String?

    init(prefill: RunPrefill? = nil) {
        self.prefill = prefill
    }

    var body: some View {
        Group {
            if let model {
                if model.isAllowed {
                    NewRunForm(model: model)
                } else {
                    ContentUnavailableView("Starting runs needs admin", systemImage: "lock", description: Text(model.deniedText))
                }
            } else if app.client == nil {
                ContentUnavailableView("No server", systemImage: "server.rack", description: Text("Add a server first."))
            } else {
                ProgressView()
            }
        }
        .navigationTitle("New run")
        .navigationDestination(item: $openedRun) { id in
            SessionDetailView(sessionID: id)
        }
        .task {
            guard model == nil, let client = app.client else { return }
            let created = NewRunModel(client: client, capabilities: app.capabilities, prefill: prefill)
            model = created
            if created.isAllowed { await created.loadLists() }
        }
        .onChange(of: model?.started?.id) { _, id in
            openedRun = id
        }
    }
}

/// The wizard's steps bound to its model.
struct NewRunForm: View {
    @Bindable var model: NewRunModel

    var body: some View {
        Form {
            Section {
                Text(model.step.progressText).font(.footnote).foregroundStyle(Color(theme: .secondaryText))
                Text(model.step.hint).font(.footnote)
            } header: {
                Text(model.step.title)
            }
            if let banner = model.banner {
                Section {
                    Text(banner).foregroundStyle(Color(theme: .danger)).accessibilityAddTraits(.isStaticText)
                }
            }
            switch model.step {
            case .place: placeStep
            case .config: configStep
            case .prompt: promptStep
            case .options: optionsStep
            case .review: reviewStep
            }
            Section {
                HStack {
                    if model.canGoBack {
                        Button("Back") { model.back() }
                            .buttonStyle(.bordered)
                    }
                    Spacer()
                    Button(model.primaryButtonTitle) {
                        Task { await model.advance() }
                    }
                    .buttonStyle(.borderedProminent)
                    .tint(Color(theme: .accent))
                    .disabled(!model.canAdvance)
                }
                if let started = model.startedText {
                    Text(started).foregroundStyle(Color(theme: .success))
                }
            }
        }
        .scrollContentBackground(.hidden)
        .background(Color(theme: .background))
    }

    @ViewBuilder private var placeStep: some View {
        Section("Working directory (optional)") {
            TextField(". (the workspace root)", text: $model.workingDir)
                .textInputAutocapitalization(.never)
                .autocorrectionDisabled()
                .font(.body.monospaced())
                .onChange(of: model.workingDir) { model.edited(.workingDir) }
            FieldProblem(text: model.problem(.workingDir))
        }
    }

    @ViewBuilder private var configStep: some View {
        Section("Config or preset") {
            if model.isLoadingLists { ProgressView() }
            Picker("Config", selection: $model.configPath) {
                Text("Choose a config…").tag(String?.none)
                ForEach(model.configs) { choice in
                    Text(choice.title).tag(String?.some(choice.path))
                }
            }
            .pickerStyle(.navigationLink)
            .onChange(of: model.configPath) {
                model.edited(.config)
                Task { await model.loadPreviews() }
            }
            FieldProblem(text: model.problem(.config))
        }
        FilePreviewSection(preview: model.configPreview, error: model.previewError[.config])
    }

    @ViewBuilder private var promptStep: some View {
        Section("Prompt") {
            Picker("Prompt source", selection: $model.promptSource) {
                ForEach(PromptSource.allCases) { source in
                    Text(source.label).tag(source)
                }
            }
            .pickerStyle(.segmented)
            switch model.promptSource {
            case .file:
                Picker("Prompt file", selection: $model.promptPath) {
                    Text("Choose a prompt file…").tag(String?.none)
                    ForEach(model.prompts, id: \.path) { prompt in
                        Text(prompt.path).tag(String?.some(prompt.path))
                    }
                }
                .pickerStyle(.navigationLink)
                .onChange(of: model.promptPath) {
                    model.edited(.promptFile)
                    Task { await model.loadPreviews() }
                }
                FieldProblem(text: model.problem(.promptFile))
            case .text:
                TextField("What should ralph do?", text: $model.promptText, axis: .vertical)
                    .lineLimit(4...12)
                    .onChange(of: model.promptText) { model.edited(.promptText) }
                FieldProblem(text: model.problem(.promptText))
            }
        }
        if model.promptSource == .file {
            FilePreviewSection(preview: model.promptPreview, error: model.previewError[.promptFile])
        }
    }

    @ViewBuilder private var optionsStep: some View {
        Section("Max iterations (optional)") {
            TextField("from the config", text: $model.maxIterations)
                .keyboardType(.numberPad)
                .onChange(of: model.maxIterations) { model.edited(.maxIterations) }
            FieldProblem(text: model.problem(.maxIterations))
        }
        Section("Backend (optional)") {
            Picker("Backend", selection: $model.backend) {
                Text("As the config says").tag(String?.none)
                ForEach(NewRunModel.backends, id: \.self) { backend in
                    Text(backend).tag(String?.some(backend))
                }
            }
            .onChange(of: model.backend) { model.edited(.backend) }
            FieldProblem(text: model.problem(.backend))
        }
    }

    @ViewBuilder private var reviewStep: some View {
        Section("The run") {
            ForEach(model.reviewRows) { row in
                LabeledContent(row.label, value: row.value)
            }
        }
        Section("Command") {
            Text(model.commandPreview).font(.footnote.monospaced()).textSelection(.enabled)
        }
    }
}

/// A field's problem, when it has one.
struct FieldProblem: View {
    let text: String?

    var body: some View {
        if let text {
            Text(text).font(.footnote).foregroundStyle(Color(theme: .danger))
        }
    }
}

/// A file shown before it is used.
struct FilePreviewSection: View {
    let preview: FilePreview?
    let error: String?

    var body: some View {
        if let preview {
            Section("Preview of \(preview.path)") {
                ScrollView {
                    Text(preview.text)
                        .font(.caption.monospaced())
                        .textSelection(.enabled)
                        .frame(maxWidth: .infinity, alignment: .leading)
                }
                .frame(maxHeight: 240)
                .accessibilityLabel("Content of \(preview.path)")
            }
        } else if let error {
            Section { NoteText(error) }
        }
    }
}

#Preview("Config step") {
    if let model = SessionsFixtures.newRunModel(step: .config) {
        NavigationStack { NewRunForm(model: model).navigationTitle("New run") }
    }
}

#Preview("Review step") {
    if let model = SessionsFixtures.newRunModel(step: .review) {
        NavigationStack { NewRunForm(model: model).navigationTitle("New run") }
    }
}
