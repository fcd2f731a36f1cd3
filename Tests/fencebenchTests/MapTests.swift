import FenceTestSupport
import Foundation
import Testing

/// `--map`: one self-contained page or picture.
@Suite struct MapTests {
  @Test func htmlMapIsOneSelfContainedPageWithTheRunsData() throws {
    let map = FenceBenchProcess.temporaryPath("map.html")
    let result = try FenceBenchProcess.run(
      ["run", "--zones", RunCommandTests.zones, RunCommandTests.firstHour, "--map", map])
    #expect(result.status == 0)
    let html = try String(contentsOfFile: map, encoding: .utf8)
    #expect(html.hasPrefix("<!DOCTYPE html>"))
    #expect(html.hasSuffix("</html>\n"))
    #expect(!html.contains("http://") && !html.contains("https://"))
    #expect(!html.contains("src=") && !html.contains("<link"))
    #expect(html.contains("<canvas id=\"canvas\">"))
    // Every fence, GEOLINE and event is in the page's data.
    for id in ["st-george-slips", "whitehall-slips", "governors-island-shore", "upper-bay-anchorage-area",
               "narrows-line", "kvk-line"] {
      #expect(html.contains("\"\(id)\""), "\(id)")
    }
    #expect(html.components(separatedBy: "\"kind\":\"checkIn\"").count - 1 == 36)
    #expect(html.components(separatedBy: "\"kind\":\"dwell\"").count - 1 == 9)
    #expect(html.contains("\"legend\":{\"zones\":6,\"fences\":4,\"fencesDrawn\":4,\"geolines\":2,\"devices\":295,"))
  }

  @Test func svgMapIsAStaticPictureWithEventTitles() throws {
    let map = FenceBenchProcess.temporaryPath("map.svg")
    let result = try FenceBenchProcess.run(
      ["run", "--zones", RunCommandTests.zones, RunCommandTests.firstHour, "--map", map])
    #expect(result.status == 0)
    let svg = try String(contentsOfFile: map, encoding: .utf8)
    #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
    #expect(svg.hasSuffix("</svg>\n"))
    // The only URL is the SVG namespace.
    #expect(svg.components(separatedBy: "http").count == 2)
    #expect(svg.contains("<title>{&quot;id&quot;:"))
    #expect(svg.components(separatedBy: "<polyline").count - 1 >= 2)
  }

  @Test func eventsBeyondTheBudgetAreASeededSampleInEmissionOrder() throws {
    func page() throws -> String {
      let map = FenceBenchProcess.temporaryPath("map.html")
      let result = try FenceBenchProcess.run(
        ["run", "--zones", RunCommandTests.zones, RunCommandTests.firstHour, "--map", map,
         "--map-events", "10"])
      #expect(result.status == 0)
      return try String(contentsOfFile: map, encoding: .utf8)
    }
    let html = try page()
    #expect(try page() == html)
    #expect(html.contains("\"events\":57,\"eventsDrawn\":10,"))
    // The legend counts every event by kind, drawn or not.
    #expect(html.contains("\"checkIn\":{\"count\":36,"))
    // The drawn events are whole golden lines, and the page holds them in the golden order.
    let golden = try String(
      contentsOfFile: fixturePath("golden/nyharbor-first-hour.ndjson"), encoding: .utf8
    ).split(separator: "\n")
    let drawn = golden.compactMap { html.range(of: Self.escapedInPage(String($0))) }
    #expect(drawn.count == 10)
    let offsets = drawn.map(\.lowerBound)
    #expect(offsets == offsets.sorted())
  }

  /// How an NDJSON line appears inside the page's JSON (as a JSON string).
  static func escapedInPage(_ field: String) -> String {
    field.replacingOccurrences(of: "\"", with: "\\\"")
  }
}
