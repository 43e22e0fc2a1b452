import RalphMobileKit
import RalphMobilePresentation
import SwiftUI

/// The saved servers: tap one to use it, swipe to remove it (its key is deleted from this device), add another.
struct ServersView: View {
    @Environment(AppModel.self) private var app
    @State private var pendingRemoval: ServerRow?
    @State private var errorText: String?

    var body: some View {
        List {
            Section {
                ForEach(ServerRow.rows(of: app.profiles)) { row in
                    Button {
                        Task { await use(row) }
                    } label: {
                        ServerRowView(row: row)
                    }
                    .accessibilityLabel(row.accessibilityLabel)
                    .accessibilityHint(row.isActive ? "In use" : "Switches to this server")
                    .swipeActions {
                        Button(role: .destructive) {
                            pendingRemoval = row
                        } label: {
                            Label("Remove", systemImage: "trash")
                        }
                    }
                }
            } footer: {
                Text("Swipe a server to remove it.")
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .secondaryText))
            }
            .listRowBackground(Color(theme: .surfaceRaised))

            if let errorText {
                Section {
                    Label(errorText, systemImage: "exclamationmark.triangle.fill")
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .danger))
                }
                .listRowBackground(Color(theme: .surfaceRaised))
            }

            Section {
                NavigationLink {
                    OnboardingView()
                } label: {
                    Label("Add a server", systemImage: "plus.circle")
                }
            }
            .listRowBackground(Color(theme: .surfaceRaised))
        }
        .scrollContentBackground(.hidden)
        .background(Color(theme: .background))
        .navigationTitle("Servers")
        .confirmationDialog(
            "Remove server?", isPresented: isConfirmingRemoval, titleVisibility: .visible, presenting: pendingRemoval
        ) { row in
            Button("Remove \(row.name)", role: .destructive) {
                Task { await remove(row) }
            }
        } message: { row in
            Text(row.removeConfirmation)
        }
    }

    private var isConfirmingRemoval: Binding<Bool> {
        Binding(get: { pendingRemoval != nil }, set: { if !$0 { pendingRemoval = nil } })
    }

    private func use(_ row: ServerRow) async {
        do {
            try await app.switchServer(to: row.id)
            errorText = nil
        } catch {
            errorText = error.description
        }
    }

    private func remove(_ row: ServerRow) async {
        do {
            try await app.removeServer(row.id)
            errorText = nil
        } catch {
            errorText = error.description
        }
    }
}

private struct ServerRowView: View {
    let row: ServerRow

    var body: some View {
        HStack(spacing: 12) {
            Image(systemName: row.isActive ? "checkmark.circle.fill" : "circle")
                .foregroundStyle(Color(theme: row.isActive ? .success : .secondaryText))
                .accessibilityHidden(true)
            VStack(alignment: .leading, spacing: 2) {
                Text(row.name)
                    .font(.body.weight(.semibold))
                    .foregroundStyle(Color(theme: .text))
                Text(row.url)
                    .font(.footnote.monospaced())
                    .foregroundStyle(Color(theme: .secondaryText))
                Text(row.detail)
                    .font(.caption)
                    .foregroundStyle(Color(theme: .secondaryText))
            }
        }
        .padding(.vertical, 4)
    }
}

#Preview {
    NavigationStack { ServersView() }
        .environment(AppModel.preview())
        .preferredColorScheme(.dark)
}
