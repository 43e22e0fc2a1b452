// fake-anthropic: a test double of the Anthropic Messages API (being written).
@main
struct FakeAnthropic {
    static func main() {
        fatalError("fake-anthropic is being written")
    }
}
