import Foundation
import Hummingbird
import RalphAPI
import Synchronization
import Yams

/// The API's OpenAPI 3.1 contract (`Resources/openapi/openapi.yaml`): served as written at `/openapi.yaml` and as JSON
/// at `/openapi.json`, without a key (it describes the API, it holds nothing of the server's). The web dashboard's
/// `/docs` page renders it.
struct ContractRoutes {
    let contract: APIContract

    func register(on routes: Routes) {
        let contract = contract
        routes.open.get("/openapi.yaml") { request, _ in try contract.response(.yaml, request) }
        routes.open.get("/openapi.json") { request, _ in try contract.response(.json, request) }
    }
}

/// The contract's bytes, read from the server's resources when first asked for (parsing 10 000 lines of YAML would
/// add a few hundred milliseconds to every start), then kept; the JSON is converted from the YAML then.
final class APIContract: Sendable {
    enum Format: Sendable {
        case yaml
        case json
    }

    private enum Source: Sendable {
        case loaded(yaml: WebAssets.Asset, json: WebAssets.Asset)
        /// Why it cannot be served (the error its routes answer).
        case missing(String)
    }

    /// Where the YAML is (nil: why it was not found).
    private let location: Result<String, ConversionError>
    private let source = Mutex<Source?>(nil)

    /// The bundled contract (`openapi/openapi.yaml` beside the executable).
    static func bundled() -> APIContract {
        guard let directory = WebAssets.bundledDirectory("openapi", containing: "openapi.yaml") else {
            return APIContract(location: .failure(ConversionError(
                description: "the API contract (\(WebAssets.bundleName)/openapi/openapi.yaml) was not found next to the server executable")))
        }
        return APIContract(location: .success(directory + "/openapi.yaml"))
    }

    /// The contract in the YAML file at `path`.
    static func load(path: String) -> APIContract {
        APIContract(location: .success(path))
    }

    private init(location: Result<String, ConversionError>) {
        self.location = location
    }

    /// The documents, read and converted on first use.
    private var loaded: Source {
        source.withLock { source in
            if let source { return source }
            let read = Self.read(location)
            source = read
            return read
        }
    }

    private static func read(_ location: Result<String, ConversionError>) -> Source {
        let path: String
        switch location {
        case .failure(let error): return .missing(error.description)
        case .success(let found): path = found
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return .missing("the API contract \(path) cannot be read")
        }
        do {
            let json = try jsonData(yaml: text)
            return .loaded(yaml: WebAssets.Asset(data, contentType: "application/yaml; charset=utf-8"), json: WebAssets.Asset(json, contentType: "application/json"))
        } catch {
            return .missing("the API contract \(path) is not valid YAML: \(error)")
        }
    }

    /// The contract as one JSON object, keys sorted.
    static func jsonData(yaml: String) throws -> Data {
        guard let node = try Yams.compose(yaml: yaml) else { throw ConversionError(description: "the document is empty") }
        let object = try jsonValue(node, at: "")
        guard object is [String: Any] else { throw ConversionError(description: "the document is not a mapping") }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    struct ConversionError: Error, CustomStringConvertible {
        let description: String
    }

    /// A YAML node as the JSON value it stands for (core schema: null, booleans, integers, floats, strings).
    private static func jsonValue(_ node: Node, at path: String) throws -> Any {
        switch node {
        case .scalar(let scalar):
            // Resolved by its tag (a quoted '200' stays a string); a timestamp or binary scalar stays its text.
            let value = node.any
            switch value {
            case is NSNull, is Bool, is Int, is Double, is String: return value
            default: return scalar.string
            }
        case .sequence(let sequence):
            return try sequence.enumerated().map { try jsonValue($1, at: path + "/\($0)") }
        case .mapping(let mapping):
            var object: [String: Any] = [:]
            for (key, value) in mapping {
                guard let name = key.string else { throw ConversionError(description: "a key at \(path.isEmpty ? "/" : path) is not a string") }
                object[name] = try jsonValue(value, at: path + "/" + name)
            }
            return object
        case .alias:
            throw ConversionError(description: "an alias at \(path.isEmpty ? "/" : path) (the contract uses $ref, not YAML aliases)")
        }
    }

    /// The document in `format`, `304` when the client has it, or `503` when the contract is not installed.
    func response(_ format: Format, _ request: Request) throws(APIError) -> Response {
        switch loaded {
        case .missing(let why):
            throw .other(.serviceUnavailable, .unavailable, "\(why); reinstall the server with its resources")
        case .loaded(let yaml, let json):
            return WebRoutes.respond(with: format == .yaml ? yaml : json, request)
        }
    }
}
