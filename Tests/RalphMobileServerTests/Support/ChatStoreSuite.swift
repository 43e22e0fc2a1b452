import Foundation
import Logging
import RalphAPI
import SQLStore

@testable import RalphMobileServer

/// Which database a store test runs on: the SQLite file, or a PostgreSQL database of the shared test cluster.
enum StoreDatabase: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres
    var description: String { rawValue }
}

/// What the `ChatStore` suites share: a database of their own (a file in a temporary directory, or a PostgreSQL
/// database named after it), and rows to write.
protocol ChatStoreSuite {
    var tmp: TemporaryDirectory { get }
}

extension ChatStoreSuite {
    var path: String { tmp.path + "/chat.sqlite" }

    /// The store on `database`, opened again on the same data each time it is called (a restart).
    func store(_ database: StoreDatabase) async throws -> ChatStore {
        switch database {
        case .sqlite:
            return try ChatStore(path: path)
        case .postgres:
            let server = try await PostgresServer.shared()
            let name = "chat_" + String(UInt64(bitPattern: Int64(tmp.path.hashValue)), radix: 36)
            let url = try await server.database(named: name)
            return try await ChatStore.connect(PostgresDatabase(url: try DatabaseURL(url), logger: Logger(label: "test.chat-store")), named: name)
        }
    }

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
