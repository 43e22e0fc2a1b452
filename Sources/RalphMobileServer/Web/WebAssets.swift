import Crypto
import Foundation
import NIOCore
import RalphAPI
import RalphFiles

/// The web dashboard's files: HTML, CSS, JavaScript modules, the manifest and icons.
///
/// They ship as a SwiftPM resource of this module (`Resources/web`), are read once at startup and served from memory
/// with strong ETags. `--web-root <dir>` serves a directory instead, read on every request, for editing the dashboard
/// without rebuilding the server.
public struct WebAssets: Sendable {
    public struct Asset: Sendable {
        public let body: ByteBuffer
        public let contentType: String
        /// Strong ETag: a quoted prefix of the content's SHA-256.
        public let etag: String

        init(body: ByteBuffer, contentType: String, etag: String) {
            self.body = body
            self.contentType = contentType
            self.etag = etag
        }

        /// `data` served as `contentType`, its ETag computed.
        init(_ data: Data, contentType: String) {
            self.init(body: ByteBuffer(bytes: data), contentType: contentType, etag: WebAssets.etag(of: data))
        }
    }

    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    enum Source: Sendable {
        case memory([String: Asset])
        case directory(String)
        /// The bundled files were not found; why, for the error every web route then returns.
        case missing(String)
    }

    static let bundleName = "ralph-mobile_RalphMobileServer.resources"
    static let maxFileSize = 4 << 20

    let source: Source

    /// Loads the bundled dashboard, or serves `directory` when given (it must exist).
    public init(directory: String?) throws(LoadError) {
        if let directory {
            guard let real = FileSystem.realPath(directory), FileSystem.status(real)?.isDirectory == true else {
                throw LoadError(description: "--web-root \(directory) is not an existing directory")
            }
            guard FileSystem.status(real + "/index.html") != nil else {
                throw LoadError(description: "--web-root \(directory) has no index.html")
            }
            source = .directory(real)
            return
        }
        guard let root = Self.bundledRoot() else {
            source = .missing("the dashboard's files (\(Self.bundleName)/web) were not found next to the server executable")
            return
        }
        source = .memory(Self.loadTree(root))
    }

    /// Where the bundled `web` directory is: beside the running executable (how SwiftPM lays out a build, and how an
    /// install must copy it), or in the app bundle on Apple platforms.
    static func bundledRoot() -> String? {
        bundledDirectory("web", containing: "index.html")
    }

    /// Where the bundled resource directory `name` (holding `marker`) is: beside the running executable, or in the app
    /// bundle on Apple platforms.
    static func bundledDirectory(_ name: String, containing marker: String) -> String? {
        var candidates: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((exe as NSString).deletingLastPathComponent + "/" + bundleName + "/" + name)
        }
        candidates.append(Bundle.main.bundlePath + "/" + bundleName + "/" + name)
        if let executable = Bundle.main.executablePath {
            candidates.append((executable as NSString).deletingLastPathComponent + "/" + bundleName + "/" + name)
        }
        #if canImport(Darwin)
        candidates.append(Bundle.main.bundlePath + "/ralph-mobile_RalphMobileServer.bundle/Contents/Resources/" + name)
        candidates.append(Bundle.main.bundlePath + "/ralph-mobile_RalphMobileServer.bundle/" + name)
        #endif
        return candidates.first { FileSystem.status($0 + "/" + marker) != nil }
    }

    /// Every regular file under `root`, keyed by its path relative to `root`.
    static func loadTree(_ root: String) -> [String: Asset] {
        var assets: [String: Asset] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return assets }
        while let relative = enumerator.nextObject() as? String {
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            if let asset = load(root + "/" + relative) { assets[relative] = asset }
        }
        return assets
    }

    static func load(_ path: String) -> Asset? {
        guard FileSystem.status(path)?.isDirectory == false, let bytes = FileSystem.readSmallFile(path, limit: maxFileSize) else { return nil }
        return Asset(Data(bytes), contentType: contentType(for: path))
    }

    /// A strong ETag for `data`: a quoted prefix of its SHA-256.
    static func etag(of data: Data) -> String {
        "\"" + SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }

    static func contentType(for path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "webmanifest": "application/manifest+json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    /// The asset at `relative` (no leading slash): nil when there is none, an error when the dashboard is unavailable.
    public func asset(_ relative: String) throws(APIError) -> Asset? {
        let components = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.isEmpty, !components.contains(where: { $0.isEmpty || $0.hasPrefix(".") }) else { return nil }
        switch source {
        case .memory(let assets):
            return assets[relative]
        case .directory(let root):
            guard let real = FileSystem.realPath(root + "/" + relative), real.hasPrefix(root + "/") else { return nil }
            return Self.load(real)
        case .missing(let why):
            throw .other(.serviceUnavailable, .unavailable, "\(why); reinstall the server with its resources, or pass --web-root <dir>")
        }
    }

    /// Whether the dashboard can be served.
    public var isAvailable: Bool {
        if case .missing = source { return false }
        return true
    }
}
