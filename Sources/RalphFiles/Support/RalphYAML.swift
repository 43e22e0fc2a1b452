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

    /// Parses one YAML document.
    public static func load(_ text: String) throws -> Any? {
        try Yams.load(yaml: text, resolver)
    }

    /// Parses one YAML document that must be a mapping; nil otherwise.
    public static func mapping(_ text: String) -> [String: Any]? {
        (try? load(text)) as? [String: Any]
    }
}
