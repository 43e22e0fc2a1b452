import RalphMobileKit
import RalphMobilePresentation
import SwiftUI

/// The library: configs, prompts, presets, hats and skills of the workspace.
struct LibraryView: View {
    @Environment(AppModel.self) private var app
    @State private var model: LibraryModel?

    var body: some View {
        Group {
            if let model {
                LibraryScreen(model: model, capabilities: app.capabilities)
            } else if app.client == nil {
                ContentUnavailableView("No server", systemImage: "server.rack", description: Text("Add a server to see its library."))
            } else {
                ProgressView()
            }
        }
        .navigationTitle("Library")
        .task(id: app.client?.baseURL) {
            guard let client = app.client else {
                model = nil
                return
            }
            if let model, model.client.baseURL == client.baseURL { return }
            let created = LibraryModel(client: client)
            model = created
            await created.reload()
        }
    }
}

/// The library bound to its model.
struct LibraryScreen: View {
    @Bindable var model: LibraryModel
    let capabilities: Capabilities
    @State private var prefill: RunPrefill?

    var body: some View {
        List {
            Section {
                Picker(
                    "Section",
                    selection: Binding(get: { model.kind }, set: { kind in Task { await model.select(kind) } })
                ) {
                    ForEach(LibraryKind.allCases) { kind in
                        Text(kind.label).tag(kind)
                    }
                }
                .pickerStyle(.segmented)
                .accessibilityLabel("Library section")
                if !model.countText.isEmpty {
                    NoteText(model.countText)
                }
            }
            if let error = model.loadError {
                Section {
                    Text(error).foregroundStyle(Color(theme: .danger))
                    Button("Try again") { Task { await model.reload() } }
                }
            } else if model.isLoading && !model.hasLoaded {
                ProgressView()
            } else if let empty = model.emptyText {
                Section { NoteText(empty) }
            } else {
                ForEach(model.shownItems) { item in
                    Button {
                        Task { await model.open(item) }
                    } label: {
                        LibraryRowView(item: item)
                    }
                    .accessibilityHint("Opens its content")
                }
            }
        }
        .scrollContentBackground(.hidden)
        .background(Color(theme: .background))
        .searchable(text: $model.filter, prompt: model.kind.filterPrompt)
        .refreshable { await model.reload() }
        .sheet(
            isPresented: Binding(
                get: { model.openedItem != nil },
                set: { if !$0 { model.close() } })
        ) {
            LibraryContentSheet(
                model: model, capabilities: capabilities,
                onStartRun: { handOver in
                    model.close()
                    prefill = handOver
                })
        }
        .sheet(item: $prefill) { handOver in
            NavigationStack { NewRunView(prefill: handOver) }
        }
    }
}

/// One entry of the library.
struct LibraryRowView: View {
    let item: LibraryItem

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            HStack(spacing: 6) {
                if let hat = item.hat {
                    Circle().fill(Color(theme: .hat(hat))).frame(width: 10, height: 10).accessibilityHidden(true)
                }
                if let emoji = item.emoji { Text(emoji).accessibilityHidden(true) }
                Text(item.title).font(.headline).foregroundStyle(Color(theme: .text))
                ForEach(item.badges, id: \.self) { badge in
                    Text(badge)
                        .font(.caption2.weight(.semibold))
                        .padding(.horizontal, 6)
                        .background(Color(theme: .surfaceRaised), in: Capsule())
                }
            }
            if let subtitle = item.subtitle {
                Text(subtitle).font(.caption.monospaced()).foregroundStyle(Color(theme: .secondaryText))
            }
            if let detail = item.detail {
                Text(detail).font(.subheadline).foregroundStyle(Color(theme: .secondaryText)).lineLimit(3)
            }
            ForEach(item.chips) { chip in
                Text(chip.text)
                    .font(.caption.monospaced())
                    .foregroundStyle(Color(theme: .secondaryText))
            }
        }
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(item.accessibilityLabel)
    }
}

#Preview("Configs") {
    if let model = SessionsFixtures.libraryModel(kind: .configs) {
        NavigationStack { LibraryScreen(model: model, capabilities: Capabilities(role: .admin)).navigationTitle("Library") }
    }
}

#Preview("Hats") {
    if let model = SessionsFixtures.libraryModel(kind: .hats) {
        NavigationStack { LibraryScreen(model: model, capabilities: Capabilities(role: .viewer)).navigationTitle("Library") }
    }
}
