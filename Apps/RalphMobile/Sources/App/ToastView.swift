import SwiftUI

/// A short message over a screen (an action done, why it failed) that goes away by itself after four seconds;
/// `onShown` then clears it in the model. Nothing when `text` is nil.
struct ToastView: View {
    let text: String?
    let onShown: @MainActor () -> Void

    var body: some View {
        if let text {
            Text(text)
                .font(.footnote)
                .padding(10)
                .background(Color(theme: .surfaceRaised), in: Capsule())
                .task(id: text) {
                    // Cut short only when the toast leaves the screen, which clears it all the same.
                    try? await Task.sleep(for: .seconds(4))
                    onShown()
                }
        }
    }
}
