import RalphAPI
import RalphMobileKit

/// Section 10: what may be done to the run from here.
///
/// Steer and Emit need a role that may steer and an active run; answering needs the same and a pending question;
/// Export is for everyone, at any time.
public struct ActionsSection: Sendable, Equatable {
    public var showsSteer: Bool
    public var showsEmit: Bool
    public var showsAnswer: Bool
    public var showsExport: Bool
    /// Why Steer and Emit are missing, when the role allows them but the run is over.
    public var note: String?

    public init(session: Session?, hasPendingQuestion: Bool, capabilities: Capabilities) {
        let active = session.map { !$0.isUnreachable && ($0.mode == .live || $0.mode == .paused || $0.mode == .suspended) } ?? false
        showsSteer = capabilities.canSteer && active
        showsEmit = capabilities.canSteer && active
        showsAnswer = capabilities.canSteer && active && hasPendingQuestion
        showsExport = true
        if !capabilities.canSteer {
            note = "Your key can read only: steering, emitting events and answering need an operator key."
        } else if let off = session.flatMap(HostWords.controlsOff) {
            note = off
        } else if !active {
            note = "The run is over: it takes no more guidance or events."
        } else {
            note = nil
        }
    }
}
