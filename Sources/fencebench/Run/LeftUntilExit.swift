/// Values a command leaves to the end of the process instead of freeing them.
///
/// `fencebench` exits as soon as it has printed its summary. Freeing an evaluator of a million
/// fences object by object takes seconds; the operating system takes the whole address space
/// back at once. A value passed here is retained for the rest of the process.
enum LeftUntilExit {
  /// A box holding any value, retained once and never released.
  private final class Box<Value> {
    let value: Value
    init(_ value: Value) { self.value = value }
  }

  /// Retains `value` until the process exits.
  static func keep<Value>(_ value: Value) {
    _ = Unmanaged.passRetained(Box(value))
  }
}
