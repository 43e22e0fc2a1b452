/// `GET /api/loops`.
public struct LoopsResponse: Codable, Hashable, Sendable {
    public var loops: [LoopInfo]
    public init(loops: [LoopInfo]) { self.loops = loops }
}
