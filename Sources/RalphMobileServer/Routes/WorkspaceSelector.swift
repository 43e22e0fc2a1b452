import Foundation
import Hummingbird
import NIOPosix
import RalphAPI
import RalphFiles

/// Which workspace a library or workspace route works on: `?workspace=<dir>` (relative to the first root, or
/// absolute, inside the roots), or `?session=<id>` (that run's workspace), else the first root — the original server
/// used its working directory.
struct WorkspaceSelector: Sendable {
    let roots: WorkspaceRoots
    let lookup: SessionLookup

    /// A selected workspace: its canonical path, and the open root every file of it is opened from.
    struct Selection: Sendable {
        let path: String
        let root: RootDirectory
    }

    func workspace(for request: Request) async throws -> String {
        try await selection(for: request).path
    }

    func selection(for request: Request) async throws -> Selection {
        let query = request.uri.queryParameters
        if let session = query["session"].map(String.init), !session.isEmpty {
            switch try await lookup.target(session) {
            case .run(let snapshot): return try selection(snapshot.location.workspace)
            case .pending(let started): return try selection(started.workingDirectory)
            }
        }
        guard let first = roots.paths.first else { throw APIError.invalidPath("no workspace roots are configured") }
        guard let requested = query["workspace"].map(String.init), !requested.isEmpty else { return try selection(first) }
        let roots = self.roots
        let result = try await NIOThreadPool.singleton.runIfActive { roots.resolve(requested, relativeTo: first, kind: .directory) }
        switch result {
        case .success(let path): return try selection(path)
        case .failure(let error): throw APIError.invalidPath("workspace: \(error)")
        }
    }

    private func selection(_ path: String) throws(APIError) -> Selection {
        guard let root = roots.directory(containing: path) else { throw .invalidPath("workspace: '\(path.prefix(200))' is outside the workspace roots") }
        return Selection(path: path, root: root)
    }
}

extension APIError {
    /// A file of a workspace that could not be opened under its root: a refused path or link is `400 invalid_path:`
    /// (the request changes nothing), anything else a `500`.
    init(_ error: ConfinementError, doing what: String) {
        self = error.isRefusal ? .invalidPath(error.description) : .internalError("cannot \(what): \(error)")
    }
}

/// A `{path…}` route parameter: the catch-all components, percent-decoded (Hummingbird leaves the path encoded).
enum PathParameter {
    static func decode(_ context: AppRequestContext) throws(APIError) -> String {
        let components = context.parameters.getCatchAll()
        if components.isEmpty { throw .invalidPath("path cannot be empty") }
        var decoded: [String] = []
        for component in components {
            guard let value = String(component).removingPercentEncoding else { throw .invalidPath("'\(component.prefix(100))' is not valid percent-encoding") }
            decoded.append(value)
        }
        return decoded.joined(separator: "/")
    }
}
