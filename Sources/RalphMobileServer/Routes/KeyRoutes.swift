import Hummingbird
import NIOPosix
import RalphAPI

/// Key management for admins: `GET /api/keys`, `POST /api/keys`, `DELETE /api/keys/{id}`.
struct KeyRoutes {
    let keyStore: KeyStore

    func register(on router: Router<AppRequestContext>) {
        router.get("/api/keys") { _, context in
            try context.require(.admin)
            return JSONResponse.make(APIKeyList(keys: keyStore.keys.map(Self.info)))
        }
        router.post("/api/keys") { request, context in
            try context.require(.admin)
            let body = try await request.decode(as: CreateAPIKeyRequest.self, context: context)
            if let name = body.name, name.count > 200 { throw APIError.invalidBody("name is longer than 200 characters") }
            let store = keyStore
            let created = try await NIOThreadPool.singleton.runIfActive { () throws -> (key: StoredKey, secret: String) in
                do throws(KeyStore.KeyError) {
                    return try store.create(role: body.role, name: body.name)
                } catch {
                    throw APIError.internalError(error.description)
                }
            }
            var response = JSONResponse.make(CreatedAPIKey(key: Self.info(created.key), secret: created.secret), status: .created)
            response.headers[.location] = "/api/keys/\(created.key.id)"
            return response
        }
        router.delete("/api/keys/{id}") { _, context in
            try context.require(.admin)
            let id = context.parameters.get("id") ?? ""
            let store = keyStore
            let revoked = try await NIOThreadPool.singleton.runIfActive { () throws -> StoredKey in
                do throws(KeyStore.KeyError) {
                    return try store.revoke(id)
                } catch .notFound, .ambiguous {
                    throw APIError.notFound("no single key matches '\(id.prefix(40))'")
                } catch {
                    throw APIError.internalError(error.description)
                }
            }
            return JSONResponse.make(["revoked": Self.info(revoked)])
        }
    }

    static func info(_ key: StoredKey) -> APIKeyInfo {
        APIKeyInfo(id: key.id, name: key.name, role: key.role, createdAt: key.createdAt)
    }
}
