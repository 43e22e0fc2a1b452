import Yams

/// YAML as ralph reads it: ralph's parser (serde_yaml) follows the YAML 1.2 core schema, where only `true`/`false`
/// are booleans (`yes`, `no`, `on`, `off` stay strings) and dates stay strings. Yams' default is YAML 1.1.
public enum RalphYAML {
    static let resolver: Resolver = Resolver.basic
        .appending(try! Resolver.Rule(.bool, "^(?:true|True|TRUE|false|False|FALSE)$"))
        .appending(try! Resolver.Rule(.int, "^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"))
        .appending(
            try! Resolver.Rule(.float, "^(?:[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$")
        )
        .appending(.null)

    /// A mapping key that is not a scalar (`[a]: b`, `? {a: b}`): Yams traps on one when it builds the value, and
    /// ralph (serde_yaml, string keys) refuses such a file too.
    public struct NonScalarKey: Error, CustomStringConvertible {
        /// 1-based line of the key, when known.
        public let line: Int?

        public var description: String { "a mapping key must be a plain value, not a list or a mapping" + (line.map { " (line \($0))" } ?? "") }
    }

    /// Parses one YAML document.
    public static func load(_ text: String) throws -> Any? {
        guard let node = try Yams.compose(yaml: text, resolver) else { return nil }
        try requireScalarKeys(node)
        return node.any
    }

    /// Throws ``NonScalarKey`` for the first mapping key in `node` that is not a scalar.
    static func requireScalarKeys(_ node: Node) throws(NonScalarKey) {
        switch node {
        case .scalar, .alias:
            return
        case .sequence(let sequence):
            for item in sequence { try requireScalarKeys(item) }
        case .mapping(let mapping):
            for (key, value) in mapping {
                guard case .scalar = key else { throw NonScalarKey(line: key.mark?.line) }
                try requireScalarKeys(value)
            }
        }
    }

    /// Parses one YAML document that must be a mapping; nil otherwise.
    public static func mapping(_ text: String) -> [String: Any]? {
        (try? load(text)) as? [String: Any]
    }
}
