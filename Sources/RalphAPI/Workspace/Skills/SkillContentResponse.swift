/// `POST /api/skills/{name}/load`.
public struct SkillContentResponse: Codable, Hashable, Sendable {
    public var name: String
    /// `<name-skill>` … `</name-skill>` around the body, as ralph injects it.
    public var content: String
    public init(name: String, content: String) {
        self.name = name
        self.content = content
    }
}
