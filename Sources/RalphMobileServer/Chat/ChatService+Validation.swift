import Foundation
import RalphAPI

/// What a request may contain, checked before anything reaches a conversation.
extension ChatService {
    /// A trimmed title, nil when none was given; errors when it is blank or too long.
    static func title(_ value: String?) throws(APIError) -> String? {
        guard let value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return nil }
        if trimmed.count > maxTitleLength { throw .invalidBody("title is longer than \(maxTitleLength) characters") }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidBody("title contains a control character")
        }
        return trimmed
    }

    /// A value passed as a CLI flag: short, printable, and not itself a flag.
    static func flagValue(_ value: String, field: String) throws(APIError) {
        if value.isEmpty || value.count > 100 || value.hasPrefix("-")
            || value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
        {
            throw .invalidBody("\(field) must be a short name without spaces")
        }
    }

    /// Why an approval that is not pending cannot be decided.
    static func notPending(_ approval: Approval) -> APIError {
        switch approval.state {
        case .pending: .conflict("approval \(approval.id) is being decided")
        case .allowed, .denied:
            .conflict("approval \(approval.id) was already decided: \(approval.decision?.rawValue ?? approval.state.rawValue) by \(approval.decidedBy ?? "someone")")
        case .cancelled: .conflict("approval \(approval.id) is no longer pending: \(approval.message ?? "its turn ended")")
        }
    }
}
