import Foundation
import Hummingbird
import RalphAPI
import RalphFiles

/// ralph's memories and tasks of a workspace, read and written in ralph's formats under ralph's locks, every file opened
/// under the workspace's root (a fixed name that links out of it is `400 invalid_path:` and nothing is written).
struct WorkspaceRoutes {
    let selector: WorkspaceSelector

    func register(on routes: Routes) {
        routes.viewer.get("/api/memories") { request, _ in
            let store = try await memoryStore(request)
            return JSONResponse.make(try await blocking { try Self.memories(store) })
        }
        routes.admin.put("/api/memories") { request, context in
            let body = try await request.decode(as: MemoriesUpdate.self, context: context)
            try TextLimit.memories.check(body.content, field: "content", verb: "larger")
            let store = try await memoryStore(request)
            return JSONResponse.make(
                try await blocking {
                    let modified: Date?
                    do {
                        modified = try store.write(body.content)
                    } catch let error as ConfinementError {
                        throw APIError(error, doing: "write memories")
                    } catch {
                        throw APIError.internalError("cannot write memories: \(error)")
                    }
                    return MemoriesContent(content: body.content, lastModified: modified.map(Timestamp.format), entries: MemoryStore.parse(body.content))
                }
            )
        }
        routes.viewer.post("/api/memories/export") { request, _ in
            let store = try await memoryStore(request)
            let memories = try await blocking { try Self.memories(store) }
            guard memories.lastModified != nil else { throw APIError.other(.notFound, .memoriesNotFound, "no \(store.path)") }
            let now = Date()
            let stamp = Timestamp.format(now).prefix(19).filter(\.isNumber)
            return JSONResponse.make(
                MemoriesExport(content: memories.content, exportedAt: Timestamp.format(now), filename: "memories-\(stamp.prefix(8))-\(stamp.dropFirst(8)).md")
            )
        }
        routes.viewer.get("/api/tasks") { request, _ in
            let store = try await taskStore(request)
            var tasks = try await blocking { try Self.perform { () throws(TaskStore.StoreError) in try store.load() } }
            if let status = request.uri.queryParameters["status"].map({ String($0).lowercased() }), !status.isEmpty {
                tasks = tasks.filter { $0.status.lowercased() == status }
            }
            let sorted = TaskStore.sorted(tasks)
            return JSONResponse.make(TasksResponse(tasks: sorted, total: sorted.count))
        }
        routes.admin.post("/api/tasks") { request, context in
            let body = try await request.decode(as: CreateTaskRequest.self, context: context)
            if let description = body.description { try TextLimit.taskDescription.check(description, field: "description") }
            try TextLimit.taskTitle.check(body.title, field: "title")
            let workspace = try await selector.selection(for: request)
            let store = TaskStore(workspace: workspace.path, root: workspace.root)
            let task = try await blocking {
                // Tag it with the loop that is running there, as `ralph tools task add` does.
                let loopID = (try? workspace.root.readFile(RalphLayout(workspace: workspace.path).currentLoopID, limit: 4096))?.text
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                return try Self.perform { () throws(TaskStore.StoreError) in
                    try store.add(
                        title: body.title, description: body.description, priority: body.priority ?? 3, blockedBy: body.blockedBy ?? [],
                        loopID: loopID.flatMap { $0.isEmpty ? nil : $0 }
                    )
                }
            }
            return JSONResponse.make(task, status: .created)
        }
        routes.admin.put("/api/tasks/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await request.decode(as: UpdateTaskRequest.self, context: context)
            let store = try await taskStore(request)
            return JSONResponse.make(try await blocking { try Self.perform { () throws(TaskStore.StoreError) in try store.setStatus(id: id, status: body.status) } })
        }
    }

    func memoryStore(_ request: Request) async throws -> MemoryStore {
        let workspace = try await selector.selection(for: request)
        return MemoryStore(workspace: workspace.path, root: workspace.root)
    }

    func taskStore(_ request: Request) async throws -> TaskStore {
        let workspace = try await selector.selection(for: request)
        return TaskStore(workspace: workspace.path, root: workspace.root)
    }

    static func memories(_ store: MemoryStore) throws -> MemoriesContent {
        do {
            guard let (content, modified) = try store.read() else { return MemoriesContent(content: "", lastModified: nil, entries: []) }
            return MemoriesContent(content: content, lastModified: modified.map(Timestamp.format), entries: MemoryStore.parse(content))
        } catch let error as ConfinementError {
            throw APIError(error, doing: "read memories")
        } catch {
            throw APIError.internalError("cannot read memories: \(error)")
        }
    }

    /// Maps the task store's errors to the contract's.
    static func perform<T>(_ body: () throws(TaskStore.StoreError) -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch {
            switch error {
            case .notFound(let id): throw .other(.notFound, .taskNotFound, id)
            case .invalid(let why): throw .invalidBody(why)
            case .io(let why): throw .internalError(why)
            case .refused(let why): throw .invalidPath(why.description)
            }
        }
    }
}
