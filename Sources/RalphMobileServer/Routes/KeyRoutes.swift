import Hummingbird
import NIOPosix
import RalphAPI

/// Key management for admins: `GET /api/keys`, `POST /api/keys`, `DELETE /api/keys/{id}`. In a cluster the keys are
/// the cluster's (``SharedAuth``): made or revoked here, they work or stop working on every host.
struct KeyRoutes {
    let keyStore: KeyStore
    let shared: SharedAuth?

    func register(on routes: Routes) {
        routes.admin.get("/api/keys") { _, context in
            // The keys last read may include revoked ones: not a list to show as current.
            if let failure = keyStore.failure {
                context.logger.error("cannot list keys: the keys file cannot be read", metadata: ["reason": "\(failure)"])
                throw APIError.keysFileUnreadable
            }
            return JSONResponse.make(APIKeyList(keys: keyStore.keys.map(Self.info)))
        }
        routes.admin.post("/api/keys") { request, context in
            let body = try await request.decode(as: CreateAPIKeyRequest.self, context: context)
            if let name = body.name { try TextLimit.keyName.check(name, field: "name") }
            let created = try await create(role: body.role, name: body.name)
            var response = JSONResponse.make(CreatedAPIKey(key: Self.info(created.key), secret: created.secret), status: .created)
            response.headers[.location] = "/api/keys/\(created.key.id)"
            return response
        }
        routes.admin.delete("/api/keys/{id}") { _, context in
            let id = context.parameters.get("id") ?? ""
            return JSONResponse.make(["revoked": Self.info(try await revoke(id))])
        }
    }

    private func create(role: Role, name: String?) async throws -> (key: StoredKey, secret: String) {
        if let shared {
            do {
                return try await shared.create(role: role, name: name)
            } catch {
                throw APIError.other(.serviceUnavailable, .unavailable, "cannot store the key in the cluster's database: \(error)")
            }
        }
        let store = keyStore
        return try await NIOThreadPool.singleton.runIfActive { () throws -> (key: StoredKey, secret: String) in
            do throws(KeyStore.KeyError) {
                return try store.create(role: role, name: name)
            } catch {
                throw APIError.internalError(error.description)
            }
        }
    }

    private func revoke(_ id: String) async throws -> StoredKey {
        if let shared {
            let revoked: StoredKey?
            do {
                revoked = try await shared.revoke(id)
            } catch KeyStore.KeyError.ambiguous {
                throw Self.ambiguous(id)
            } catch {
                throw APIError.other(.serviceUnavailable, .unavailable, "cannot revoke the key in the cluster's database: \(error)")
            }
            guard let revoked else { throw APIError.notFound("no key matches '\(id.prefix(40))'") }
            return revoked
        }
        let store = keyStore
        return try await NIOThreadPool.singleton.runIfActive { () throws -> StoredKey in
            do throws(KeyStore.KeyError) {
                return try store.revoke(id)
            } catch .notFound {
                throw APIError.notFound("no key matches '\(id.prefix(40))'")
            } catch .ambiguous {
                throw Self.ambiguous(id)
            } catch {
                throw APIError.internalError(error.description)
            }
        }
    }

    /// `409`: the prefix names several keys; revoking one of them would be a guess.
    static func ambiguous(_ id: String) -> APIError {
        .conflict("'\(id.prefix(40))' matches several keys; give more of the id")
    }

    static func info(_ key: StoredKey) -> APIKeyInfo {
        APIKeyInfo(id: key.id, name: key.name, role: key.role, createdAt: key.createdAt)
    }
}
