import Foundation
import RalphAPI

@testable import RalphMobileServer

/// What the `ChatStore` suites share: a database file in a temporary directory of their own, and rows to write.
protocol ChatStoreSuite {
    var tmp: TemporaryDirectory { get }
}

extension ChatStoreSuite {
    var path: String { tmp.path + "/chat.sqlite" }

    static var t0: String { "2026-03-01T10:00:00.000Z" }

    /// A timestamp `seconds` after 2026-03-01T10:00:00Z.
    static func time(_ seconds: Int) -> String {
        Timestamp.format(Timestamp.parse(t0)!.addingTimeInterval(Double(seconds)))
    }

    static func conversation(_ id: String, activity: String = t0, pinned: Bool = false, archived: Bool = false) -> Conversation {
        Conversation(
            id: id, title: "Title \(id)", cwd: "/work/\(id)", backend: "claude", pinned: pinned, archived: archived, createdAt: t0,
            updatedAt: t0, lastActivityAt: activity
        )
    }

    static func message(_ id: String, in conversation: String, text: String? = nil, at time: String = t0) -> ChatMessage {
        ChatMessage(id: id, conversationId: conversation, turnId: nil, role: .user, text: text ?? "text of \(id)", createdAt: time)
    }

    static func event(_ conversation: String, _ n: Int) -> ChatWrite {
        .event(conversationID: conversation, name: "chunk", data: Array(#"{"turn_id":"t","text":"\#(n)"}"#.utf8))
    }
}
