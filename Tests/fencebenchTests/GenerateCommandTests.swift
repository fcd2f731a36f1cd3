import FenceTestSupport
import Foundation
import Testing

/// `fencebench generate`: seeded, deterministic, and its output reads back.
@Suite struct GenerateCommandTests {
  @Test(arguments: [
    ["generate", "fences", "--count", "300", "--shape", "mixed", "--seed", "7"],
    ["generate", "tracks", "--devices", "5", "--fixes", "50", "--jitter", "3", "--seed", "7"],
    ["generate", "tracks", "--devices", "3", "--duration", "60", "--step", "5", "--movement", "waypoint"],
  ])
  func sameSeedGivesTheSameBytes(_ arguments: [String]) throws {
    let first = try FenceBenchProcess.run(arguments)
    let second = try FenceBenchProcess.run(arguments)
    #expect(first.status == 0)
    #expect(first.standardError == "")
    #expect(!first.standardOutput.isEmpty)
    #expect(first.standardOutput == second.standardOutput)
  }

  @Test func anotherSeedGivesOtherData() throws {
    let one = try FenceBenchProcess.run(["generate", "fences", "--count", "20", "--seed", "1"])
    let two = try FenceBenchProcess.run(["generate", "fences", "--count", "20", "--seed", "2"])
    #expect(one.standardOutput != two.standardOutput)
  }

  @Test func tracksHaveTheAskedShapeAndTimeOrder() throws {
    let result = try FenceBenchProcess.run(
      ["generate", "tracks", "--devices", "3", "--duration", "10", "--step", "5",
       "--start", "2021-05-01T12:00:00Z"])
    let lines = result.standardOutput.split(separator: "\n")
    #expect(lines.first == "device,time,lat,lon,speed,course")
    #expect(lines.count == 1 + 3 * 3)
    #expect(lines.dropFirst().map { $0.split(separator: ",")[0] } == [
      "d0", "d1", "d2", "d0", "d1", "d2", "d0", "d1", "d2",
    ])
    #expect(lines.dropFirst().map { $0.split(separator: ",")[1] } == [
      "2021-05-01T12:00:00Z", "2021-05-01T12:00:00Z", "2021-05-01T12:00:00Z",
      "2021-05-01T12:00:05Z", "2021-05-01T12:00:05Z", "2021-05-01T12:00:05Z",
      "2021-05-01T12:00:10Z", "2021-05-01T12:00:10Z", "2021-05-01T12:00:10Z",
    ])
  }

  @Test func generatedFencesHaveTheAskedCountsAndShapes() throws {
    let result = try FenceBenchProcess.run(
      ["generate", "fences", "--count", "40", "--shape", "polygon", "--vertices", "11"])
    let data = Data(result.standardOutput.utf8)
    let collection = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let features = try #require(collection["features"] as? [[String: Any]])
    #expect(features.count == 40)
    for feature in features {
      let geometry = try #require(feature["geometry"] as? [String: Any])
      #expect(geometry["type"] as? String == "Polygon")
      let rings = try #require(geometry["coordinates"] as? [[[Double]]])
      #expect(rings.count == 1)
      #expect(rings[0].count == 12)
      #expect(rings[0].first == rings[0].last)
    }
  }

  @Test func severalFencesPerZoneGiveValidJSONForEveryShape() throws {
    // Found by the daemon's crash test: non-circle features of a shared zone had `"zone":"z0",}`.
    let result = try FenceBenchProcess.run(
      ["generate", "fences", "--count", "40", "--shape", "mixed", "--fences-per-zone", "3"])
    #expect(result.status == 0)
    let data = Data(result.standardOutput.utf8)
    let collection = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let features = try #require(collection["features"] as? [[String: Any]])
    #expect(features.count == 40)
    let zones = features.map { ($0["properties"] as? [String: Any])?["zone"] as? String }
    #expect(zones == (0..<40).map { "z\($0 / 3)" })
    let shapes = Set(features.compactMap { ($0["geometry"] as? [String: Any])?["type"] as? String })
    #expect(shapes == ["Point", "Polygon", "LineString"])
  }

  @Test func generatedFencesAndTracksRunThroughTheEngine() throws {
    // Polygons are validated by GEOS on load: the generator's star polygons must all be valid.
    let fences = FenceBenchProcess.temporaryPath("fences.geojson")
    let tracks = FenceBenchProcess.temporaryPath("tracks.csv")
    let box = "-74.05,40.70,-73.95,40.78"
    #expect(
      try FenceBenchProcess.run(
        ["generate", "fences", "--count", "400", "--shape", "mixed", "--radius", "30...300",
         "--vertices", "9", "--line-vertices", "4", "--box=\(box)", "--out", fences]
      ).status == 0)
    #expect(
      try FenceBenchProcess.run(
        ["generate", "tracks", "--devices", "20", "--fixes", "200", "--step", "2", "--speed", "10",
         "--jitter", "5", "--box=\(box)", "--out", tracks]
      ).status == 0)
    let result = try FenceBenchProcess.run(["run", "--zones", fences, tracks, "--presorted", "--json"])
    #expect(result.status == 0, "\(result.standardError)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    #expect(object["zones"] as? Int == 400)
    #expect(object["fixesRead"] as? Int == 4000)
    #expect(object["fixesAccepted"] as? Int == 4000)
    #expect(object["devices"] as? Int == 20)
    #expect((object["events"] as? Int ?? 0) > 0)
  }
}
