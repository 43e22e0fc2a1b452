import Foundation
import FuzzRequests
import FuzzSupport
import RalphAPI

/// libFuzzer's entry point. The first byte picks a request body type (``RequestBodies/types``), the rest is the body.
///
/// The body is decoded with the server's decoder settings: its ``APIRequestDecoder`` decodes every body with a
/// default `JSONDecoder` (not Hummingbird's default, which reads dates as ISO 8601) and answers `400 invalid_body`
/// for any error. This target needs only RalphAPI, so CI builds it in seconds; `request-body-server` runs the same
/// corpus through the server's own `request.decode(as:context:)`. Checked for every input: a body that decodes,
/// encoded again as a client encodes it, decodes to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestBody(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (type, body) = RequestBodies.pick(inputBuffer(data, size)) else { return 0 }
    check(type, body: body)
    return 0
}

/// Decodes `body` as `type`, then checks a decoded value's round trip.
func check<T: Codable & Equatable & Sendable>(_ type: T.Type, body: Data) {
    guard let value = try? WireJSON.decode(type, from: body) else { return }  // a body that does not decode is not a finding
    guard let encoded = RequestBodies.reencode(value) else { return }
    RequestBodies.expectSame(value, again: Result { try WireJSON.decode(type, from: encoded) }, encoded: encoded)
}
