import ActivityKit
import RalphAPI
import RalphMobileKit
import SwiftUI
import WidgetKit

/// A run (iteration, hat, last event, backpressure) or a conversation's turn waiting for approval, on the lock screen
/// and in the Dynamic Island. Layout only: the words come from `LiveActivityState` (RalphMobileKit).
struct RalphLiveActivity: Widget {
    var body: some WidgetConfiguration {
        ActivityConfiguration(for: LiveActivitySubject.self) { context in
            LockScreenView(subject: context.attributes, state: context.state, isStale: context.isStale)
                .activityBackgroundTint(Color(red: 0.04, green: 0.05, blue: 0.15))
                .activitySystemActionForegroundColor(.white)
                .widgetURL(Self.url(context.attributes))
        } dynamicIsland: { context in
            DynamicIsland {
                DynamicIslandExpandedRegion(.leading) {
                    Text(context.state.compactLeading)
                        .font(.title3.monospacedDigit().weight(.semibold))
                        .foregroundStyle(Self.tint(context.state))
                }
                DynamicIslandExpandedRegion(.trailing) {
                    Text(context.state.phaseTitle)
                        .font(.caption.weight(.semibold))
                        .foregroundStyle(Self.tint(context.state))
                }
                DynamicIslandExpandedRegion(.center) {
                    Text(context.attributes.title)
                        .font(.footnote.weight(.semibold))
                        .lineLimit(1)
                }
                DynamicIslandExpandedRegion(.bottom) {
                    DetailLines(state: context.state)
                }
            } compactLeading: {
                Text(context.state.compactLeading)
                    .font(.caption.monospacedDigit().weight(.semibold))
                    .foregroundStyle(Self.tint(context.state))
            } compactTrailing: {
                Text(context.state.compactTrailing)
                    .font(.caption2)
                    .lineLimit(1)
                    .frame(maxWidth: 64)
            } minimal: {
                Text(context.state.minimalText)
                    .font(.caption.weight(.bold))
                    .foregroundStyle(Self.tint(context.state))
            }
            .widgetURL(Self.url(context.attributes))
        }
    }

    /// Opens the app on the run or conversation (`ralphmobile://open?path=/#/sessions/<id>`).
    static func url(_ subject: LiveActivitySubject) -> URL? {
        var components = URLComponents()
        components.scheme = "ralphmobile"
        components.host = "open"
        components.queryItems = [URLQueryItem(name: "path", value: subject.path)]
        return components.url
    }

    static func tint(_ state: LiveActivityState) -> Color {
        if state.phase.needsPerson { return .orange }
        switch state.phase {
        case .failed: return .pink
        case .completed: return .green
        case .paused, .stopped, .idle: return .gray
        default: return .cyan
        }
    }
}

/// The lock screen: title, phase and progress, then what waits or the latest event, and the checks.
private struct LockScreenView: View {
    let subject: LiveActivitySubject
    let state: LiveActivityState
    let isStale: Bool

    var body: some View {
        VStack(alignment: .leading, spacing: 6) {
            HStack {
                Text(subject.title)
                    .font(.headline)
                    .lineLimit(1)
                Spacer()
                Text(state.phaseTitle)
                    .font(.caption.weight(.semibold))
                    .foregroundStyle(RalphLiveActivity.tint(state))
            }
            if let fraction = state.progressFraction {
                ProgressView(value: fraction) {
                    Text("Iteration \(state.progressText)" + (state.hat.map { " · \($0)" } ?? ""))
                        .font(.caption)
                }
                .tint(RalphLiveActivity.tint(state))
            } else if !state.progressText.isEmpty {
                Text("Iteration \(state.progressText)" + (state.hat.map { " · \($0)" } ?? ""))
                    .font(.caption)
            }
            DetailLines(state: state)
            if isStale {
                Text("Not updated lately: open Ralph Mobile to refresh.")
                    .font(.caption2)
                    .foregroundStyle(.secondary)
            }
        }
        .padding()
        .foregroundStyle(.white)
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(subject.title + ", " + state.accessibilityText)
    }
}

/// What waits (or the latest event) and the backpressure checks.
private struct DetailLines: View {
    let state: LiveActivityState

    var body: some View {
        VStack(alignment: .leading, spacing: 2) {
            if let line = state.detailLine {
                Text(line)
                    .font(.caption.monospaced())
                    .lineLimit(2)
            }
            if let backpressure = state.backpressure {
                Text(backpressure.text)
                    .font(.caption2.monospaced())
                    .foregroundStyle(backpressure.failed > 0 ? Color.pink : Color.green)
            }
        }
    }
}
