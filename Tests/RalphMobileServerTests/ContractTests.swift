import Foundation
import Hummingbird
import Testing

@testable import RalphMobileServer

/// The OpenAPI contract (`Resources/openapi/openapi.yaml`) is the API's: every route the server registers is in it,
/// with the access it is registered with, and it describes no route the server does not have. It is served at
/// `/openapi.yaml` and, as JSON, at `/openapi.json`.
@Suite("The OpenAPI contract")
struct ContractTests {
    static let methods = ["get", "head", "post", "put", "patch", "delete", "options", "trace"]

    /// The contract file in the source tree.
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Sources/RalphMobileServer/Resources/openapi/openapi.yaml"
    ).standardized.path

    /// The contract file, as JSON (converted the way `/openapi.json` is).
    static func contract() throws -> [String: Any] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let object = try JSONSerialization.jsonObject(with: try APIContract.jsonData(yaml: text))
        return try #require(object as? [String: Any])
    }

    /// `METHOD route` → `x-ralph-role` of every operation of the contract (a catch-all under its `x-ralph-route`).
    static func operations(_ contract: [String: Any]) throws -> [String: String] {
        let paths = try #require(contract["paths"] as? [String: [String: Any]])
        var operations: [String: String] = [:]
        for (path, item) in paths {
            let route = item["x-ralph-route"] as? String ?? path
            for method in methods {
                guard let operation = item[method] as? [String: Any] else { continue }
                operations["\(method.uppercased()) \(route)"] = operation["x-ralph-role"] as? String ?? "no x-ralph-role"
            }
        }
        return operations
    }

    @Test("every registered route is in the contract with its access, and the contract has no route the server lacks")
    func routesAreTheContract() async throws {
        let tmp = TemporaryDirectory()
        let server = try RouterFixture.server(tmp)
        let (router, ledger) = server.makeRouter()
        let registered = RouteAccessTests.registered(router, ledger)
        let described = try Self.operations(try Self.contract())
        for key in Set(registered.keys).union(described.keys).sorted() {
            #expect(
                registered[key] == described[key],
                "\(key): registered as \(registered[key] ?? "nothing"), the contract says \(described[key] ?? "nothing") — change both together"
            )
        }
        #expect(described.count == router.routes.count)
    }

    @Test("every operation has an id, a summary, a tag the contract lists and responses; every $ref resolves")
    func operationsAreComplete() throws {
        let contract = try Self.contract()
        #expect(contract["openapi"] as? String == "3.1.0")
        let tags = Set(((contract["tags"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String })
        let paths = try #require(contract["paths"] as? [String: [String: Any]])
        var ids: [String] = []
        for (path, item) in paths {
            for method in Self.methods {
                guard let operation = item[method] as? [String: Any] else { continue }
                let name = "\(method.uppercased()) \(path)"
                let id = operation["operationId"] as? String
                #expect(id != nil, "\(name) has no operationId")
                ids += id.map { [$0] } ?? []
                #expect((operation["summary"] as? String)?.isEmpty == false, "\(name) has no summary")
                let operationTags = operation["tags"] as? [String] ?? []
                #expect(!operationTags.isEmpty && Set(operationTags).isSubset(of: tags), "\(name): tags \(operationTags) not all listed")
                #expect((operation["responses"] as? [String: Any])?.isEmpty == false, "\(name) has no responses")
            }
        }
        #expect(ids.count == Set(ids).count, "operationIds are unique")
        var dangling: [String] = []
        Self.references(in: contract) { reference in
            guard reference.hasPrefix("#/") else { return dangling.append(reference) }
            var node: Any? = contract
            for part in reference.dropFirst(2).split(separator: "/") {
                let key = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                node = (node as? [String: Any])?[key]
            }
            if node == nil { dangling.append(reference) }
        }
        #expect(dangling.isEmpty, "references to nothing: \(Set(dangling).sorted())")
    }

    static func references(in value: Any, _ found: (String) -> Void) {
        if let object = value as? [String: Any] {
            if let reference = object["$ref"] as? String { found(reference) }
            for child in object.values { references(in: child, found) }
        } else if let array = value as? [Any] {
            for child in array { references(in: child, found) }
        }
    }

    @Test("/openapi.yaml is the file as written and /openapi.json the same document as JSON, both without a key and cached by ETag")
    func served() async throws {
        let tmp = TemporaryDirectory()
        let server = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: tmp.subdirectory("data")) {
            $0.apiKey = "a-key-long-enough-for-the-policy-0123456789"
        }
        defer { Task { await server.stop() } }
        let yaml = try await HTTP.get(server.base + "/openapi.yaml")
        #expect(yaml.status == 200 && yaml.headers["Content-Type"].first?.hasPrefix("application/yaml") == true)
        #expect(yaml.body == FileManager.default.contents(atPath: Self.path), "the bundled file, byte for byte")

        let json = try await HTTP.get(server.base + "/openapi.json")
        #expect(json.status == 200 && json.headers["Content-Type"].first == "application/json")
        let served = try #require(try JSONSerialization.jsonObject(with: json.body) as? [String: Any])
        let expected = try Self.contract()
        #expect(NSDictionary(dictionary: served).isEqual(to: expected), "the same document")
        let health = try #require((served["paths"] as? [String: Any])?["/health"] as? [String: Any])
        let responses = try #require((health["get"] as? [String: Any])?["responses"] as? [String: Any])
        #expect(responses["200"] != nil, "status codes stay strings")

        let etag = try #require(json.headers["ETag"].first)
        let again = try await HTTP.get(server.base + "/openapi.json", headers: [("If-None-Match", etag)])
        #expect(again.status == 304 && again.body.isEmpty)
        // The rest of the API still needs the key.
        #expect(try await HTTP.get(server.base + "/api/sessions").status == 401)
    }

    @Test("a contract that is missing or not YAML is a 503 that says why, never an empty document")
    func unavailable() throws {
        let tmp = TemporaryDirectory()
        let request = Request(head: .init(method: .get, scheme: "http", authority: "127.0.0.1", path: "/openapi.json"), body: .init(buffer: .init()))
        let missing = APIContract.load(path: tmp.path + "/nowhere.yaml")
        #expect(throws: APIError.other(.serviceUnavailable, .unavailable, "the API contract \(tmp.path)/nowhere.yaml cannot be read; reinstall the server with its resources")) {
            try missing.response(.json, request)
        }
        let broken = tmp.path + "/broken.yaml"
        try "openapi: [3.1.0\n".write(toFile: broken, atomically: true, encoding: .utf8)
        #expect {
            try APIContract.load(path: broken).response(.yaml, request)
        } throws: { error in
            "\(error)".contains("is not valid YAML")
        }
    }
}
