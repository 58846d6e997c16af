import Yams

extension YAMLLayout {
    /// A node carrying an anchor (`&name`), with the key that holds it.
    struct Anchored {
        var key: String
        var line: Int?
        var name: String
    }

    /// Every anchor in the tree, once, where it is defined. An alias (`*name`) is a copy of the
    /// anchored node, mark included, so the lines of the aliases themselves are not known.
    static func anchors(in root: Node) -> [Anchored] {
        var found: [Anchored] = []
        var seen: Set<ObjectIdentifier> = []
        func visit(_ node: Node, key: String) {
            if let anchor = node.anchor, seen.insert(ObjectIdentifier(anchor)).inserted {
                found.append(Anchored(key: key, line: node.mark?.line, name: anchor.rawValue))
            }
            switch node {
            case .mapping(let mapping):
                for (keyNode, value) in mapping {
                    let name = keyNode.string ?? "?"
                    visit(keyNode, key: key)
                    visit(value, key: key.isEmpty ? name : "\(key).\(name)")
                }
            case .sequence(let sequence):
                sequence.forEach { visit($0, key: key) }
            case .scalar, .alias:
                break
            }
        }
        visit(root, key: "")
        return found
    }

    /// Anchors are refused rather than expanded: a value written once and used in several places
    /// would have its errors reported at one line for all of them.
    static func noAnchors(_ name: String?) -> String {
        let named = name.map { "&\($0) here and *\($0) where it is used" } ?? "*name"
        return "anchors and aliases are not supported; write the value out in full instead of \(named)"
    }

    /// What to write instead of a dotted key: `'safeguard:' then '  min_volume: 40%'`.
    static func writeNested(_ name: String, value: Node) -> String {
        let parts = name.split(separator: ".")
        guard parts.count > 1 else {
            return "a key name cannot contain a dot; see Config/herald.yaml for the known keys"
        }
        let shownValue = value.scalar.map { $0.string.isEmpty ? "" : " \($0.string)" } ?? ""
        let lines = parts.enumerated().map { index, part in
            let indent = String(repeating: " ", count: 2 * index)
            return index == parts.count - 1 ? "'\(indent)\(part):\(shownValue)'" : "'\(indent)\(part):'"
        }
        return "a dot does not nest keys; write it nested, each part on its own line: \(lines.joined(separator: " then "))"
    }

    /// libyaml's complaint about `error`, with its line and what to do about it.
    static func problem(for error: any Error, text: String, file: String) -> ConfigProblem {
        switch error {
        case YamlError.duplicatedKeysInMapping(let duplicates, let context):
            // Yams marks the first occurrence of the first name it lists.
            let name = duplicates.first ?? "?"
            guard let second = YAMLDuplicateKey.locate(name, first: context.mark, in: text) else {
                return ConfigProblem(file: file, line: context.mark.line, key: name,
                                     message: "written more than once in the same section (first on this line); keep one and delete the others")
            }
            let value = second.value.map { " ('\($0)')" } ?? ""
            return ConfigProblem(file: file, line: second.line, key: second.key,
                                 message: "written twice in the same section, on line \(context.mark.line) and again here\(value); keep one and delete the other")
        case YamlError.scanner(let context, let problem, let mark, _), YamlError.parser(let context, let problem, let mark, _),
             YamlError.composer(let context, let problem, let mark, _):
            if problem.contains("undefined alias") {
                return ConfigProblem(file: file, line: mark.line, key: "", message: noAnchors(nil))
            }
            let index = mark.index(in: text)
            let character = index.flatMap { $0 < text.unicodeScalars.endIndex ? text.unicodeScalars[$0] : nil }
            // At the end of the file, past every line, libyaml is still inside a quote or bracket;
            // its context says where that opened.
            if character == nil, let opened = context?.mark {
                return ConfigProblem(file: file, line: opened.line, key: "",
                                     message: "not valid YAML (\(problem)); the quote or bracket opened on this line is not closed; close it")
            }
            return ConfigProblem(file: file, line: mark.line, key: "",
                                 message: "not valid YAML (\(problem)); \(advice(problem, at: character))")
        case YamlError.reader(let problem, let offset, let value, _):
            // libyaml counts the offset in bytes of the UTF-8 it was given.
            let line = offset.map { ConfigFileText.line(at: $0, in: Array(text.utf8)) }
            let code = value >= 0 ? " (character code \(value))" : ""
            return ConfigProblem(file: file, line: line, key: "",
                                 message: "not plain text: \(problem)\(code); delete that character, or save the file as plain UTF-8 text")
        default:
            return ConfigProblem(file: file, line: nil, key: "",
                                 message: "not valid YAML (\(error)); compare it with Config/herald.yaml")
        }
    }

    /// What usually causes libyaml's `problem`, said as what to change.
    private static func advice(_ problem: String, at character: Unicode.Scalar?) -> String {
        if character == "\t" || problem.contains("tab") {
            return "indent with spaces, not tabs"
        }
        let advice: [(String, String)] = [
            ("mapping values are not allowed", "a value holds ': ' or the line is indented deeper than the keys beside it; put the value in quotes, or line up the indentation"),
            ("could not find expected ':'", "a line is not key: value; add the colon, or close the quote or bracket opened above"),
            ("did not find expected key", "the indentation does not line up with the keys above; indent each level by two spaces"),
            ("another document", "the file holds more than one document; remove the second '---' and keep one set of keys"),
            ("unknown escape character", "in double quotes a backslash starts an escape; use single quotes, or write \\\\ for one backslash"),
            ("cannot start any token", "a value starting with @ or ` needs quotes"),
            ("block sequence entries are not allowed", "a '- item' stands where a single value belongs; put the list on the lines below the key, indented"),
        ]
        return advice.first { problem.contains($0.0) }?.1
            ?? "check the indentation (spaces, lined up with the keys beside it) and the quotes on this line and the one above"
    }
}
