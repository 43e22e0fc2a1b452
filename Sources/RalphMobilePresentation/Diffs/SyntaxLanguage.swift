import Foundation

/// The languages a diff's lines are coloured in, chosen by the file's extension; anything else is ``plain``.
///
/// Colouring is deliberately simple — keywords, strings, comments and numbers, line by line (with block comments and
/// multi-line strings carried from one line to the next) — so a person sees the shape of code in a diff, not a parse.
public enum SyntaxLanguage: String, Hashable, Sendable, CaseIterable {
    case swift
    /// JavaScript and TypeScript (`.js`, `.jsx`, `.mjs`, `.cjs`, `.ts`, `.tsx`, `.mts`, `.cts`).
    case javascript
    case python
    /// `sh`, `bash`, `zsh` scripts and their rc files.
    case shell
    /// No colouring.
    case plain

    /// The language of a file, from its extension (or, for shell rc files, its name).
    public init(path: String) {
        let name = (path as NSString).lastPathComponent.lowercased()
        let ext = (name as NSString).pathExtension
        switch ext {
        case "swift": self = .swift
        case "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts": self = .javascript
        case "py", "pyi", "pyw": self = .python
        case "sh", "bash", "zsh", "ksh": self = .shell
        default:
            self = [".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile"].contains(name) ? .shell : .plain
        }
    }

    /// What a line comment starts with (`//`, `#`); nil for ``plain``.
    var lineComment: String? {
        switch self {
        case .swift, .javascript: "//"
        case .python, .shell: "#"
        case .plain: nil
        }
    }

    /// Whether `/* … */` comments exist.
    var hasBlockComments: Bool { self == .swift || self == .javascript }

    /// The quotes that open a string on one line.
    var quotes: Set<Character> {
        switch self {
        case .swift: ["\""]
        case .javascript: ["\"", "'", "`"]
        case .python, .shell: ["\"", "'"]
        case .plain: []
        }
    }

    /// Delimiters of strings that may span lines (`"""`, `'''`, and JavaScript's template literals).
    var multilineQuotes: [String] {
        switch self {
        case .swift: ["\"\"\""]
        case .python: ["\"\"\"", "'''"]
        case .javascript: ["`"]
        case .shell, .plain: []
        }
    }

    /// Whether a backslash escapes the next character inside a string opened by `quote`.
    func escapes(in quote: String) -> Bool { !(self == .shell && quote == "'") }

    /// Words that start an attribute or directive and are shown as keywords with them (`@MainActor`, `#if`).
    var attributePrefixes: Set<Character> {
        switch self {
        case .swift: ["@", "#"]
        case .python: ["@"]
        case .javascript, .shell, .plain: []
        }
    }

    /// The language's keywords (and the few built-in words read like them: `true`, `nil`, `self`).
    var keywords: Set<String> {
        switch self {
        case .swift: Self.swiftKeywords
        case .javascript: Self.javascriptKeywords
        case .python: Self.pythonKeywords
        case .shell: Self.shellKeywords
        case .plain: []
        }
    }

    static let swiftKeywords: Set<String> = [
        "actor", "any", "as", "associatedtype", "async", "await", "break", "case", "catch", "class", "consume", "consuming", "continue",
        "convenience", "default", "defer", "deinit", "didSet", "do", "dynamic", "else", "enum", "extension", "fallthrough", "false", "fileprivate",
        "final", "for", "func", "get", "guard", "if", "import", "in", "indirect", "init", "inout", "internal", "is", "isolated", "lazy", "let",
        "macro", "mutating", "nil", "nonisolated", "nonmutating", "open", "operator", "optional", "override", "package", "private", "protocol",
        "public", "repeat", "required", "rethrows", "return", "self", "Self", "set", "some", "static", "struct", "subscript", "super", "switch",
        "throw", "throws", "true", "try", "typealias", "unowned", "var", "weak", "where", "while", "willSet",
    ]

    static let javascriptKeywords: Set<String> = [
        "abstract", "as", "async", "await", "break", "case", "catch", "class", "const", "continue", "debugger", "declare", "default", "delete",
        "do", "else", "enum", "export", "extends", "false", "finally", "for", "from", "function", "get", "if", "implements", "import", "in",
        "instanceof", "interface", "keyof", "let", "namespace", "new", "null", "of", "private", "protected", "public", "readonly", "return",
        "satisfies", "set", "static", "super", "switch", "this", "throw", "true", "try", "type", "typeof", "undefined", "var", "void", "while",
        "with", "yield",
    ]

    static let pythonKeywords: Set<String> = [
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "case", "class", "continue", "def", "del", "elif", "else",
        "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "match", "nonlocal", "not", "or", "pass", "raise",
        "return", "self", "try", "while", "with", "yield",
    ]

    static let shellKeywords: Set<String> = [
        "case", "declare", "do", "done", "elif", "else", "esac", "exit", "export", "fi", "for", "function", "if", "in", "local", "readonly",
        "return", "select", "set", "shift", "source", "then", "unset", "until", "while",
    ]
}
