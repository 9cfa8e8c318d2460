import Hummingbird

/// The console's page, style and script: the plain files in `Console/Resources/`, compiled
/// into the binary by SwiftPM (`.embedInCode`, which generates `PackageResources` with one
/// byte array per file, named after the file: `index.html` → `index_html`). The release
/// tarball and the container image ship the binary alone, and nothing is fetched from
/// anywhere else at run time. Each response body is built once and shared by every request.
enum ConsoleAssets {
    /// One file as the console serves it.
    struct Asset: Sendable {
        let headers: HTTPFields
        let body: ByteBuffer

        init(_ bytes: [UInt8], type: String) {
            headers = [.contentType: type, .cacheControl: "no-cache", .init("X-Content-Type-Options")!: "nosniff"]
            body = ByteBuffer(bytes: bytes)
        }

        var response: Response { response(status: .ok) }

        func response(status: HTTPResponse.Status) -> Response {
            Response(status: status, headers: headers, body: .init(byteBuffer: body))
        }
    }

    /// The script's files in the order they run, served one after another as
    /// `/console/console.js`: shared helpers (whose `'use strict'` then covers every file),
    /// one file per page, then the router, which calls the pages. Each file ends with a newline.
    static let scriptFiles: [(name: String, bytes: [UInt8])] = [
        ("common.js", PackageResources.common_js),
        ("search.js", PackageResources.search_js),
        ("feed.js", PackageResources.feed_js),
        ("experiments.js", PackageResources.experiments_js),
        ("workers.js", PackageResources.workers_js),
        ("router.js", PackageResources.router_js),
    ]

    static let page = Asset(PackageResources.index_html, type: "text/html; charset=utf-8")
    /// What the console shows without a session: a form that posts the token (``AdminAccess``).
    static let login = Asset(PackageResources.login_html, type: "text/html; charset=utf-8")
    static let style = Asset(PackageResources.console_css, type: "text/css; charset=utf-8")
    static let script = Asset(scriptFiles.flatMap(\.bytes), type: "text/javascript; charset=utf-8")
}
