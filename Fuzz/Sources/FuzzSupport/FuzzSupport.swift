import CFuzzerDriver

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stops the fuzzer with `message` when `condition` is false: libFuzzer reports a deadly signal and writes the input
/// to a `crash-…` file, like any other crash.
///
/// The targets use it for properties that must hold for every input (a chunked parse equals a whole one, written
/// JSON parses back to the same value), so a wrong answer is found, not only a trap.
public func expect(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) {
    guard !condition() else { return }
    fatalError("fuzz property failed: \(message())", file: file, line: line)
}

/// Deterministic ways to cut one input into pieces, so a stream parser sees the same bytes in different chunkings.
///
/// The cuts are drawn from a generator seeded with a hash of the input: the same input always gives the same cuts,
/// which a reproduced crash needs.
public struct Chunking {
    private var state: UInt64

    /// A generator seeded from `bytes`.
    public init(seededBy bytes: UnsafeBufferPointer<UInt8>) {
        // FNV-1a, then never zero (xorshift stays at zero).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        state = hash | 1
    }

    /// The next pseudo-random number (xorshift64*).
    public mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_f491_4f6c_dd1d
    }

    /// Consecutive ranges covering `0..<count`, each 1 to `maxChunk` long.
    public mutating func ranges(count: Int, maxChunk: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < count {
            let length = 1 + Int(next() % UInt64(max(1, maxChunk)))
            let end = min(count, start + length)
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }
}

/// The input libFuzzer passes, as a buffer (empty when `size` is 0).
public func inputBuffer(_ data: UnsafePointer<UInt8>, _ size: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: size > 0 ? data : nil, count: size)
}

/// Runs libFuzzer on `testOneInput` with the process's arguments (libFuzzer's options, corpus directories, inputs)
/// and exits with its status.
///
/// A target's `main.swift` calls this: SwiftPM gives every executable a Swift entry point of its own, so the target
/// starts libFuzzer's driver itself instead of relying on the `main` in libFuzzer's runtime.
public func runFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}
