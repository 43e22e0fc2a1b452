import RalphMobilePresentation
import SwiftUI

/// ralph's RPC mode for a run the server started: cost so far, context window use, tool calls in progress, the agent wave and
/// the last acknowledgement (the model's ``RpcLiveSection``; absent for runs read from files alone).
struct RpcLiveCard: View {
    let section: RpcLiveSection

    var body: some View {
        DetailCard("Live") {
            StatGrid(stats: section.stats)
            if let use = section.contextUse {
                ProgressView(value: min(1, use))
                    .tint(Color(theme: use > 0.8 ? .danger : .accent))
                    .accessibilityLabel("Context window use")
            }
            ForEach(section.toolCalls, id: \.self) { call in
                Text("Running \(call)").font(.footnote.monospaced()).lineLimit(2)
            }
            if let wave = section.wave { Text(wave).font(.footnote) }
            if let ack = section.lastAck { NoteText(ack) }
        }
    }
}
