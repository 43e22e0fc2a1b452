import RalphMobilePresentation
import SwiftUI

/// The emit sheet: a topic and a payload, checked before sending.
struct EmitSheet: View {
    @Binding var draft: EmitDraft
    let runningAction: ControlAction?
    let onSend: () async -> Bool
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        NavigationStack {
            Form {
                Section {
                    TextField("build.task", text: $draft.topic)
                        .textInputAutocapitalization(.never)
                        .autocorrectionDisabled()
                        .font(.body.monospaced())
                        .accessibilityLabel("Topic")
                    if draft.showsProblems, let problem = draft.topicProblem {
                        Text(problem).font(.footnote).foregroundStyle(Color(theme: .danger))
                    }
                } header: {
                    Text("Topic")
                } footer: {
                    Text("Letters, digits, . _ - (at most 128).")
                }
                Section {
                    TextEditor(text: $draft.payload)
                        .font(.body.monospaced())
                        .frame(minHeight: 120)
                        .textInputAutocapitalization(.never)
                        .autocorrectionDisabled()
                        .accessibilityLabel("Payload")
                    if draft.showsProblems, let problem = draft.payloadProblem {
                        Text(problem).font(.footnote).foregroundStyle(Color(theme: .danger))
                    }
                } header: {
                    Text("Payload (optional)")
                } footer: {
                    Text(draft.payloadFooter)
                }
            }
            .navigationTitle("Emit an event")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Cancel") { dismiss() }
                }
                ToolbarItem(placement: .confirmationAction) {
                    Button(ControlAction.emit.title(running: runningAction)) {
                        Task {
                            if await onSend() { dismiss() }
                        }
                    }
                    .disabled(runningAction != nil)
                }
            }
        }
    }
}

/// The exported files, each shared on its own or both together.
struct ExportSheet: View {
    let files: [URL]
    let error: String?
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        NavigationStack {
            List {
                if let error {
                    Text(error).foregroundStyle(Color(theme: .danger))
                }
                ForEach(files, id: \.self) { url in
                    ShareLink(item: url) {
                        Label(url.lastPathComponent, systemImage: "doc")
                    }
                    .accessibilityLabel("Share \(url.lastPathComponent)")
                }
                if files.count > 1 {
                    ShareLink(items: files) {
                        Label("Share both", systemImage: "square.and.arrow.up.on.square")
                    }
                }
            }
            .navigationTitle("Export")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .confirmationAction) {
                    Button("Done") { dismiss() }
                }
            }
        }
    }
}

/// A short notice of what a control did.
struct OutcomeBanner: View {
    let outcome: ControlOutcome
    let onDismiss: () -> Void

    var body: some View {
        Button(action: onDismiss) {
            Text(outcome.text)
                .font(.subheadline)
                .foregroundStyle(Color(theme: .text))
                .padding()
                .frame(maxWidth: .infinity, alignment: .leading)
                .background(
                    Color(theme: outcome.isError ? .danger : .success).opacity(0.2),
                    in: RoundedRectangle(cornerRadius: 10))
        }
        .buttonStyle(.plain)
        .accessibilityLabel(outcome.text)
        .accessibilityHint("Dismisses the notice")
        .padding()
    }
}

#Preview("Emit, invalid") {
    @Previewable @State var draft = SessionsFixtures.invalidEmitDraft
    EmitSheet(draft: $draft, runningAction: nil, onSend: { false })
}

#Preview("Outcome") {
    OutcomeBanner(outcome: SessionsFixtures.emitOutcome, onDismiss: {})
        .background(Color(theme: .background))
}
