import RalphMobilePresentation
import SwiftUI

/// Adding a server: its address (checked as typed), an optional name and API key, then Connect — the server's health
/// and the key are checked before anything is saved.
struct OnboardingView: View {
    var address = ""
    var apiKey = ""

    @Environment(AppModel.self) private var app
    @State private var model: OnboardingModel?

    var body: some View {
        Group {
            if let model {
                OnboardingForm(model: model)
            } else {
                ProgressView()
            }
        }
        .task {
            if model == nil { model = OnboardingModel(app: app, address: address, apiKey: apiKey) }
        }
    }
}

private struct OnboardingForm: View {
    @Bindable var model: OnboardingModel
    @Environment(AppModel.self) private var app
    @Environment(\.dismiss) private var dismiss

    var body: some View {
        Form {
            Section {
                Text("Connect to the ralph-mobile-server running on your computer.")
                    .font(.subheadline)
                    .foregroundStyle(Color(theme: .secondaryText))
                if let notice = app.notice {
                    Label(notice, systemImage: "info.circle")
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .warning))
                }
            }
            .listRowBackground(Color(theme: .surfaceRaised))

            Section("Server") {
                TextField("http://192.168.1.20:8080", text: $model.address)
                    .keyboardType(.URL)
                    .textContentType(.URL)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                    .accessibilityLabel("Server address")
                    .accessibilityIdentifier(AccessibilityID.onboardingAddress)
                if let problem = model.addressProblem {
                    Text(problem.description)
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .danger))
                    if let suggestion = problem.suggestion {
                        Button("Use \(suggestion)") { model.applySuggestion() }
                            .font(.footnote.weight(.semibold))
                    }
                }
                TextField("Name (optional)", text: $model.name)
                    .textInputAutocapitalization(.words)
                    .accessibilityLabel("Server name, optional")
            }
            .listRowBackground(Color(theme: .surfaceRaised))

            Section {
                SecureField("API key", text: $model.apiKey)
                    .textContentType(.password)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                    .accessibilityLabel(model.keyRequired ? "API key, required" : "API key")
                    .accessibilityIdentifier(AccessibilityID.onboardingKey)
            } header: {
                Text("API key")
            } footer: {
                Text(model.keyHint)
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .secondaryText))
            }
            .listRowBackground(Color(theme: .surfaceRaised))

            Section {
                Button {
                    Task { await model.submit() }
                } label: {
                    if let progress = model.progressText {
                        HStack(spacing: 8) {
                            ProgressView()
                            Text(progress)
                        }
                    } else {
                        Text("Connect").bold()
                    }
                }
                .disabled(!model.canSubmit)
                .accessibilityHint("Checks the server and the key, then saves the server")
                .accessibilityIdentifier(AccessibilityID.onboardingConnect)

                if let failure = model.failure {
                    Label(failure.description, systemImage: "exclamationmark.triangle.fill")
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .danger))
                        .accessibilityIdentifier(AccessibilityID.onboardingFailure)
                }
            }
            .listRowBackground(Color(theme: .surfaceRaised))

            if !app.profiles.profiles.isEmpty {
                Section {
                    NavigationLink("Saved servers") { ServersView() }
                }
                .listRowBackground(Color(theme: .surfaceRaised))
            }
        }
        .scrollContentBackground(.hidden)
        .background(Color(theme: .background))
        .navigationTitle("Add a server")
        .onChange(of: model.isSaved) { _, saved in
            if saved { dismiss() }
        }
    }
}

#Preview("Empty") {
    NavigationStack { OnboardingView() }
        .environment(AppModel.preview(servers: false))
        .preferredColorScheme(.dark)
}

#Preview("A mistake in the address") {
    NavigationStack { OnboardingView(address: AppFixtures.addressExamples[1]) }
        .environment(AppModel.preview(servers: false))
        .preferredColorScheme(.dark)
}
