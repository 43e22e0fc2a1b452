import RalphAPI
import RalphMobilePresentation
import SwiftUI

/// Notifications: what the server can deliver, what this phone is told (kinds, full or content-free text, quiet
/// hours), the key's other devices with a test and removal. Bound to `NotificationSettingsModel`.
struct NotificationSettingsView: View {
    @Environment(NotificationsHub.self) private var notifications

    var body: some View {
        NotificationSettingsList(model: notifications.settings)
            .navigationTitle("Notifications")
            .task { await notifications.settings.load() }
    }
}

private struct NotificationSettingsList: View {
    @Bindable var model: NotificationSettingsModel
    @State private var pendingRemoval: NotificationDevice?

    var body: some View {
        List {
            if case .failed(let message) = model.loadState {
                Label(message, systemImage: "exclamationmark.triangle")
                    .foregroundStyle(Color(theme: .warning))
            }
            if let error = model.lastError {
                Label(error, systemImage: "exclamationmark.circle")
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .warning))
            }
            Section("This phone") {
                if let note = model.thisDeviceNote {
                    Text(note)
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .secondaryText))
                }
                if let device = model.thisDevice {
                    DeviceRow(model: model, device: device, onRemove: { pendingRemoval = device })
                }
            }
            .listRowBackground(Color(theme: .surfaceRaised))

            if model.thisDevice != nil {
                Section("Tell me about") {
                    ForEach(model.kindRows) { row in
                        Toggle(isOn: Binding(get: { row.isOn }, set: { on in Task { await model.setKind(row.kind, on: on) } })) {
                            VStack(alignment: .leading) {
                                Text(row.title)
                                Text(row.subtitle)
                                    .font(.caption)
                                    .foregroundStyle(Color(theme: .secondaryText))
                            }
                        }
                    }
                }
                .listRowBackground(Color(theme: .surfaceRaised))

                Section("On the lock screen") {
                    Picker("Text", selection: Binding(get: { model.privacy }, set: { privacy in Task { await model.setPrivacy(privacy) } }))
                    {
                        ForEach(NotificationPrivacy.allCases, id: \.self) { privacy in
                            VStack(alignment: .leading) {
                                Text(NotificationWords.title(privacy))
                                Text(NotificationWords.subtitle(privacy))
                                    .font(.caption)
                                    .foregroundStyle(Color(theme: .secondaryText))
                            }
                            .tag(privacy)
                        }
                    }
                    .pickerStyle(.inline)
                    .labelsHidden()
                }
                .listRowBackground(Color(theme: .surfaceRaised))

                Section("Quiet hours") {
                    Text(model.quietHoursSummary)
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .secondaryText))
                    DatePicker(
                        "From",
                        selection: Binding(get: { model.quietDate(model.quietStart) }, set: { model.quietStart = model.quietText($0) }),
                        displayedComponents: .hourAndMinute)
                    DatePicker(
                        "Until",
                        selection: Binding(get: { model.quietDate(model.quietEnd) }, set: { model.quietEnd = model.quietText($0) }),
                        displayedComponents: .hourAndMinute)
                    if let problem = model.quietHoursProblem {
                        Text(problem)
                            .font(.caption)
                            .foregroundStyle(Color(theme: .warning))
                    }
                    Button(model.quietHoursOn ? "Save quiet hours" : "Turn on quiet hours") {
                        Task { await model.saveQuietHours() }
                    }
                    .disabled(model.quietHoursProblem != nil || model.isWorking)
                    if model.quietHoursOn {
                        Button("Turn off quiet hours", role: .destructive) {
                            Task { await model.turnOffQuietHours() }
                        }
                    }
                }
                .listRowBackground(Color(theme: .surfaceRaised))
            }

            if !model.otherDevices.isEmpty {
                Section("Other devices of this key") {
                    ForEach(model.otherDevices, id: \.id) { device in
                        DeviceRow(model: model, device: device, onRemove: { pendingRemoval = device })
                    }
                }
                .listRowBackground(Color(theme: .surfaceRaised))
            }

            Section("Server") {
                ForEach(model.channelRows) { row in
                    SettingsRowView(row: row)
                }
            }
            .listRowBackground(Color(theme: .surfaceRaised))
        }
        .scrollContentBackground(.hidden)
        .background(Color(theme: .background))
        .refreshable { await model.load() }
        .confirmationDialog(
            "Remove \(pendingRemoval?.name ?? "this device")?",
            isPresented: Binding(get: { pendingRemoval != nil }, set: { if !$0 { pendingRemoval = nil } }),
            titleVisibility: .visible,
            presenting: pendingRemoval
        ) { device in
            Button("Remove", role: .destructive) { Task { await model.remove(device.id) } }
            Button("Cancel", role: .cancel) { pendingRemoval = nil }
        } message: { _ in
            Text("It is told nothing more until it registers again.")
        }
    }
}

/// One device: its name and where it is told, a test with its outcome, removal.
private struct DeviceRow: View {
    let model: NotificationSettingsModel
    let device: NotificationDevice
    let onRemove: () -> Void

    var body: some View {
        VStack(alignment: .leading, spacing: 6) {
            Text(device.name)
                .font(.headline)
            Text(model.subtitle(device))
                .font(.caption.monospaced())
                .foregroundStyle(Color(theme: .secondaryText))
            if let outcome = model.testOutcomes[device.id] {
                Text(outcome)
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .text))
            }
            HStack {
                Button("Send a test") { Task { await model.sendTest(device.id) } }
                    .buttonStyle(.bordered)
                    .disabled(model.isWorking)
                Spacer()
                Button("Remove", role: .destructive, action: onRemove)
                    .buttonStyle(.bordered)
            }
        }
        .padding(.vertical, 4)
    }
}
