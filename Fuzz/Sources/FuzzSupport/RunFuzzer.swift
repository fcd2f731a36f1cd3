import CLibFuzzer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The entry point of every fuzz target: hands the process's arguments (libFuzzer's flags,
/// corpus folders or inputs to replay) and `testOneInput` to libFuzzer's driver, and exits with
/// its status.
///
/// SwiftPM links an executable with its `main` renamed to the module's entry point and so never
/// uses libFuzzer's own `main`; the targets therefore have an `@main` that calls this. Built
/// without SwiftPM (`swiftc -sanitize=fuzzer`), libFuzzer's `main` finds the target's exported
/// `LLVMFuzzerTestOneInput` instead; both run the same function.
public func runFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
  var argc = CommandLine.argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
  exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}
