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
    guard let value = try? WireJSON.decode(type, from: body) else { return }
    RequestBodies.validate(value)
    let encoded: Data
    do {
        encoded = try WireJSON.encode(value)
    } catch {
        expect(false, "\(type): a decoded body does not encode again: \(error)")
        return
    }
    do {
        let again = try WireJSON.decode(type, from: encoded)
        expect(again == value, "\(type): decoded \(value), encoded and decoded again \(again)")
    } catch {
        expect(false, "\(type): \(String(decoding: encoded, as: UTF8.self)) (a decoded body, encoded again) does not decode: \(error)")
    }
}
