import Foundation
import NIOCore
import NIOPosix
import RalphAPI
import RalphFiles
import RalphSimulator

#if canImport(Glibc)
import Glibc
#endif

/// Finding the bench runs in the server's session list.
extension Bench {
    /// The runs' ids (a hash of the canonical file path), once the server lists them.
    func findSessions(port: Int, live: String, resume: String) async throws -> (String, String) {
        func id(_ path: String) -> String {
            RunID.make(forPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
        }
        let ids = (id(live), id(resume))
        let found = await waitUntil(timeout: 30, poll: 0.1) {
            guard let http = try? BlockingHTTP(port: port), let response = try? http.request(method: "GET", path: "/api/sessions"),
                let list = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]
            else { return false }
            let listed = Set(list.compactMap { $0["id"] as? String })
            return listed.contains(ids.0) && listed.contains(ids.1)
        }
        guard found else { throw BenchError("the server did not list both bench runs (\(ids.0), \(ids.1)) within 30 s") }
        return ids
    }
}

/// The run's `event_count` in `GET /api/sessions`.
func eventCount(port: Int, session: String) throws -> Int {
    let http = try BlockingHTTP(port: port)
    let response = try http.request(method: "GET", path: "/api/sessions")
    let list = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]
    return (list?.first { ($0["id"] as? String) == session }?["event_count"] as? Int) ?? 0
}
