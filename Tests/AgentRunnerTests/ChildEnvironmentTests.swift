import AgentRunner
import Testing

@Suite("Child environment")
struct ChildEnvironmentTests {
    @Test("the server's API key never reaches a child; everything else does")
    func scrubbed() {
        let environment = ["PATH": "/bin", "HOME": "/root", "RALPH_MOBILE_API_KEY": "secret", "RALPH_MOBILE_OTHER": "kept"]
        #expect(ChildEnvironment.scrubbed(environment) == ["PATH": "/bin", "HOME": "/root", "RALPH_MOBILE_OTHER": "kept"])
        #expect(ChildEnvironment.scrubbed([:]) == [:])
    }
}
