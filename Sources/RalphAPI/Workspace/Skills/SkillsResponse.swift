/// `GET /api/skills`.
public struct SkillsResponse: Codable, Hashable, Sendable {
    public var skills: [SkillItem]
    public var count: Int
    public init(skills: [SkillItem], count: Int) {
        self.skills = skills
        self.count = count
    }
}
