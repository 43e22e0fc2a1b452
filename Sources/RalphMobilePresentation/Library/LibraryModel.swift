import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The library screen: the workspace's configs, prompts, presets, hats and skills, a filter, and an opened entry to
/// read, copy, share or start a run from.
///
/// ```swift
/// let library = LibraryModel(client: client)
/// await library.select(.prompts)
/// library.filter = "docs"
/// await library.open(library.shownItems[0])
/// library.content?.copyText
/// ```
@MainActor
@Observable
public final class LibraryModel {
    public let client: RalphClient
    /// The workspace the lists come from (nil: the server's first root).
    public let workspace: String?

    public internal(set) var kind: LibraryKind = .configs
    public var filter = ""
    /// Every entry of the section, in the server's order.
    public internal(set) var items: [LibraryItem] = []
    public internal(set) var isLoading = false
    public internal(set) var loadError: String?
    /// Whether the section was read (successfully or not).
    public internal(set) var hasLoaded = false

    /// The opened entry.
    public internal(set) var content: LibraryContent?
    public internal(set) var contentError: String?
    public internal(set) var isLoadingContent = false
    /// The entry last opened (to try again).
    public internal(set) var openedItem: LibraryItem?

    @ObservationIgnored private var loadToken = 0

    public init(client: RalphClient, workspace: String? = nil) {
        self.client = client
        self.workspace = workspace
    }

    // MARK: - Lists

    /// Shows another section (the filter is cleared) and reads it.
    public func select(_ kind: LibraryKind) async {
        if kind != self.kind { filter = "" }
        self.kind = kind
        await reload()
    }

    /// Reads the current section again.
    public func reload() async {
        loadToken += 1
        let token = loadToken
        let kind = kind
        isLoading = true
        do {
            let loaded = try await fetch(kind)
            guard token == loadToken else { return }
            items = loaded
            loadError = nil
        } catch {
            guard token == loadToken else { return }
            items = []
            loadError = "Could not load \(kind.label.lowercased()): \(error.description)"
        }
        hasLoaded = true
        isLoading = false
    }

    private func fetch(_ kind: LibraryKind) async throws(RalphClientError) -> [LibraryItem] {
        switch kind {
        case .configs: try await client.configs(workspace: workspace).map(LibraryItem.config)
        case .prompts: try await client.prompts(workspace: workspace).map(LibraryItem.prompt)
        case .presets: try await client.presets(workspace: workspace).map(LibraryItem.preset)
        case .hats: try await client.hats(workspace: workspace).map(LibraryItem.hat)
        case .skills: try await client.skills(workspace: workspace).map(LibraryItem.skill)
        }
    }

    /// The entries the filter lets through (every word of the filter must appear, in any field, any case).
    public var shownItems: [LibraryItem] {
        let words = filter.lowercased().split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else { return items }
        return items.filter { item in words.allSatisfy { item.searchText.contains($0) } }
    }

    /// `12 prompts`, or `3 of 12 prompts shown` while filtering.
    public var countText: String {
        let noun = kind.label.lowercased()
        guard hasLoaded, loadError == nil else { return "" }
        let shown = shownItems.count
        return filter.trimmingCharacters(in: .whitespaces).isEmpty ? "\(items.count) \(noun)" : "\(shown) of \(items.count) \(noun) shown"
    }

    /// What the section shows instead of a list: where such entries come from, or that the filter matches nothing.
    public var emptyText: String? {
        guard hasLoaded, loadError == nil else { return nil }
        if items.isEmpty { return kind.emptyText }
        if shownItems.isEmpty { return "No \(kind.label.lowercased()) match “\(filter.trimmingCharacters(in: .whitespaces))”." }
        return nil
    }

    // MARK: - An entry

    /// Opens an entry: reads its content.
    public func open(_ item: LibraryItem) async {
        openedItem = item
        content = nil
        contentError = nil
        isLoadingContent = true
        defer { isLoadingContent = false }
        do {
            switch item.reference {
            case .config(let path), .preset(let path):
                content = .file(try await client.config(path, workspace: workspace), kind: item.kind)
            case .prompt(let path):
                content = .file(try await client.prompt(path, workspace: workspace), kind: .prompts)
            case .hat(let hat):
                content = .hat(hat)
            case .skill(let name):
                let skill = try await client.skill(name, workspace: workspace)
                let loaded = try await client.loadSkill(name, workspace: workspace)
                content = .skill(skill, content: loaded.content)
            }
        } catch {
            let gone: Bool =
                switch error {
                case .notFound, .configNotFound, .promptNotFound: true
                default: false
                }
            contentError = error.description + (gone ? " — it may have been renamed or deleted since the list was loaded." : "")
        }
    }

    /// Opens one of a hat's config files (``LibraryContent/sources``).
    public func openSource(_ path: String) async {
        await open(.config(ConfigItem(path: path, name: path, description: "")))
    }

    /// Closes the opened entry.
    public func close() {
        content = nil
        contentError = nil
        openedItem = nil
    }

    /// The hand-over to the wizard for the opened entry, when the person may start runs.
    public func startRunPrefill(capabilities: Capabilities) -> RunPrefill? {
        capabilities.canStartRuns ? content?.prefill : nil
    }
}
