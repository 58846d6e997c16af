import Yams

/// Where each key sits in a YAML file, and which keys are unknown.
///
/// One pass over libyaml's node tree: the values and lists `ConfigValues` reads, the line of
/// every key and the unknown keys, so every error names its line.
struct YAMLLayout {
    /// Dotted key -> 1-based line.
    var lines: [String: Int] = [:]
    var problems: [ConfigProblem] = []
    /// The entries of open mappings (`speech.voices`), in file order.
    var mappings: [String: [(String, String)]] = [:]
    /// The items of lists (`cache.warm`).
    var listItems: [String: [String]] = [:]
    /// The single values of known keys and of open mappings' entries, by dotted key: what
    /// `ConfigValues` reads, from this one parse of the file.
    var values: [String: String] = [:]
    /// The named entries of record sections (`reminders.list`), in file order, with their lines.
    var records: [String: [(name: String, line: Int?, fields: Node.Mapping)]] = [:]
    /// The named lists of `namedLists` sections (`groups`), in file order, with their lines.
    var namedLists: [String: [(name: String, line: Int?, items: [String])]] = [:]
    /// False when no value can be read (not YAML, not a mapping, anchors): only `problems` count.
    var isParsable = true
    /// True for a file without keys (empty, comments only, `---`): every default applies.
    var isEmpty = false

    init(text: String, file: String) {
        let root: Node?
        let anchors: [Anchored]
        do {
            let parser = try Parser(yaml: text, resolver: Self.resolver, encoding: .utf8)
            root = try parser.singleRoot()
            // Nodes hold their anchors weakly; the parser keeps them alive until it goes.
            // No '&' in the text, no anchor: the walk is skipped for the usual file.
            let mayHoldAnchors = text.utf8.contains(UInt8(ascii: "&"))
            anchors = withExtendedLifetime(parser) { mayHoldAnchors ? root.map { Self.anchors(in: $0) } ?? [] : [] }
        } catch {
            problems.append(Self.problem(for: error, text: text, file: file))
            isParsable = false
            return
        }
        if anchors.isEmpty {
            layOut(root, file: file)
        } else {
            problems = anchors.map { ConfigProblem(file: file, line: $0.line, key: $0.key, message: Self.noAnchors($0.name)) }
            isParsable = false
        }
    }

    private mutating func layOut(_ root: Node?, file: String) {
        // `---` alone, or `~`, is a document holding null: as empty as a file of comments.
        guard let root, !Self.isNull(root) else {
            isEmpty = true
            return
        }
        guard case .mapping(let mapping) = root else {
            let found = root.scalar.map { "the single value '\($0.string)'" } ?? "a list"
            problems.append(ConfigProblem(file: file, line: root.mark?.line, key: "",
                                          message: "the file must hold key: value lines at the top level, as Config/herald.yaml does, not \(found)"))
            isParsable = false
            return
        }
        walk(mapping, prefix: "", file: file)
    }

    private mutating func walk(_ mapping: Node.Mapping, prefix: String, file: String) {
        for (keyNode, value) in mapping {
            let line = keyNode.mark?.line
            func problem(_ key: String, _ message: String) {
                problems.append(ConfigProblem(file: file, line: line, key: key, message: message))
            }
            guard case .scalar(let keyScalar) = keyNode else {
                problem(prefix, "a key must be a plain name such as min_volume, not a list or section")
                continue
            }
            let name = keyScalar.string
            let key = prefix.isEmpty ? name : "\(prefix).\(name)"
            // `safeguard.min_volume:` would be the same dotted key as the nested one and could
            // shadow it; refusing dots keeps one way to write each key.
            guard !name.contains(".") else {
                problem(key, Self.writeNested(name, value: value))
                continue
            }
            guard name != "<<" else {
                problem(key, "merge keys (<<) are not supported; write the keys out in full in this section")
                continue
            }
            lines[key] = line
            if ConfigSchema.sections.contains(key) {
                if case .mapping(let nested) = value {
                    walk(nested, prefix: key, file: file)
                } else if !Self.isBlank(value) {
                    let shown = value.scalar.map { " '\($0.string)'" } ?? ""
                    problem(key, "must be a section: write '\(name):' alone on its line and its keys indented below it, not the value\(shown) or a list")
                }  // An empty section keeps its defaults.
            } else if let kind = ConfigSchema.keys[key] {
                readKnown(key, kind: kind, value: value, line: line, file: file)
            } else if let replacement = ConfigSchema.replaced[key] {
                problem(key, "no longer read; use \(replacement) instead")
            } else {
                let hint = ConfigSchema.suggestion(for: key).map { "; did you mean '\($0)'?" }
                    ?? "; see Config/herald.yaml for the known keys"
                problem(key, "unknown key\(hint)")
            }
        }
    }

    private mutating func readKnown(_ key: String, kind: ConfigSchema.Kind, value: Node, line: Int?, file: String) {
        func problem(_ message: String) {
            problems.append(ConfigProblem(file: file, line: line, key: key, message: message))
        }
        switch (kind, value) {
        case (.scalar, .scalar(let scalar)):
            values[key] = scalar.string
        case (.list, .sequence(let items)):
            // Only single values are items: a list or section inside a list is refused, with its line.
            if let nested = items.first(where: { $0.scalar == nil }) {
                problems.append(ConfigProblem(file: file, line: nested.mark?.line, key: key,
                                              message: "each item must be a single value on its own '- ' line, not a list or section"))
            } else {
                listItems[key] = items.map { $0.string ?? "" }
            }
        case (.openMapping, .mapping(let entries)):
            record(entries, prefix: key, file: file)
        case (.openMappingOfSections, .mapping(let entries)):
            record(entries, prefix: key, file: file, sections: true)
        case (.records, .mapping(let entries)):
            var found: [(name: String, line: Int?, fields: Node.Mapping)] = []
            for (nameNode, fields) in entries {
                let entryLine = nameNode.mark?.line
                guard let name = nameNode.scalar?.string, case .mapping(let mapping) = fields else {
                    problems.append(ConfigProblem(file: file, line: entryLine, key: key,
                                                  message: "each entry must be a name followed by its fields indented below it (text:, schedule:, ...)"))
                    continue
                }
                lines["\(key).\(name)"] = entryLine
                recordLines(mapping, prefix: "\(key).\(name)")
                found.append((name, entryLine, mapping))
            }
            records[key] = found
        case (.namedLists, .mapping(let entries)):
            var found: [(name: String, line: Int?, items: [String])] = []
            for (nameNode, items) in entries {
                let entryLine = nameNode.mark?.line
                let name = nameNode.scalar?.string ?? ""
                lines["\(key).\(name)"] = entryLine
                switch items {
                case .sequence(let sequence) where sequence.allSatisfy({ $0.scalar != nil }):
                    found.append((name, entryLine, sequence.compactMap(\.scalar?.string)))
                case .scalar(let single) where !single.string.isEmpty:
                    found.append((name, entryLine, [single.string]))
                default:
                    problems.append(ConfigProblem(file: file, line: entryLine, key: "\(key).\(name)",
                                                  message: "must be a list of names, like [kitchen, living]"))
                }
            }
            namedLists[key] = found
        case (.namedLists, _) where Self.isBlank(value):
            namedLists[key] = []
        case (.namedLists, _):
            problem("must be a section of name: [member, ...] lines, indented below the key")
        case (.records, _) where Self.isBlank(value):
            records[key] = []
        case (.records, _):
            problem("must be a section of named entries, each with its fields indented below it")
        case (.list, _) where Self.isBlank(value):
            listItems[key] = []
        case (.openMapping, _) where Self.isBlank(value), (.openMappingOfSections, _) where Self.isBlank(value):
            break
        case (.scalar, _):
            problem("must be a single value on the same line (key: value), not a list or section")
        case (.list, _):
            problem("must be a list: one '- item' per line, indented below the key")
        case (.openMapping, _), (.openMappingOfSections, _):
            problem("must be a section of name: value lines, indented below the key")
        }
    }

    /// Records the entries of an open mapping (name: value) with their lines. The names are the
    /// user's (sink names such as alsa_output.pci-0000_00_1f.3.analog-stereo), so dots are kept.
    /// With `sections`, an entry may instead be a section of name: value lines, recorded as an
    /// open mapping of its own under the entry's key (and listed in this one with an empty value).
    private mutating func record(_ mapping: Node.Mapping, prefix: String, file: String, sections: Bool = false) {
        var entries: [(String, String)] = []
        for (keyNode, value) in mapping {
            let line = keyNode.mark?.line
            guard case .scalar(let keyScalar) = keyNode else {
                problems.append(ConfigProblem(file: file, line: line, key: prefix,
                                              message: "a name must be plain text, not a list or section"))
                continue
            }
            let key = "\(prefix).\(keyScalar.string)"
            lines[key] = line
            if sections, case .mapping(let nested) = value {
                record(nested, prefix: key, file: file)
                entries.append((keyScalar.string, ""))
                continue
            }
            guard case .scalar(let scalar) = value else {
                problems.append(ConfigProblem(file: file, line: line, key: key,
                                              message: sections ? "must be a single value on the same line (name: value) or a section of name: value lines indented below it"
                                                                : "must be a single value on the same line (name: value)"))
                continue
            }
            entries.append((keyScalar.string, scalar.string))
            values[key] = scalar.string
        }
        mappings[prefix] = entries
    }

    /// Lines of every field below a record entry, so its errors name their own line.
    private mutating func recordLines(_ mapping: Node.Mapping, prefix: String) {
        for (keyNode, value) in mapping {
            guard let name = keyNode.scalar?.string else { continue }
            lines["\(prefix).\(name)"] = keyNode.mark?.line
            if case .mapping(let nested) = value { recordLines(nested, prefix: "\(prefix).\(name)") }
        }
    }

    /// Every value is read as text (Herald parses numbers, sizes and durations itself), so the
    /// parser resolves no tags: Yams compares keys by their resolved tags, and with its default
    /// rules that runs seven regular expressions per key, the most of a large file's check.
    static let resolver = Resolver.basic

    /// `~`, `null`, `Null`, `NULL` or nothing, unquoted: YAML's null.
    static func isNull(_ node: Node) -> Bool {
        guard let scalar = node.scalar, scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// `key:` with nothing after it, `~`, `null` or `""`: the key keeps its default.
    private static func isBlank(_ node: Node) -> Bool {
        isNull(node) || node.scalar.map { $0.string.isEmpty || $0.string == "null" } == true
    }
}
