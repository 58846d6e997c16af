import Yams

/// Where each key sits in a YAML file, and which keys are unknown.
///
/// swift-configuration reads the values but keeps no line numbers and ignores unknown keys; this
/// pass over libyaml's node tree supplies both, so every error names its line.
struct YAMLLayout {
    /// Dotted key -> 1-based line.
    var lines: [String: Int] = [:]
    var problems: [ConfigProblem] = []
    /// The entries of open mappings (`speech.voices`), in file order.
    var mappings: [String: [(String, String)]] = [:]
    /// The items of lists (`cache.warm`).
    var listItems: [String: [String]] = [:]
    /// False when the text is not YAML at all, so no value can be read.
    var isParsable = true

    init(text: String, file: String) {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            problems.append(Self.problem(for: error, file: file))
            isParsable = false
            return
        } catch {
            problems.append(ConfigProblem(file: file, line: nil, key: "", message: "not valid YAML: \(error)"))
            isParsable = false
            return
        }
        guard let root else { return }  // An empty file: every default applies.
        guard case .mapping(let mapping) = root else {
            problems.append(ConfigProblem(file: file, line: root.mark?.line, key: "",
                                          message: "the top level must be a mapping of keys (key: value)"))
            isParsable = false
            return
        }
        walk(mapping, prefix: "", file: file)
    }

    private mutating func walk(_ mapping: Node.Mapping, prefix: String, file: String) {
        for (keyNode, value) in mapping {
            let name = keyNode.string ?? "?"
            let key = prefix.isEmpty ? name : "\(prefix).\(name)"
            let line = keyNode.mark?.line
            lines[key] = line
            if ConfigSchema.sections.contains(key) {
                if case .mapping(let nested) = value {
                    walk(nested, prefix: key, file: file)
                } else if case .scalar(let scalar) = value, scalar.string.isEmpty || scalar.string == "null" {
                    continue  // An empty section keeps its defaults.
                } else {
                    problems.append(ConfigProblem(file: file, line: line, key: key,
                                                  message: "must be a section of keys, not a single value"))
                }
            } else if let kind = ConfigSchema.keys[key] {
                switch (kind, value) {
                case (.scalar, .scalar), (.list, .sequence), (.openMapping, .mapping):
                    if case .mapping(let entries) = value { record(entries, prefix: key, file: file) }
                    if case .sequence(let items) = value { listItems[key] = items.map { $0.string ?? "" } }
                case (.list, .scalar(let scalar)) where scalar.string.isEmpty || scalar.string == "null":
                    listItems[key] = []
                case (.openMapping, .scalar(let scalar)) where scalar.string.isEmpty || scalar.string == "null":
                    continue
                case (.scalar, _):
                    problems.append(ConfigProblem(file: file, line: line, key: key,
                                                  message: "must be a single value, not a list or section"))
                case (.list, _):
                    problems.append(ConfigProblem(file: file, line: line, key: key, message: "must be a list (- item)"))
                case (.openMapping, _):
                    problems.append(ConfigProblem(file: file, line: line, key: key,
                                                  message: "must be a section of name: value pairs"))
                }
            } else {
                if let replacement = ConfigSchema.replaced[key] {
                    problems.append(ConfigProblem(file: file, line: line, key: key,
                                                  message: "no longer read; use \(replacement) instead"))
                    continue
                }
                let hint = ConfigSchema.suggestion(for: key).map { "; did you mean '\($0)'?" }
                    ?? "; see Config/herald.yaml for the known keys"
                problems.append(ConfigProblem(file: file, line: line, key: key, message: "unknown key\(hint)"))
            }
        }
    }

    /// Records the entries of an open mapping (name: value) with their lines.
    private mutating func record(_ mapping: Node.Mapping, prefix: String, file: String) {
        var entries: [(String, String)] = []
        for (keyNode, value) in mapping {
            let name = keyNode.string ?? "?"
            lines["\(prefix).\(name)"] = keyNode.mark?.line
            guard case .scalar(let scalar) = value else {
                problems.append(ConfigProblem(file: file, line: keyNode.mark?.line, key: "\(prefix).\(name)",
                                              message: "must be a single value"))
                continue
            }
            entries.append((name, scalar.string))
        }
        mappings[prefix] = entries
    }

    private static func problem(for error: YamlError, file: String) -> ConfigProblem {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
             .composer(_, let problem, let mark, _):
            ConfigProblem(file: file, line: mark.line, key: "", message: "not valid YAML: \(problem)")
        default:
            ConfigProblem(file: file, line: nil, key: "", message: "not valid YAML: \(error)")
        }
    }
}
