import Foundation
import Testing

@testable import RalphMobilePresentation

/// The simple colouring of a diff's lines: keywords, strings, comments and numbers, by file extension.
@Suite("Syntax colouring of diff lines")
struct SyntaxHighlighterTests {
    /// The runs of a line as `kind:text`, leaving out plain runs of spaces and punctuation only.
    static func runs(_ language: SyntaxLanguage, _ line: String) -> [String] {
        let tokens = SyntaxHighlighter(language).tokens(line)
        #expect(tokens.map(\.text).joined() == line, "the tokens put together are the line")
        return tokens.filter { $0.kind != .plain }.map { "\($0.kind.rawValue):\($0.text)" }
    }

    @Test("the language comes from the extension; anything else is plain")
    func languages() {
        #expect(SyntaxLanguage(path: "/w/app/Sources/Clock.swift") == .swift)
        #expect(["a.js", "b.TSX", "c.mjs", "d.ts", "e.cjs"].map(SyntaxLanguage.init(path:)).allSatisfy { $0 == .javascript })
        #expect(SyntaxLanguage(path: "tools/report.py") == .python && SyntaxLanguage(path: "types.pyi") == .python)
        #expect(SyntaxLanguage(path: "run.sh") == .shell && SyntaxLanguage(path: "/home/ada/.zshrc") == .shell)
        #expect(SyntaxLanguage(path: "README.md") == .plain && SyntaxLanguage(path: "Makefile") == .plain)
    }

    @Test("Swift: keywords, attributes, strings with escapes, numbers (not ranges), and a comment after code")
    func swift() {
        #expect(Self.runs(.swift, #"let name = "a \"quoted\" // not a comment" // a comment"#) == [
            "keyword:let", #"string:"a \"quoted\" // not a comment""#, "comment:// a comment",
        ])
        #expect(Self.runs(.swift, "@MainActor func f(_ x: Int = 0x1F, y: Double = 3.14) async throws -> Self?") == [
            "keyword:@MainActor", "keyword:func", "number:0x1F", "number:3.14", "keyword:async", "keyword:throws", "keyword:Self",
        ])
        #expect(Self.runs(.swift, "for i in 0..<10 where i > 1_000 { return nil }") == [
            "keyword:for", "keyword:in", "number:0", "number:10", "keyword:where", "number:1_000", "keyword:return", "keyword:nil",
        ])
        #expect(Self.runs(.swift, "let letter = x2 + value3") == ["keyword:let"], "words containing keywords and digits are not split")
        #expect(Self.runs(.swift, "#if DEBUG") == ["keyword:#if"])
    }

    @Test("a block comment and a multi-line string carry from one line to the next with the state")
    func stateAcrossLines() {
        let swift = SyntaxHighlighter(.swift)
        var state = SyntaxHighlighter.State.code
        #expect(swift.tokens("let a = 1 /* starts", state: &state).last == SyntaxToken(.comment, "/* starts"))
        #expect(state == .blockComment)
        #expect(swift.tokens(" * still a comment let", state: &state) == [SyntaxToken(.comment, " * still a comment let")])
        #expect(swift.tokens("ends */ var b", state: &state) == [SyntaxToken(.comment, "ends */"), SyntaxToken(.plain, " "), SyntaxToken(.keyword, "var"), SyntaxToken(.plain, " b")])
        #expect(state == .code)
        #expect(swift.tokens(#"let s = """"#, state: &state).last == SyntaxToken(.string, #"""""#))
        #expect(state == .string(#"""""#))
        #expect(swift.tokens("    for in text", state: &state) == [SyntaxToken(.string, "    for in text")])
        _ = swift.tokens(#"    """ + x"#, state: &state)
        #expect(state == .code)
        #expect(swift.tokens("/* one */ let").map(\.kind) == [.comment, .plain, .keyword], "closed on its line")
    }

    @Test("JavaScript and TypeScript: keywords, three kinds of quotes, template literals over lines, $ in names")
    func javascript() {
        #expect(Self.runs(.javascript, "export const $el = await fetch('/api', { retry: 3 }) // go") == [
            "keyword:export", "keyword:const", "keyword:await", "string:'/api'", "number:3", "comment:// go",
        ])
        #expect(Self.runs(.javascript, "interface A { x: number | null }") == ["keyword:interface", "keyword:null"])
        var state = SyntaxHighlighter.State.code
        let js = SyntaxHighlighter(.javascript)
        _ = js.tokens("const html = `<p>", state: &state)
        #expect(state == .string("`"))
        #expect(js.tokens("</p>` + 1", state: &state).map(\.kind) == [.string, .plain, .number])
    }

    @Test("Python: keywords, # comments, prefixed strings, triple quotes over lines, decorators")
    func python() {
        #expect(Self.runs(.python, #"def report(days=7):  # the last week"#) == ["keyword:def", "number:7", "comment:# the last week"])
        #expect(Self.runs(.python, #"    return f"{days} days" if days else None"#) == [
            "keyword:return", #"string:"{days} days""#, "keyword:if", "keyword:else", "keyword:None",
        ])
        #expect(Self.runs(.python, "@dataclass") == ["keyword:@dataclass"])
        var state = SyntaxHighlighter.State.code
        let python = SyntaxHighlighter(.python)
        _ = python.tokens(#"    """Docs: def"#, state: &state)
        #expect(state == .string(#"""""#))
        #expect(python.tokens(#"    end""""#, state: &state) == [SyntaxToken(.string, #"    end""""#)])
        #expect(state == .code)
    }

    @Test("shell: # starts a comment only at a word's start; single quotes do not escape; $if is a variable")
    func shell() {
        #expect(Self.runs(.shell, #"if [ $# -gt 0 ]; then echo "n=$#" 'it\' # done"#) == [
            "keyword:if", "number:0", "keyword:then", #"string:"n=$#""#, #"string:'it\'"#, "comment:# done",
        ])
        #expect(Self.runs(.shell, "echo $if done") == ["keyword:done"])
        #expect(Self.runs(.shell, "# whole line") == ["comment:# whole line"])
    }

    @Test("plain text is one plain run, whatever it holds")
    func plain() {
        #expect(SyntaxHighlighter(.plain).tokens("let x = \"1\" // 2") == [SyntaxToken(.plain, "let x = \"1\" // 2")])
        #expect(SyntaxHighlighter(.swift).tokens("").isEmpty)
    }
}
