import FenceEngine
import Testing

@Suite struct JSONObjectTests {
  @Test func membersKeepTheirOrder() {
    let object = JSONObject([(key: "b", value: .number(1)), (key: "a", value: .string("x"))])
    #expect(object.keys == ["b", "a"])
    #expect(object["a"] == .string("x"))
    #expect(object["missing"] == nil)
  }

  @Test func aRepeatedKeyKeepsItsFirstPositionAndItsLastValue() {
    let object = JSONObject([
      (key: "a", value: .number(1)), (key: "b", value: .number(2)), (key: "a", value: .number(3)),
    ])
    #expect(object.keys == ["a", "b"])
    #expect(object["a"] == .number(3))
    #expect(object == ["a": .number(3), "b": .number(2)])
  }

  @Test func manyKeysAreAllKept() {
    let members = (0..<20_000).map { (key: "k\($0)", value: JSONValue.number(Double($0))) }
    let object = JSONObject(members + [(key: "k7", value: .null)])
    #expect(object.count == 20_000)
    #expect(object.keys.first == "k0")
    #expect(object.keys.last == "k19999")
    #expect(object["k7"] == .null)
  }

  @Test func settingNilRemovesAMember() {
    var object: JSONObject = ["a": .bool(true), "b": .null]
    object["a"] = nil
    #expect(object.keys == ["b"])
  }
}
