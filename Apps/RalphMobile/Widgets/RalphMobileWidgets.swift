import SwiftUI
import WidgetKit

/// The widget extension: the Live Activity of a run or a conversation (lock screen and Dynamic Island).
@main
struct RalphMobileWidgets: WidgetBundle {
    var body: some Widget {
        RalphLiveActivity()
    }
}
