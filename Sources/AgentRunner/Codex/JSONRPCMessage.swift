import RalphAPI

/// One line of `codex app-server`'s stdio transport: a JSON object that is a request (`method` and `id`), a
/// notification (`method` alone) or a response (`id` with `result` or `error`). The server leaves out
/// `"jsonrpc":"2.0"` and adds fields of its own (`emittedAtMs`); both are ignored.
enum JSONRPCMessage: Sendable, Hashable {
    /// A request from the server (an approval): it waits for a response with the same `id`, a number or a string.
    case request(id: JSONValue, method: String, params: JSONObject)
    case notification(method: String, params: JSONObject)
    case response(id: JSONValue, result: JSONValue)
    /// An error response; `id` is null when the server could not read the request's id.
    case error(id: JSONValue, code: Int?, message: String)

    /// The message on `line`, or nil for a line that is not a JSON object of one of these shapes.
    init?(line: [UInt8]) {
        guard let value = try? JSONParser.parse(line), let object = value.objectValue else { return nil }
        let params = object["params"]?.objectValue ?? JSONObject()
        if let method = object["method"]?.stringValue {
            if let id = object["id"], !id.isNull {
                self = .request(id: id, method: method, params: params)
            } else {
                self = .notification(method: method, params: params)
            }
        } else if let id = object["id"] {
            if let error = object["error"]?.objectValue {
                self = .error(id: id, code: error["code"]?.intValue, message: error["message"]?.stringValue ?? "(no message)")
            } else {
                self = .response(id: id, result: object["result"] ?? .null)
            }
        } else {
            return nil
        }
    }

    /// A request of ours as a line (compact JSON, `\n`-terminated).
    static func request(id: Int, method: String, params: JSONValue) -> [UInt8] {
        line(["id": .int(id), "method": .string(method), "params": params])
    }

    static func notification(method: String) -> [UInt8] {
        line(["method": .string(method)])
    }

    /// Our response to a server request.
    static func response(id: JSONValue, result: JSONValue) -> [UInt8] {
        line(["id": id, "result": result])
    }

    /// Our error response to a server request we do not handle.
    static func errorResponse(id: JSONValue, code: Int, message: String) -> [UInt8] {
        line(["id": id, "error": ["code": .int(code), "message": .string(message)]])
    }

    private static func line(_ value: JSONValue) -> [UInt8] {
        JSONWriter.bytes(value) + [0x0A]
    }
}
