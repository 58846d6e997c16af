import Yams

/// Finds where a key written twice in one section appears the second time.
///
/// Yams stops at a repeated key and marks only its first occurrence, while the line an admin
/// should look at is usually the later one. So the first occurrence is renamed in the text and the
/// text parsed again: libyaml itself then finds the second, in the same section, whatever the
/// layout (flow mappings, CRLF line ends, a third occurrence). Nothing here parses YAML by hand.
enum YAMLDuplicateKey {
    /// The second occurrence: its dotted key, its line and its value when it is a single one.
    struct Occurrence {
        var key: String
        var line: Int
        var value: String?
    }

    /// Renamed keys start with this, followed by a number and a dash.
    private static let marker = "herald-duplicate-"

    /// The second occurrence of `name`, whose first occurrence is at `first`; nil when the text
    /// cannot be parsed once the first is renamed (then only the first line is known).
    static func locate(_ name: String, first: Mark, in text: String,
                       budget: Duration = .milliseconds(400)) -> Occurrence? {
        var text = text
        var mark = first
        // Each round parses the whole text again: a large file with many repeated names would
        // take a round for each. Past the budget only the first occurrence is named.
        let deadline = ContinuousClock.now + budget
        // Each round renames one occurrence Yams complained about, until the text parses: other
        // repeated keys, before or after this one, are renamed too and then skipped.
        for round in 0..<64 where round == 0 || ContinuousClock.now < deadline {
            guard let index = mark.index(in: text) else { return nil }
            text.unicodeScalars.insert(contentsOf: "\(marker)\(round)-".unicodeScalars, at: index)
            do {
                guard let root = try Parser(yaml: text, resolver: YAMLLayout.resolver, encoding: .utf8).singleRoot() else { return nil }
                return find(name, renamedAs: "\(marker)0-", in: root, prefix: "")
            } catch YamlError.duplicatedKeysInMapping(_, let context) {
                mark = context.mark
            } catch {
                return nil
            }
        }
        return nil
    }

    /// In the section holding the key renamed `renamed`, the next key that is `name`, renamed or not.
    private static func find(_ name: String, renamedAs renamed: String, in node: Node, prefix: String) -> Occurrence? {
        switch node {
        case .mapping(let mapping):
            let keys = mapping.map { $0.0.string ?? "" }
            if let first = keys.firstIndex(where: { $0.hasPrefix(renamed) }),
               let second = keys.indices.first(where: { $0 != first && original(keys[$0]) == name }) {
                let (keyNode, value) = Array(mapping)[second]
                let key = prefix.isEmpty ? name : "\(prefix).\(name)"
                return keyNode.mark.map { Occurrence(key: key, line: $0.line, value: value.scalar?.string) }
            }
            for (keyNode, value) in mapping {
                let key = original(keyNode.string ?? "?")
                if let found = find(name, renamedAs: renamed, in: value, prefix: prefix.isEmpty ? key : "\(prefix).\(key)") {
                    return found
                }
            }
            return nil
        case .sequence(let sequence):
            return sequence.lazy.compactMap { find(name, renamedAs: renamed, in: $0, prefix: prefix) }.first
        case .scalar, .alias:
            return nil
        }
    }

    /// `key` as the file wrote it, without the marker a round put before it (and the quotes a
    /// quoted key then shows, the marker having made it a plain scalar).
    private static func original(_ key: String) -> String {
        guard key.hasPrefix(marker) else { return key }
        let afterMarker = key.dropFirst(marker.count).drop { $0.isNumber }.dropFirst()
        let quotes: Set<Character> = ["\"", "'"]
        if afterMarker.count >= 2, let open = afterMarker.first, quotes.contains(open), afterMarker.last == open {
            return String(afterMarker.dropFirst().dropLast())
        }
        return String(afterMarker)
    }
}

extension Mark {
    /// The position of this mark in `text`, counted as libyaml counts: lines end at LF, CR, CRLF,
    /// NEL, LS or PS, and columns are Unicode scalars.
    func index(in text: String) -> String.UnicodeScalarView.Index? {
        let scalars = text.unicodeScalars
        var line = 1, column = 1
        var previous: Unicode.Scalar?
        var index = scalars.startIndex
        while index < scalars.endIndex {
            if line == self.line && column == self.column { return index }
            let scalar = scalars[index]
            switch scalar {
            case "\n" where previous == "\r":
                break  // The second half of CRLF: the line already ended at the CR.
            case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}":
                line += 1
                column = 1
            default:
                column += 1
            }
            previous = scalar
            index = scalars.index(after: index)
        }
        return line == self.line && column == self.column ? index : nil
    }
}
