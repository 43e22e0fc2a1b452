import Foundation

/// The one JSON configuration of the wire contract and of the files the server and clients keep.
///
/// Every HTTP body, SSE frame, stored row and state file is written with sorted keys and unescaped slashes, so equal
/// values give equal bytes wherever they are written (the contract is byte-compatible, and tests compare bytes).
/// Decoding is strict (Foundation's defaults): unknown keys are ignored, missing required ones fail with the path.
///
/// Code does not make its own `JSONEncoder` or `JSONDecoder` (the options would drift apart): it asks this type for one.
public enum WireJSON {
    /// Compact output: bodies, frames, rows.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Indented output, for files a person may open (keys, state, settings).
    public static func prettyEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Foundation's default decoder, which is also what the original RalphMobile client decodes with (pinned by
    /// `WireJSONTests`, so a strategy added here cannot silently diverge from it).
    public static func decoder() -> JSONDecoder {
        JSONDecoder()
    }

    /// `value` as compact wire JSON.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try encoder().encode(value)
    }

    /// `value` as indented JSON, for files.
    public static func encodePretty<T: Encodable>(_ value: T) throws -> Data {
        try prettyEncoder().encode(value)
    }

    /// A `T` from wire JSON; throws Foundation's `DecodingError`, which names the failing key path.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder().decode(type, from: data)
    }
}
