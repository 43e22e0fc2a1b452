import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small file only its owner may read (0600, in a 0700 directory), changed by read-modify-write under an exclusive
/// lock on `<path>.lock` and replaced atomically (written beside it, then renamed): the keys file and the pairing codes.
enum PrivateFile {
    /// Holds the lock while `body` reads the file and returns its new content (nil: leave it as it is), then writes
    /// that content. Failures of the lock or the write are `failure(<reason in words>)`.
    static func update<E: Error>(_ path: String, failure: (String) -> E, _ body: () throws(E) -> Data?) throws(E) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw failure("cannot create \(directory): \(error.localizedDescription)")
        }
        let lockFD = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else { throw failure("cannot open \(path).lock: \(String(cString: strerror(errno)))") }
        defer { close(lockFD) }
        guard flock(lockFD, LOCK_EX) == 0 else { throw failure("cannot lock \(path).lock: \(String(cString: strerror(errno)))") }
        defer { flock(lockFD, LOCK_UN) }
        guard let data = try body() else { return }
        let temp = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard FileManager.default.createFile(atPath: temp, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw failure("cannot create \(temp)")
        }
        chmod(temp, 0o600)
        guard rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw failure("cannot replace \(path): \(reason)")
        }
    }
}
