import RalphAPI
import RalphMobilePresentation
import SwiftUI

/// The message box: Send (queues behind a running turn), and while a turn runs Steer and Interrupt.
struct ChatComposerView: View {
    @Binding var text: String
    let options: ChatSendOptions
    let error: String?
    let note: String?
    let isSending: Bool
    var onSend: @MainActor (SendMode) -> Void = { _ in }
    var onInterrupt: @MainActor () -> Void = {}

    @FocusState private var focused: Bool

    var body: some View {
        if let reason = options.unavailableReason {
            Text(reason)
                .font(.footnote)
                .foregroundStyle(Color(theme: .secondaryText))
                .frame(maxWidth: .infinity, alignment: .leading)
                .padding()
        } else {
            VStack(alignment: .leading, spacing: 6) {
                if let note {
                    Text(note).font(.caption).foregroundStyle(Color(theme: .secondaryText))
                }
                if let hint = options.busyHint {
                    Text(hint).font(.caption).foregroundStyle(Color(theme: .secondaryText))
                }
                TextField("Message Claude…", text: $text, axis: .vertical)
                    .lineLimit(1...8)
                    .focused($focused)
                    .padding(10)
                    .background(Color(theme: .surfaceRaised), in: RoundedRectangle(cornerRadius: 10))
                    .accessibilityLabel("Message to the agent")
                if let error {
                    Text(error)
                        .font(.caption)
                        .foregroundStyle(Color(theme: .danger))
                }
                HStack {
                    if options.showsInterrupt {
                        Button(options.interruptLabel, role: .destructive, action: onInterrupt)
                            .buttonStyle(.bordered)
                    }
                    if options.showsSteer {
                        Button(options.steerLabel) { onSend(.steer) }
                            .buttonStyle(.bordered)
                            .accessibilityLabel(options.steerAccessibilityLabel)
                            .disabled(isSending)
                    }
                    Spacer()
                    Button {
                        onSend(.queue)
                    } label: {
                        Label(options.sendLabel, systemImage: "paperplane.fill")
                    }
                    .buttonStyle(.borderedProminent)
                    .tint(Color(theme: .accent))
                    .disabled(!options.canSend || isSending)
                }
            }
            .padding(10)
            .background(Color(theme: .surface))
        }
    }
}

#Preview("Idle") {
    ChatComposerView(
        text: .constant("Run the tests"), options: ChatSendOptions(canChat: true, isBusy: false, isDeleted: false), error: nil, note: nil,
        isSending: false
    )
}

#Preview("Busy, queued") {
    ChatComposerView(
        text: .constant(""), options: ChatSendOptions(canChat: true, isBusy: true, isDeleted: false), error: "Write a message first.",
        note: ChatQueuedMessage(turnID: "t", text: "x", mode: .queue, position: 1).note, isSending: false
    )
}

#Preview("Viewer") {
    ChatComposerView(
        text: .constant(""), options: ChatSendOptions(canChat: false, isBusy: false, isDeleted: false), error: nil, note: nil,
        isSending: false
    )
}
