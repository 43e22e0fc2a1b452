import Foundation
import Logging
import NIOCore

/// Why a streamed response ended early, and how loudly to say so: a client that went away (the request was cancelled,
/// its connection closed) is the normal end of a followed stream; anything else is a failure worth an error in the log,
/// since the client only sees its body stop.
enum StreamStop: Equatable {
    case clientGone
    case failed(String)

    init(_ error: any Error) {
        switch error {
        case is CancellationError: self = .clientGone
        case let error as ChannelError:
            switch error {
            case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof: self = .clientGone
            default: self = .failed("\(error)")
            }
        case let error as IOError where error.errnoCode == EPIPE || error.errnoCode == ECONNRESET: self = .clientGone
        default: self = .failed("\(error)")
        }
    }

    /// Logs the end of `what` after `error`: debug when the client went away, an error otherwise.
    static func log(_ error: any Error, what: String, logger: Logger) {
        switch StreamStop(error) {
        case .clientGone: logger.debug("\(what): the client went away")
        case .failed(let reason): logger.error("\(what) ended early: \(reason)")
        }
    }
}
