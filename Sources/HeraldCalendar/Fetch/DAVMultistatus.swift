import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What a CalDAV server's `207 Multi-Status` answer says (RFC 4918, RFC 4791): per resource, its
/// properties with a 200 status. Read with Foundation's XMLParser (libxml2), namespaces resolved,
/// so `D:`, `d:` or no prefix at all read the same.
struct DAVMultistatus {
    struct Response: Equatable {
        var href = ""
        /// `{namespace}name` to its text, for the properties found (status 200).
        var properties: [String: String] = [:]
    }

    static let dav = "DAV:"
    static let caldav = "urn:ietf:params:xml:ns:caldav"
    static let calendarServer = "http://calendarserver.org/ns/"

    var responses: [Response]

    /// Nil when `data` is not a multistatus document.
    init?(_ data: Data) {
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = reader
        guard parser.parse(), reader.sawMultistatus else { return nil }
        responses = reader.responses
    }

    /// The first response's property `{namespace}name` (a collection's own, for a Depth 0 PROPFIND).
    func first(_ namespace: String, _ name: String) -> String? {
        responses.lazy.compactMap { $0.properties["{\(namespace)}\(name)"] }.first
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var responses: [Response] = []
        var sawMultistatus = false
        private var current: Response?
        private var found: [String: String] = [:]
        private var path: [String] = []
        private var text = ""
        private var status = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            let key = "{\(namespaceURI ?? "")}\(name)"
            path.append(key)
            text = ""
            switch key {
            case "{DAV:}multistatus": sawMultistatus = true
            case "{DAV:}response": current = Response()
            case "{DAV:}propstat": (found, status) = ([:], "")
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, foundCDATA block: Data) { text += String(decoding: block, as: UTF8.self) }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let key = "{\(namespaceURI ?? "")}\(name)"
            defer { path.removeLast() }
            let parent = path.dropLast().last
            switch key {
            case "{DAV:}href" where parent == "{DAV:}response": current?.href = text.trimmingCharacters(in: .whitespacesAndNewlines)
            case "{DAV:}status" where parent == "{DAV:}propstat": status = text
            case "{DAV:}propstat":
                // A property the server does not have comes back under a 404 propstat, empty.
                if status.contains(" 200") || status.isEmpty { current?.properties.merge(found) { _, new in new } }
            case "{DAV:}response":
                if let current { responses.append(current) }
                current = nil
            default:
                if parent == "{DAV:}prop" { found[key] = text.trimmingCharacters(in: .whitespacesAndNewlines) }
            }
            text = ""
        }
    }
}
