#if canImport(Glibc)
import Glibc
#endif

/// What identifies one version of a file: device, inode, size and modification time. A file
/// replaced (rename over it, a new recording saved) or rewritten in place gets a new stamp.
public struct FileStamp: Sendable, Hashable {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    public let modifiedSeconds: Int
    public let modifiedNanoseconds: Int

    /// The stamp of the file at `path` now; nil when it cannot be read.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = info.st_mtim.tv_sec
        modifiedNanoseconds = info.st_mtim.tv_nsec
    }
}
