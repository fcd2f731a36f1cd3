import Foundation
import Testing

/// `--map`: the legend lists what is drawn, every layer has a toggle, the page has a time
/// window, and fences carry labels and details.
@Suite struct MapLegendTests {
  @Test func legendKindsAreTheKindsOfTheDrawnEvents() throws {
    let page = try MapPage.run(zones: [RunCommandTests.zones], tracks: [RunCommandTests.firstHour])
    #expect(
      page.data.legend.kinds == [
        "checkIn": MapPage.Kind(count: 36, drawn: 36), "checkOut": MapPage.Kind(count: 12, drawn: 12),
        "dwell": MapPage.Kind(count: 9, drawn: 9),
      ])
    #expect(page.data.legend.notDrawn == [:])
    #expect(Set(page.data.events.map(\.kind)) == Set(page.data.legend.kinds.keys))
    // Declaration order, as the legend's rows are built from it.
    #expect(page.html.contains("\"kinds\":{\"checkIn\":{\"count\":36,\"drawn\":36,"))
  }

  @Test func aSampleOfEventsListsOnlyItsKindsAndCountsTheRest() throws {
    let page = try MapPage.run(
      zones: [RunCommandTests.zones], tracks: [RunCommandTests.firstHour],
      options: ["--map-events", "3"])
    let drawn = Dictionary(grouping: page.data.events, by: \.kind).mapValues(\.count)
    #expect(page.data.events.count == 3)
    #expect(page.data.legend.kinds.mapValues(\.drawn) == drawn)
    let totals = ["checkIn": 36, "checkOut": 12, "dwell": 9]
    for (kind, entry) in page.data.legend.kinds { #expect(entry.count == totals[kind]) }
    #expect(
      page.data.legend.notDrawn
        == totals.filter { drawn[$0.key] == nil })
  }

  @Test func noEventsMeansNoEventRowsInTheLegend() throws {
    let page = try MapPage.run(
      zones: [RunCommandTests.zones],
      tracks: [try MapPage.file("gaps.csv", MapTrackGapTests.track)])
    #expect(page.data.events.isEmpty)
    #expect(page.data.legend.kinds.isEmpty)
    #expect(page.data.legend.notDrawn.isEmpty)
  }

  @Test func pageHasLayerTogglesAndATimeWindow() throws {
    let page = try MapPage.run(zones: [RunCommandTests.zones], tracks: [RunCommandTests.firstHour])
    #expect(page.html.contains("<input type=\"range\" id=\"from\" min=\"0\" value=\"0\">"))
    #expect(page.html.contains("<input type=\"range\" id=\"to\" min=\"0\" value=\"0\">"))
    // One checkbox row per layer: events by kind, GEOLINEs, fences, labels, tracks.
    #expect(page.html.contains("<input type=\"checkbox\" data-layer=\"${layer}\" checked>"))
    for row in ["row(kind,", "row(\"lines\",", "row(\"fences\",", "row(\"labels\",", "row(\"tracks\","] {
      #expect(page.html.contains(row), "\(row)")
    }
    // Every drawn event and track position has a time in the window's range.
    #expect(page.data.events.allSatisfy { (0...page.data.span).contains($0.t) })
    for part in page.data.tracks.flatMap(\.parts) {
      #expect(part.times == part.times.sorted())
      #expect(part.times.allSatisfy { (0...page.data.span).contains($0) })
    }
  }

  @Test func harborFencesAreLabelledWithTheirZoneNames() throws {
    let page = try MapPage.run(zones: [RunCommandTests.zones], tracks: [RunCommandTests.firstHour])
    let labels = Dictionary(uniqueKeysWithValues: page.data.fences.map { ($0.id, $0.label) })
    #expect(
      labels == [
        "st-george-slips": "St. George Ferry Terminal", "whitehall-slips": "Whitehall Ferry Terminal",
        "governors-island-shore": "Governors Island", "upper-bay-anchorage-area": "Upper Bay anchorage",
      ])
    // Each fence names its zone, which carries its name for the hover details.
    for fence in page.data.fences {
      #expect(page.data.zones[fence.z].name == labels[fence.id] ?? nil)
    }
  }

  @Test func labelIsTheNameElseTheFirstTextOfTheCustomDataElseTheID() throws {
    let zones = try MapPage.file(
      "labels.geojson",
      """
      {"type":"FeatureCollection","features":[
      {"type":"Feature","id":"pier","properties":{"name":"Pier 40","radius":50},"geometry":{"type":"Point","coordinates":[20.1,10.1]}},
      {"type":"Feature","id":"tz","properties":{"rank":3,"tzid":"Europe/Paris"},"geometry":{"type":"Polygon","coordinates":[[[20,10],[20.4,10],[20.4,10.2],[20,10.2],[20,10]]]}},
      {"type":"Feature","id":"bare","geometry":{"type":"Polygon","coordinates":[[[21,11],[21.2,11],[21.2,11.2],[21,11.2],[21,11]]]}}]}
      """)
    let page = try MapPage.run(
      zones: [zones],
      tracks: [try MapPage.file("one.csv", "device,time,lat,lon\na,2020-01-01T00:00:00Z,10.5,20.5\n")])
    let fences = Dictionary(uniqueKeysWithValues: page.data.fences.map { ($0.id, $0) })
    #expect(fences["pier"]?.label == "Pier 40")
    #expect(fences["tz"]?.label == "Europe/Paris")
    #expect(fences["bare"]?.label == nil)  // the id is the label
    // A rectangle's label sits in its middle (to the page's 0.01-unit rounding).
    let ring = try #require(fences["tz"]?.rings?.first)
    let xs = stride(from: 0, to: ring.count, by: 2).map { ring[$0] }
    let ys = stride(from: 1, to: ring.count, by: 2).map { ring[$0] }
    let at = try #require(fences["tz"]?.at)
    #expect(abs(at[0] - (xs.min()! + xs.max()!) / 2) <= 0.01)
    #expect(abs(at[1] - (ys.min()! + ys.max()!) / 2) <= 0.01)
  }
}
