/// Stops the process with `message` when a property a fuzz target checks does not hold.
///
/// The trap is what libFuzzer watches for: it saves the input that caused it as a crasher, so a
/// broken property is reported exactly like a crash in the code under test.
public func fuzzCheck(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
  file: StaticString = #fileID, line: UInt = #line
) {
  if !condition() { fatalError("fuzz property broken: \(message())", file: file, line: line) }
}
