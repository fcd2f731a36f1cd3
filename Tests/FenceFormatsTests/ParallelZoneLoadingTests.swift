import FenceEngine
import Foundation
import Testing

@testable import FenceFormats

/// Large zone files are read in parts on several threads (`loadFeaturesInParallel`): the zones
/// must be exactly those of reading every feature in order, and every error the one that
/// reading finds.
@Suite struct ParallelZoneLoadingTests {
  /// `count` features: circles, polygons and GEOLINEs in 9 zones that span the whole file (so
  /// the shared zones have features in every part), with rules and custom data given by
  /// several features, plus one zone of its own for every other feature.
  static func collection(count: Int, extraFeature: String? = nil, at extraIndex: Int = 0) -> String {
    var features: [String] = []
    for index in 0..<count {
      let lat = 40.0 + Double(index % 100) * 0.001
      let lon = -74.0 + Double(index / 100) * 0.001
      let isShared = index < 100 || index % 97 == 0
      let zone = isShared ? "\"zone\":\"shared-\(index % 9)\"," : ""
      let rules = index % 9 == 3 ? "\"dwell\":60,\"minimumRetriggerTime\":30," : ""
      let data =
        (index % 5 == 0 ? "\"key\(index % 3)\":\"value\(index % 3)\"," : "")
        + (isShared && index >= 1_000 ? "\"late\":true," : "")
      let geometry: String
      switch index % 3 {
      case 0:
        geometry = "{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]}"
      case 1:
        let d = 0.0003
        geometry = "{\"type\":\"Polygon\",\"coordinates\":[[[\(lon),\(lat)],[\(lon + d),\(lat)],[\(lon + d),\(lat + d)],[\(lon),\(lat + d)],[\(lon),\(lat)]]]}"
      default:
        geometry = "{\"type\":\"LineString\",\"coordinates\":[[\(lon),\(lat)],[\(lon + 0.0005),\(lat + 0.0005)]]}"
      }
      // Names are custom data too: only zones of one feature get one.
      let name = isShared ? "\"kind\":\"shared\"" : "\"name\":\"n\(index)\""
      let radius = index % 3 == 0 && index % 2 == 0 ? "\"radius\":\(50 + index % 7)," : ""
      features.append(
        "{\"type\":\"Feature\",\"id\":\"f\(index)\",\"properties\":{\(zone)\(rules)\(data)\(radius)\(name)},\"geometry\":\(geometry)}")
      if let extraFeature, index == extraIndex { features.append(extraFeature) }
    }
    return "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}"
  }

  /// The zones of `text` read with parts (`parallel`) or feature by feature.
  static func load(_ text: String, parallel: Bool) throws -> [Zone] {
    let tape = try JSONReader.tape(Array(text.utf8))
    var loading = try ZoneLoading(tape: tape, file: "test.geojson", options: ZoneLoadOptions())
    let featuresNode = try #require(tape.member(0, "features"))
    let features = tape.elements(featuresNode)
    if parallel {
      // Three parts whatever the machine's processors.
      let joined = loading.loadFeaturesInParallel(
        count: features.count, parts: 3,
        load: { loading, index in try loading.loadFeature(features[index], index: index) })
      #expect(joined)
    } else {
      for (index, node) in features.enumerated() { try loading.loadFeature(node, index: index) }
    }
    return try loading.drafts.map { try loading.makeZone($0) }
  }

  @Test func partsGiveTheZonesOfOneReading() throws {
    let text = Self.collection(count: 5_000)
    let parallel = try Self.load(text, parallel: true)
    let sequential = try Self.load(text, parallel: false)
    // 100 features in the first, then every 97th: 150 in 9 shared zones.
    #expect(parallel.count == 9 + 4_850)
    #expect(parallel == sequential)
    // And the public entry point (which takes the parallel path for this many features).
    let loaded = try ZoneLoader.loadZones(from: Array(text.utf8), file: "test.geojson")
    #expect(loaded == sequential)
    // shared-3: features 3, 12, …, 93, then 291, 1,164, 2,037, 2,910, 3,783 and 4,656 (97 k
    // with k ≡ 3 mod 9); "kind" from feature 3, "key0" from 30, "late" from 1,164.
    let shared = try #require(loaded.first { $0.id == "shared-3" })
    #expect(shared.rules.dwell == 60)
    #expect(shared.fences.count + shared.geolines.count == 11 + 6)
    #expect(shared.customData.members.map(\.key) == ["kind", "key0", "late"])
  }

  /// A conflict between parts, and a bad feature late in the file, give the message of reading
  /// in order.
  @Test func errorsAreThoseOfOneReading() throws {
    let cases: [(feature: String, at: Int, message: String)] = [
      // The same fence id as feature 10, near the end (in another part).
      ("{\"type\":\"Feature\",\"id\":\"f10\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[-73,40]}}", 4_500,
       "fence id \"f10\" is already used by feature 10"),
      // Feature 200's GEOLINE id (a zone of its own) in another zone, in a later part.
      ("{\"type\":\"Feature\",\"id\":\"f200\",\"properties\":{\"zone\":\"elsewhere\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[-73,40]}}", 4_400,
       "fence id \"f200\" is already used by feature 200"),
      // Feature 300's id (a zone of its own) as its own zone again, in a later part.
      ("{\"type\":\"Feature\",\"id\":\"f300\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[-73,40]}}", 4_300,
       "fence id \"f300\" is already used by feature 300"),
      // Feature 301's id in the zone named as it, given as `zone`, in a later part.
      ("{\"type\":\"Feature\",\"id\":\"f301\",\"properties\":{\"zone\":\"f301\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[-73,40]}}", 4_200,
       "fence id \"f301\" is already used by feature 301"),
      // Feature 50's id (in the zone shared-5) in another zone, in a later part.
      ("{\"type\":\"Feature\",\"id\":\"f50\",\"properties\":{\"zone\":\"elsewhere\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[-73,40]}}", 4_100,
       "fence id \"f50\" is already used by feature 50"),
      // A different dwell for a zone that feature 3 set to 60.
      ("{\"type\":\"Feature\",\"id\":\"late\",\"properties\":{\"zone\":\"shared-3\",\"dwell\":90},\"geometry\":{\"type\":\"Point\",\"coordinates\":[-73,40]}}", 4_000,
       "zone \"shared-3\" gets 90 here but 60 from feature 3"),
      // A radius out of range in the last part.
      ("{\"type\":\"Feature\",\"id\":\"bad\",\"properties\":{\"radius\":-1},\"geometry\":{\"type\":\"Point\",\"coordinates\":[-73,40]}}", 4_800,
       "expected a number of metres above 0"),
    ]
    for (feature, at, message) in cases {
      let text = Self.collection(count: 5_000, extraFeature: feature, at: at)
      let error = #expect(throws: ZoneLoadError.self) {
        try ZoneLoader.loadZones(from: Array(text.utf8), file: "test.geojson")
      }
      #expect(error?.featureIndex == at + 1, "\(feature)")
      #expect(error.map { "\($0)" }?.contains(message) == true, "\(String(describing: error))")
    }
  }

  /// A draft keeps its rarely given values in one box (16 bytes a draft less), and a copied
  /// draft changed afterwards leaves the original as it was. Its single fence is inline
  /// (``FenceList``): 104 bytes a draft, where a one-fence array took 96 beside a 48-byte draft.
  @Test func draftsBoxTheirRareValues() {
    #expect(MemoryLayout<ZoneLoading.Draft>.stride == 104)
    var first = ZoneLoading.Draft(id: "z")
    first.setSetting("dwell", (.number(60), .feature(index: 0, id: "a")))
    var second = first
    second.setSetting("dwell", (.number(90), .feature(index: 1, id: "b")))
    second.setCustomDataSource("team", .feature(index: 1, id: "b"))
    #expect(first.settings["dwell"]?.value == .number(60))
    #expect(second.settings["dwell"]?.value == .number(90))
    #expect(first.customDataSources.isEmpty && second.customDataSources.count == 1)
    #expect(ZoneLoading.Draft(id: "plain").settings.isEmpty)
  }

  /// The layout scan cuts out each feature, whatever its strings and brackets hold.
  @Test func theLayoutFindsEveryFeature() throws {
    let text = #" { "type" : "FeatureCollection", "features" : [ {"a":"]},[\"x"} ,["q",{"b":[1,{"c":"\"]"}]}], 7, "s" , null ] , "zones": {"z":{"dwell":1}} } "#
    let bytes = Array(text.utf8)
    let layout = try #require(bytes.withUnsafeBufferPointer { FeatureCollectionLayout($0) })
    let features = layout.features.map { String(decoding: bytes[$0], as: UTF8.self) }
    #expect(features == [#"{"a":"]},[\"x"}"#, #"["q",{"b":[1,{"c":"\"]"}]}]"#, "7", #""s""#, "null"])
    #expect(String(decoding: bytes[layout.featuresArray], as: UTF8.self).hasPrefix("[ {"))
    #expect(String(decoding: bytes[layout.featuresArray], as: UTF8.self).hasSuffix("null ]"))
  }

  /// What the scan does not understand makes it give up (the whole document is then parsed).
  @Test func theLayoutGivesUpOnWhatItDoesNotUnderstand() {
    let documents = [
      #"{"type":"FeatureCollection","feat\u0075res":[]}"#,  // an escaped key
      #"{"features":[],"features":[]}"#,  // features twice
      #"{"features":[{"a":1}"#,  // cut short
      #"{"features":[{"a":1}]} x"#,  // something after the document
      #"{"features":[{"a":1},]}"#,  // a trailing comma
      #"{"type":"FeatureCollection"}"#,  // no features
      #"["features"]"#,  // not an object
      "{\"features\":[" + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "]}",
    ]
    for document in documents {
      let layout = Array(document.utf8).withUnsafeBufferPointer { FeatureCollectionLayout($0) }
      #expect(layout == nil, "\(document)")
    }
  }

  /// A file read feature by feature gives the zones of parsing it whole, a top-level `zones`
  /// member included; a JSON error inside a feature keeps its line and column.
  @Test func readingFeatureByFeatureGivesTheZonesOfTheWholeDocument() throws {
    var text = Self.collection(count: 5_000)
    text.removeLast()
    text += #","zones":{"shared-4":{"dwell":120,"customData":{"team":"b"}}}}"#
    let bytes = Array(text.utf8)
    #expect(bytes.count < ZoneLoading.splitThreshold)  // so that loadZones(from:) parses it whole
    let split = try #require(bytes.withUnsafeBufferPointer {
      ZoneLoading.loadSplit($0, file: "test.geojson", options: ZoneLoadOptions())
    })
    let whole = try ZoneLoader.loadZones(from: bytes, file: "test.geojson")
    #expect(split == whole)
    #expect(whole.first { $0.id == "shared-4" }?.rules.dwell == 120)
    // Past the threshold (padding in a top-level member) the public entry reads it split.
    var large = text
    large.removeLast()
    large += #","padding":""# + String(repeating: " ", count: ZoneLoading.splitThreshold) + "\"}"
    #expect(try ZoneLoader.loadZones(from: Array(large.utf8), file: "test.geojson") == whole)
    // A bad number in feature 4,000 (line 4,002 of the file): the whole document's message.
    let broken = large.replacingOccurrences(of: #""id":"f3999","#, with: #""id":"f3999","x":01,"#)
    let error = #expect(throws: ZoneLoadError.self) {
      try ZoneLoader.loadZones(from: Array(broken.utf8), file: "test.geojson")
    }
    #expect(error.map { "\($0)" }?.contains("invalid JSON at line 4001, column") == true, "\(String(describing: error))")
  }
}
