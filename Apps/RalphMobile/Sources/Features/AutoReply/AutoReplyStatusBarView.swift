import RalphMobilePresentation
import SwiftUI

/// The auto-reply line of a chat: mode and state, progress towards the nearest limit, confidence, why it paused or
/// stopped, and its controls. The time ticks every second while the loop runs.
struct AutoReplyStatusBarView: View {
    let bar: AutoReplyStatusBar
    var onControl: @MainActor (AutoReplyControl) -> Void = { _ in }

    @State private var confirming: AutoReplyControl?

    var body: some View {
        TimelineView(.periodic(from: .now, by: 1)) { context in
            VStack(alignment: .leading, spacing: 6) {
                HStack(spacing: 8) {
                    Image(systemName: "arrow.triangle.2.circlepath")
                        .accessibilityHidden(true)
                    Text(bar.modeTitle).font(.subheadline.bold())
                    ChatBadge(text: bar.stateText, tone: bar.tone)
                    Spacer()
                    ForEach(bar.controls) { control in
                        Button(control.label) {
                            if control.confirmation != nil { confirming = control } else { onControl(control) }
                        }
                        .buttonStyle(.bordered)
                        .tint(control.isDestructive ? Color(theme: .danger) : Color(theme: .accent))
                        .accessibilityLabel(control.accessibilityLabel)
                    }
                }
                if let fraction = bar.fraction {
                    ProgressView(value: fraction)
                        .tint(Color(theme: .accent))
                        .accessibilityHidden(true)
                }
                HStack(spacing: 8) {
                    if let counts = bar.countsText { Text(counts) }
                    if let time = bar.timeText(now: context.date) { Text(time) }
                    if let confidence = bar.confidenceText { Text(confidence) }
                }
                .font(.caption)
                .foregroundStyle(Color(theme: .secondaryText))
                if let reason = bar.reasonText {
                    Text(reason).font(.footnote).foregroundStyle(bar.tone.color)
                }
                if let prompt = bar.pendingPrompt {
                    Text(prompt)
                        .font(.caption.monospaced())
                        .lineLimit(3)
                        .foregroundStyle(Color(theme: .secondaryText))
                }
            }
            .accessibilityElement(children: .contain)
            .accessibilityLabel(bar.accessibilityLabel(now: context.date))
        }
        .padding(10)
        .background(Color(theme: .surface), in: RoundedRectangle(cornerRadius: 10))
        .confirmationDialog(
            confirming?.confirmation?.title ?? "",
            isPresented: Binding(get: { confirming != nil }, set: { if !$0 { confirming = nil } }),
            titleVisibility: .visible,
            presenting: confirming
        ) { control in
            Button(control.confirmation?.confirm ?? control.label, role: .destructive) { onControl(control) }
        } message: { control in
            Text(control.confirmation?.message ?? "")
        }
    }
}

#Preview {
    VStack(spacing: 12) {
        AutoReplyStatusBarView(bar: ChatFixtures.statusBar)
        AutoReplyStatusBarView(bar: AutoReplyStatusBar(progress: ChatFixtures.progress(.paused), fraction: 0.3, canControl: true))
        AutoReplyStatusBarView(bar: AutoReplyStatusBar(progress: ChatFixtures.progress(.stopped), fraction: 1, canControl: false))
    }
    .padding()
    .background(Color(theme: .background))
}
