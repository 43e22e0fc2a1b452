import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The Notifications settings screen: what the server can deliver (each channel, `APNs not configured: …` when it
/// has no credentials), this phone's registration (the APNs device token the app got, registered with the server),
/// which kinds it is told about, full or content-free text, quiet hours, the key's other devices, a test with its
/// outcome, and removal.
@MainActor
@Observable
public final class NotificationSettingsModel {
    public enum LoadState: Equatable, Sendable {
        case idle, loading, loaded
        case failed(String)
    }

    /// What iOS said when the app asked to notify.
    public enum SystemPermission: Equatable, Sendable {
        case notAsked, granted, denied
    }

    @ObservationIgnored public let app: AppModel
    @ObservationIgnored let store: NotificationDeviceStore

    public private(set) var settings: NotificationSettings?
    /// This key's devices (every device for an admin), this phone's first.
    public private(set) var devices: [NotificationDevice] = []
    public private(set) var loadState: LoadState = .idle
    /// This phone's device on the active server, once registered.
    public private(set) var thisDeviceID: String?
    public var systemPermission: SystemPermission = .notAsked
    /// Why this phone has no APNs token (set by the app when registering with Apple failed).
    public private(set) var registrationProblem: String?
    public private(set) var isWorking = false
    /// Why the last action failed.
    public private(set) var lastError: String?
    /// The outcome of the last test, by device id.
    public private(set) var testOutcomes: [String: String] = [:]

    /// The quiet-hours form (`HH:MM`, in ``timeZone``).
    public var quietStart = "22:00"
    public var quietEnd = "07:00"
    @ObservationIgnored public var timeZone = TimeZone.current

    public init(app: AppModel) {
        self.app = app
        store = NotificationDeviceStore(file: (app.preferencesFile as NSString).deletingLastPathComponent + "/notification-devices.json")
    }

    // MARK: - Loading

    public func load() async {
        guard let client = app.client else {
            loadState = .failed("Not connected to a server.")
            return
        }
        loadState = .loading
        do {
            settings = try await client.notificationSettings()
            devices = try await client.notificationDevices()
            if let profile = app.activeProfile, let known = store.deviceID(server: profile.id), devices.contains(where: { $0.id == known }) {
                thisDeviceID = known
            } else {
                thisDeviceID = nil
            }
            sortDevices()
            syncQuietForm()
            loadState = .loaded
        } catch {
            loadState = .failed("Could not load the notification settings: \(error.description)")
        }
    }

    /// Each channel with its state.
    public var channelRows: [SettingsRow] {
        (settings?.channels ?? []).map { SettingsRow(NotificationWords.title($0.channel), NotificationWords.status($0)) }
    }

    /// Whether the server can push to this app.
    public var apnsAvailable: Bool { settings?.channels.first { $0.channel == .apns }?.available == true }

    /// What the screen says above this phone's settings when it cannot be told.
    public var thisDeviceNote: String? {
        if systemPermission == .denied { return "Notifications are off for Ralph Mobile in iOS Settings: turn them on there to be told." }
        if let registrationProblem { return registrationProblem }
        if let apns = settings?.channels.first(where: { $0.channel == .apns }), !apns.available { return NotificationWords.status(apns) + "." }
        if thisDevice == nil, loadState == .loaded { return "This phone is not registered with the server yet." }
        return nil
    }

    public var thisDevice: NotificationDevice? { devices.first { $0.id == thisDeviceID } }
    /// The key's devices other than this phone.
    public var otherDevices: [NotificationDevice] { devices.filter { $0.id != thisDeviceID } }

    // MARK: - This phone

    /// The hex form APNs and the server use for a device token.
    public static func hex(_ token: Data) -> String { token.map { String(format: "%02x", $0) }.joined() }

    /// Registers the token the app got from `registerForRemoteNotifications` (again at each launch: the token may
    /// change). Registering the same token again keeps the phone's choices (kinds, privacy, quiet hours).
    @discardableResult
    public func registerThisDevice(token: Data, environment: APNsEnvironment, name: String) async -> Bool {
        registrationProblem = nil
        guard let client = app.client, let profile = app.activeProfile else {
            lastError = "Not connected to a server."
            return false
        }
        guard !token.isEmpty else {
            registrationProblem = "Apple gave this phone an empty push token."
            return false
        }
        isWorking = true
        defer { isWorking = false }
        do {
            var previous = thisDevice
            if previous == nil, let known = store.deviceID(server: profile.id) {
                previous = try await client.notificationDevices().first { $0.id == known }
            }
            let request = RegisterDeviceRequest(
                name: previous?.name ?? name, channel: .apns, kinds: previous?.kinds, privacy: previous?.privacy, quietHours: previous?.quietHours,
                apns: APNsDevice(deviceToken: Self.hex(token), environment: environment))
            let device = try await client.registerDevice(request)
            try store.save(deviceID: device.id, server: profile.id)
            thisDeviceID = device.id
            replace(device)
            lastError = nil
            return true
        } catch let error as RalphClientError {
            lastError = "Could not register this phone for notifications: \(error.description)"
        } catch {
            lastError = "Could not remember this phone's registration: \(error)"
        }
        return false
    }

    /// Apple refused to give the app a token (no network, a simulator, a missing entitlement).
    public func registrationFailed(_ description: String) {
        registrationProblem = "This phone could not register with Apple Push: \(description)"
    }

    // MARK: - What this phone is told

    public struct KindRow: Identifiable, Equatable, Sendable {
        public var kind: NotificationKind
        public var title: String
        public var subtitle: String
        public var isOn: Bool
        public var id: String { kind.rawValue }
    }

    public var kindRows: [KindRow] {
        let on = Set(thisDevice?.kinds ?? [])
        return NotificationKind.allCases.map { KindRow(kind: $0, title: NotificationWords.title($0), subtitle: NotificationWords.subtitle($0), isOn: on.contains($0)) }
    }

    public func setKind(_ kind: NotificationKind, on: Bool) async {
        guard let device = thisDevice else { return }
        var kinds = Set(device.kinds)
        if on { kinds.insert(kind) } else { kinds.remove(kind) }
        guard !kinds.isEmpty else {
            lastError = "Keep at least one kind on, or remove this phone to be told nothing."
            return
        }
        await update(device.id, UpdateDeviceRequest(kinds: NotificationKind.allCases.filter(kinds.contains)))
    }

    public var privacy: NotificationPrivacy { thisDevice?.privacy ?? .full }

    public func setPrivacy(_ privacy: NotificationPrivacy) async {
        guard let device = thisDevice, device.privacy != privacy else { return }
        await update(device.id, UpdateDeviceRequest(privacy: privacy))
    }

    // MARK: - Quiet hours

    public var quietHoursOn: Bool { thisDevice?.quietHours != nil }

    /// `Quiet 22:00–07:00 (Europe/Paris): told without sound.`
    public var quietHoursSummary: String {
        guard let quiet = thisDevice?.quietHours else { return "Off: every notification makes a sound." }
        return "\(quiet.start)–\(quiet.end) (\(quiet.timeZone ?? "UTC")): told without sound or vibration, nothing dropped."
    }

    /// What is wrong with the form, if anything.
    public var quietHoursProblem: String? {
        for (name, value) in [("Start", quietStart), ("End", quietEnd)] where Self.minutes(value) == nil {
            return "\(name) must be a time such as 22:00 (24-hour)."
        }
        if quietStart == quietEnd { return "Start and end are the same time." }
        return nil
    }

    public func saveQuietHours() async {
        guard let device = thisDevice else { return }
        if let problem = quietHoursProblem {
            lastError = problem
            return
        }
        await update(device.id, UpdateDeviceRequest(quietHours: QuietHours(start: quietStart, end: quietEnd, timeZone: timeZone.identifier)))
    }

    public func turnOffQuietHours() async {
        guard let device = thisDevice, device.quietHours != nil else { return }
        await update(device.id, UpdateDeviceRequest(clearQuietHours: true))
    }

    /// The form's time as a date today (for a time picker), and back.
    public func quietDate(_ text: String, on day: Date = Date()) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let minutes = Self.minutes(text) ?? 0
        return calendar.date(bySettingHour: minutes / 60, minute: minutes % 60, second: 0, of: day) ?? day
    }

    public func quietText(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour),
            (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    // MARK: - Test and remove

    /// Sends a test to a device and keeps its outcome in words (``testOutcomes``).
    public func sendTest(_ deviceID: String) async {
        guard let client = app.client else { return }
        isWorking = true
        defer { isWorking = false }
        do {
            let delivery = try await client.testDevice(deviceID)
            testOutcomes[deviceID] = NotificationWords.outcome(delivery)
            lastError = nil
            if delivery.outcome == "expired" { await load() }
        } catch {
            testOutcomes[deviceID] = "Could not send a test: \(error.description)"
        }
    }

    /// Removes a device (this phone: it is told nothing more until registered again).
    public func remove(_ deviceID: String) async {
        guard let client = app.client else { return }
        isWorking = true
        defer { isWorking = false }
        do {
            try await client.removeDevice(deviceID)
            devices.removeAll { $0.id == deviceID }
            testOutcomes[deviceID] = nil
            if deviceID == thisDeviceID {
                thisDeviceID = nil
                if let profile = app.activeProfile { try? store.save(deviceID: nil, server: profile.id) }
            }
            lastError = nil
        } catch {
            lastError = "Could not remove the device: \(error.description)"
        }
    }

    /// `Webhook · https://… · last delivered 3 min ago`-style line for a device.
    public func subtitle(_ device: NotificationDevice) -> String {
        var parts = [NotificationWords.title(device.channel), device.target]
        if let error = device.lastError { parts.append("last error: \(error)") }
        return parts.joined(separator: " · ")
    }

    // MARK: - Helpers

    private func update(_ id: String, _ request: UpdateDeviceRequest) async {
        guard let client = app.client else { return }
        isWorking = true
        defer { isWorking = false }
        do {
            replace(try await client.updateDevice(id, request))
            syncQuietForm()
            lastError = nil
        } catch {
            lastError = "Could not change the notification settings: \(error.description)"
        }
    }

    private func replace(_ device: NotificationDevice) {
        if let index = devices.firstIndex(where: { $0.id == device.id }) { devices[index] = device } else { devices.append(device) }
        sortDevices()
    }

    private func sortDevices() {
        let mine = thisDeviceID
        devices.sort { ($0.id == mine ? 0 : 1, $0.createdAt, $0.id) < ($1.id == mine ? 0 : 1, $1.createdAt, $1.id) }
    }

    private func syncQuietForm() {
        if let quiet = thisDevice?.quietHours {
            quietStart = quiet.start
            quietEnd = quiet.end
        }
    }
}

/// Which notification device this phone is on each saved server (a small JSON file beside the preferences), so that
/// registering the token again at launch keeps the phone's choices.
struct NotificationDeviceStore: Sendable {
    let file: String

    func deviceID(server: String) -> String? { load()[server] }

    func save(deviceID: String?, server: String) throws {
        var all = load()
        all[server] = deviceID
        let directory = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try WireJSON.encodePretty(all).write(to: URL(fileURLWithPath: file), options: .atomic)
    }

    private func load() -> [String: String] {
        guard let data = FileManager.default.contents(atPath: file) else { return [:] }
        return (try? WireJSON.decode([String: String].self, from: data)) ?? [:]
    }
}
