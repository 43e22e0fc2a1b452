import RalphMobilePresentation
import SwiftUI
import UIKit

/// An opened library entry: its text, Copy, Share and — for admins, on configs, presets and prompts — Start a run.
struct LibraryContentSheet: View {
    @Bindable var model: LibraryModel
    let capabilities: Capabilities
    let onStartRun: (RunPrefill) -> Void
    @Environment(\.dismiss) private var dismiss
    @State private var shareURL: URL?

    var body: some View {
        NavigationStack {
            ScrollView {
                VStack(alignment: .leading, spacing: 12) {
                    if model.isLoadingContent {
                        ProgressView("Loading…")
                    } else if let error = model.contentError {
                        Text(error).foregroundStyle(Color(theme: .danger))
                        if let item = model.openedItem {
                            Button("Try again") { Task { await model.open(item) } }
                        }
                    } else if let content = model.content {
                        LibraryContentBody(
                            content: content, startPrefill: model.startRunPrefill(capabilities: capabilities), shareURL: shareURL,
                            onCopy: { UIPasteboard.general.string = content.copyText },
                            onOpenSource: { path in Task { await model.openSource(path) } },
                            onStartRun: onStartRun)
                    }
                }
                .padding()
            }
            .background(Color(theme: .background))
            .navigationTitle(model.content?.title ?? model.openedItem?.title ?? "")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .confirmationAction) {
                    Button("Done") { dismiss() }
                }
            }
            .task(id: model.content) {
                shareURL = try? model.content?.shareFile.writeTemporary(folder: "ralph-library")
            }
        }
    }
}

/// What an opened entry shows, from values (previews feed it fixtures).
struct LibraryContentBody: View {
    let content: LibraryContent
    let startPrefill: RunPrefill?
    let shareURL: URL?
    let onCopy: () -> Void
    let onOpenSource: (String) -> Void
    let onStartRun: (RunPrefill) -> Void

    var body: some View {
        VStack(alignment: .leading, spacing: 12) {
            if let subtitle = content.subtitle {
                Text("\(subtitle) · \(content.contentType)").font(.caption.monospaced()).foregroundStyle(Color(theme: .secondaryText))
            }
            ForEach(content.facts) { fact in
                LabeledContent(fact.label, value: fact.value).font(.subheadline)
            }
            if !content.sources.isEmpty {
                Text("Defined in").font(.subheadline.weight(.semibold)).accessibilityAddTraits(.isHeader)
                ForEach(content.sources, id: \.self) { path in
                    Button(path) { onOpenSource(path) }
                        .font(.footnote.monospaced())
                        .accessibilityLabel("Show the config \(path)")
                }
            }
            HStack {
                Button(action: onCopy) {
                    Label("Copy", systemImage: "doc.on.doc")
                }
                .buttonStyle(.bordered)
                .accessibilityLabel("Copy the text")
                if let shareURL {
                    ShareLink(item: shareURL) {
                        Label("Share", systemImage: "square.and.arrow.up")
                    }
                    .buttonStyle(.bordered)
                }
                if let startPrefill {
                    Button {
                        onStartRun(startPrefill)
                    } label: {
                        Label("Start a run with this", systemImage: "play.fill")
                    }
                    .buttonStyle(.borderedProminent)
                    .tint(Color(theme: .accent))
                }
            }
            Text(content.displayText)
                .font(.caption.monospaced())
                .textSelection(.enabled)
                .frame(maxWidth: .infinity, alignment: .leading)
                .padding()
                .background(Color(theme: .surface), in: RoundedRectangle(cornerRadius: 8))
                .accessibilityLabel("Content: \(content.displayText)")
        }
    }
}

#Preview("Config") {
    ScrollView {
        LibraryContentBody(
            content: SessionsFixtures.configContent, startPrefill: SessionsFixtures.configContent.prefill, shareURL: nil, onCopy: {},
            onOpenSource: { _ in }, onStartRun: { _ in }
        )
        .padding()
    }
    .background(Color(theme: .background))
}

#Preview("Hat") {
    ScrollView {
        LibraryContentBody(
            content: SessionsFixtures.hatContent, startPrefill: nil, shareURL: nil, onCopy: {}, onOpenSource: { _ in }, onStartRun: { _ in }
        )
        .padding()
    }
    .background(Color(theme: .background))
}
