import FenceEngine
import Testing

@testable import FenceFormats

@Suite struct JSONReaderTests {
  @Test func objectKeysKeepTheirOrder() throws {
    let value = try JSONReader.parse(#"{"b":1,"a":[true,false,null],"c":{"z":"x","y":-2.5e3}}"#)
    let expected: JSONValue = .object([
      "b": .number(1),
      "a": .array([.bool(true), .bool(false), .null]),
      "c": .object(["z": .string("x"), "y": .number(-2500)]),
    ])
    #expect(value == expected)
    guard case .object(let object) = value else { Issue.record("not an object"); return }
    #expect(object.keys == ["b", "a", "c"])
  }

  @Test func stringEscapesAndSurrogatePairsDecode() throws {
    let value = try JSONReader.parse(#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00é""#)
    #expect(value == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té😀é"))
  }

  @Test func numbersAreCorrectlyRounded() throws {
    let texts = ["0", "-0", "40.6442", "-74.07166", "1e-7", "1.7976931348623157e308",
                 "123456789012345678901234567890", "0.1", "5e-324", "2.2250738585072014e-308"]
    for text in texts {
      #expect(try JSONReader.parse(text) == .number(Double(text)!), "\(text)")
    }
  }

  @Test func writerOutputReadsBackToTheSameValue() throws {
    let value: JSONValue = .object([
      "name": .string("St. \"George\"\n\u{01}"), "n": .number(300), "x": .number(40.6442),
      "tiny": .number(1e-05), "list": .array([.null, .bool(true), .number(-2)]),
      "nested": .object(["é": .string("😀")]),
    ])
    let text = JSONWriter.string(value)
    #expect(text == #"{"name":"St. \"George\"\n\u0001","n":300,"x":40.6442,"tiny":1e-05,"list":[null,true,-2],"nested":{"é":"😀"}}"#)
    #expect(try JSONReader.parse(text) == value)
  }

  @Test func numberTextIsIntegralOnlyForWholeNumbersBelow2To53() {
    #expect(JSONWriter.numberText(754) == "754")
    #expect(JSONWriter.numberText(-3) == "-3")
    #expect(JSONWriter.numberText(0.5) == "0.5")
    #expect(JSONWriter.numberText(9_007_199_254_740_992) == "9007199254740992.0")
    #expect(JSONWriter.numberText(1e300) == "1e+300")
    #expect(JSONWriter.numberText(.nan) == "null")
    #expect(JSONWriter.decimalNumberText(754) == "754.0")
    #expect(JSONWriter.decimalNumberText(754.25) == "754.25")
  }

  struct ErrorCase: CustomTestStringConvertible, Sendable {
    let text: String
    let line: Int
    let column: Int
    let message: String
    var testDescription: String { message }
  }

  @Test(arguments: [
    ErrorCase(text: "{\"a\":1,}", line: 1, column: 8, message: "expected a string key in object, found '}'"),
    ErrorCase(text: "[1,\n  2,\n  x]", line: 3, column: 3, message: "expected a JSON value, found 'x'"),
    ErrorCase(text: "{\"é\": 01}", line: 1, column: 8, message: "a number must not have leading zeros"),
    ErrorCase(text: "\"abc", line: 1, column: 1, message: "unterminated string"),
    ErrorCase(text: "[1] 2", line: 1, column: 5, message: "unexpected '2' after the JSON value"),
    ErrorCase(text: "", line: 1, column: 1, message: "expected a JSON value, found the end of the input"),
    ErrorCase(text: "\"\\ud800\"", line: 1, column: 2, message: "unpaired UTF-16 surrogate in \\u escape"),
    ErrorCase(text: "\"a\tb\"", line: 1, column: 3, message: "control character 0x9 in string must be escaped"),
    ErrorCase(text: "[1e400]", line: 1, column: 2, message: "number out of range"),
    ErrorCase(text: "{\"a\" 1}", line: 1, column: 6, message: "expected ':' after object key, found '1'"),
    ErrorCase(text: "tru", line: 1, column: 1, message: "expected a JSON value, found 't'"),
  ])
  func errorsNameLineAndColumn(_ c: ErrorCase) {
    #expect(throws: JSONParseError(line: c.line, column: c.column, offset: errorOffset(c), message: c.message)) {
      try JSONReader.parse(c.text)
    }
  }

  private func errorOffset(_ c: ErrorCase) -> Int {
    // The byte offset of (line, column) in the case's text.
    var line = 1
    var column = 1
    var offset = 0
    for byte in c.text.utf8 {
      if line == c.line && column == c.column { return offset }
      offset += 1
      if byte == 0x0A {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
    }
    return offset
  }

  @Test func deepNestingIsAnErrorNotACrash() {
    let text = String(repeating: "[", count: 100_000)
    #expect(throws: JSONParseError.self) { try JSONReader.parse(text) }
  }

  @Test func invalidUTF8InAStringIsAnError() {
    let bytes: [UInt8] = [0x22, 0xFF, 0x22]
    #expect(throws: JSONParseError(line: 1, column: 1, offset: 0, message: "string is not valid UTF-8")) {
      try JSONReader.parse(bytes)
    }
  }
}
