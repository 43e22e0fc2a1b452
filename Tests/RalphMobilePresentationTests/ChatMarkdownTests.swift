import Foundation
import RalphMobilePresentation
import Testing

@Suite("Chat replies as markdown blocks")
struct ChatMarkdownTests {
    func kinds(_ text: String) -> [ChatMarkdownBlock.Kind] { ChatMarkdown(text).blocks.map(\.kind) }

    @Test("paragraphs are split on blank lines and keep their line breaks")
    func paragraphs() {
        #expect(kinds("One line\nsame paragraph\n\nSecond one") == [.paragraph(ChatInline("One line\nsame paragraph")), .paragraph(ChatInline("Second one"))])
        #expect(ChatMarkdown("").blocks.isEmpty)
        #expect(ChatMarkdown("\n\n  \n").blocks.isEmpty)
    }

    @Test("a fenced code block keeps its language and its text as written, indentation and blank lines included")
    func codeBlocks() {
        let text = "Run this:\n\n```swift\nlet a = 1\n\n    if a > 0 { print(a) }\n```\nDone."
        #expect(
            kinds(text) == [
                .paragraph(ChatInline("Run this:")), .code(language: "swift", text: "let a = 1\n\n    if a > 0 { print(a) }", isClosed: true),
                .paragraph(ChatInline("Done.")),
            ])
        #expect(kinds("~~~\nplain\n~~~") == [.code(language: nil, text: "plain", isClosed: true)])
        // Markup inside code is not markup.
        #expect(kinds("```\n**not bold** `x`\n```") == [.code(language: nil, text: "**not bold** `x`", isClosed: true)])
        // A longer closing fence closes; a shorter one is text.
        #expect(kinds("````md\n```\ninner\n```\n````") == [.code(language: "md", text: "```\ninner\n```", isClosed: true)])
    }

    @Test("a code block whose closing fence has not streamed in yet is open, and closes when it arrives")
    func streamingCode() {
        let partial = "Running:\n\n```sh\nswift test --filter Rep"
        #expect(kinds(partial).last == .code(language: "sh", text: "swift test --filter Rep", isClosed: false))
        #expect(kinds(partial + "ort\n```\nAll green.").suffix(2) == [.code(language: "sh", text: "swift test --filter Report", isClosed: true), .paragraph(ChatInline("All green."))])
        // Block ids are positions: a growing reply keeps the ids of the blocks it had.
        let before = ChatMarkdown("A\n\nB").blocks.map(\.id)
        let after = ChatMarkdown("A\n\nB\n\nC").blocks.map(\.id)
        #expect(before == [0, 1] && after == [0, 1, 2])
    }

    @Test("headings, rules and quotes")
    func headingsRulesQuotes() {
        #expect(kinds("# Title\n## Sub ##\n####### not a heading") == [.heading(level: 1, ChatInline("Title")), .heading(level: 2, ChatInline("Sub")), .paragraph(ChatInline("####### not a heading"))])
        #expect(kinds("#hashtag") == [.paragraph(ChatInline("#hashtag"))])
        #expect(kinds("above\n\n---\n\n* * *") == [.paragraph(ChatInline("above")), .rule, .rule])
        #expect(kinds("> quoted\n> more\n\nafter") == [.quote(ChatInline("quoted\nmore")), .paragraph(ChatInline("after"))])
    }

    @Test("bullet and numbered lists, with nesting, continuation lines and their numbers")
    func lists() {
        let blocks = ChatMarkdown("Steps:\n1. Read the time once\n2. Pass it on\n   to the code\n\n3. Run the tests\n\n- a\n  - nested\n- b").blocks
        #expect(blocks.count == 3)
        guard case .list(let ordered, let items) = blocks[1].kind else {
            Issue.record("not a list: \(blocks[1])")
            return
        }
        #expect(ordered)
        #expect(items.map(\.number) == [1, 2, 3])
        #expect(items.map(\.content.plainText) == ["Read the time once", "Pass it on\nto the code", "Run the tests"])
        guard case .list(let bullets, let bulletItems) = blocks[2].kind else {
            Issue.record("not a list: \(blocks[2])")
            return
        }
        #expect(!bullets)
        #expect(bulletItems.map(\.level) == [0, 1, 0])
        #expect(bulletItems.map(\.content.plainText) == ["a", "nested", "b"])
        #expect(blocks[2].plainText == "• a\n  • nested\n• b")
        // A list ends at a paragraph; "2024. was a year" style lines inside a paragraph do not start a list mid-paragraph.
        #expect(kinds("- x\n\nafter").count == 2)
    }

    @Test("a pipe table becomes a header and rows, short rows padded")
    func tables() {
        #expect(
            kinds("| Test | Result |\n|---|:---:|\n| `a` | pass |\n| b |") == [
                .table(header: [ChatInline("Test"), ChatInline("Result")], rows: [[ChatInline("`a`"), ChatInline("pass")], [ChatInline("b"), ChatInline("")]])
            ])
        // Without the separator line it is just text.
        #expect(kinds("| a | b |") == [.paragraph(ChatInline("| a | b |"))])
    }

    @Test("inline code, bold, italic, strikethrough and links become styled runs")
    func inline() {
        let runs = ChatInline("Use `swift test`, **not** *xcodebuild* or ~~make~~; see [docs](https://ex.com/d) or <https://ex.com/a>.").runs
        #expect(
            runs == [
                ChatInlineRun("Use "), ChatInlineRun("swift test", style: .code), ChatInlineRun(", "), ChatInlineRun("not", style: .strong),
                ChatInlineRun(" "), ChatInlineRun("xcodebuild", style: .emphasis), ChatInlineRun(" or "), ChatInlineRun("make", style: .strikethrough),
                ChatInlineRun("; see "), ChatInlineRun("docs", link: "https://ex.com/d"), ChatInlineRun(" or "),
                ChatInlineRun("https://ex.com/a", link: "https://ex.com/a"), ChatInlineRun("."),
            ])
        // Nested: bold code keeps both styles.
        #expect(ChatInline("**run `make`**").runs == [ChatInlineRun("run ", style: .strong), ChatInlineRun("make", style: [.strong, .code])])
        // A bare address, without the punctuation after it.
        #expect(ChatInline("Open https://ex.com/x, then").runs == [ChatInlineRun("Open "), ChatInlineRun("https://ex.com/x", link: "https://ex.com/x"), ChatInlineRun(", then")])
    }

    @Test("what is not markup stays text: snake_case, lone stars, unclosed markers still streaming, escapes")
    func notMarkup() {
        #expect(ChatInline("call read_file_now and 2 * 3 * 4").runs == [ChatInlineRun("call read_file_now and 2 * 3 * 4")])
        #expect(ChatInline("this is **half bold").runs == [ChatInlineRun("this is **half bold")])
        #expect(ChatInline("an `open code span").runs == [ChatInlineRun("an `open code span")])
        #expect(ChatInline(#"not \*emphasis\*"#).runs == [ChatInlineRun("not *emphasis*")])
        #expect(ChatInline("``a `tick` inside``").runs == [ChatInlineRun("a `tick` inside", style: .code)])
        #expect(ChatInline("[not a link] (x)").plainText == "[not a link] (x)")
    }

    @Test("the attributed string carries the runs' text and links for Text (and their styles where Foundation has intents)")
    func attributed() {
        let attributed = ChatInline("**Bold** and `code` at [site](https://ex.com)").attributed
        #expect(String(attributed.characters) == "Bold and code at site")
        let links = attributed.runs.compactMap { run in run.link.map { (String(attributed[run.range].characters), $0) } }
        #expect(links.count == 1 && links.first?.0 == "site" && links.first?.1 == URL(string: "https://ex.com"))
        #if canImport(Darwin)
            let styled = attributed.runs.map { (String(attributed[$0.range].characters), $0.inlinePresentationIntent) }
            #expect(styled.contains { $0.0 == "Bold" && $0.1 == .stronglyEmphasized })
            #expect(styled.contains { $0.0 == "code" && $0.1 == .code })
        #endif
    }

    @Test("plain text for VoiceOver and Copy drops the markup")
    func plainText() {
        let markdown = ChatMarkdown("# Fix\n\nRead **once**.\n\n```\nlet x = 1\n```\n\n1. a\n2. b")
        #expect(markdown.plainText == "Fix\n\nRead once.\n\nlet x = 1\n\n1. a\n2. b")
    }
}
