/// What the hub's admin page and the fleet console's page share: their `<head>` and their style
/// (`PageStyle.swift`). Each page is HTML, CSS and JavaScript of its own, compiled into the binary,
/// and loads nothing from elsewhere.
package enum WebPage {
    /// The document's start up to `</head>`: the page's title, its stylesheet and its deferred
    /// script, both served from the page's own origin (the pages' Content-Security-Policy allows
    /// nothing else), and an empty icon so that the browser asks for no `/favicon.ico`.
    package static func head(title: String, stylesheet: String, script: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <link rel="stylesheet" href="\(stylesheet)">
        <link rel="icon" href="data:,">
        <script src="\(script)" defer></script>
        </head>

        """
    }
}
