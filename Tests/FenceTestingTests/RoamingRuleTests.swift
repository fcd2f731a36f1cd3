import FenceTesting
import Testing

/// Rules v2 roaming fences (`rules-v2.md`, "Roaming fences"): a circle around each device that
/// matches `around`, checking in the devices that match `targets`, per (target, roaming device)
/// pair.
@Suite struct RoamingRuleTests {
  /// A roaming zone of `radius` metres around tugs, for barges.
  func roaming(_ radius: Double = 500, rules: ZoneRules = .default, targets: [String]? = ["barge"])
    -> Zone
  {
    var rules = rules
    rules.roam = RoamingFence(
      radius: radius, around: .init(tags: ["tug"]), targets: targets.map { .init(tags: $0) })
    return Zone(id: "near-tug", customData: ["kind": .string("escort")], rules: rules)
  }

  func scenario(_ zone: Zone) -> Scenario {
    var scenario = Scenario(day: testDay)
    scenario.add(zone)
    scenario.deviceTags = ["tug-1": ["tug"], "tug-2": ["tug"], "barge": ["barge"], "both": ["tug", "barge"]]
    return scenario
  }

  @Test func aTargetChecksInWithinTheRadiusOfARoamingDeviceAndOutBeyondIt() throws {
    var s = scenario(roaming())
    s.add(DeviceScript("tug-1").fix(at: depot, "10:00:00"))
    s.add(
      DeviceScript("barge")
        .fix(at: depot.moved(north: 1000), "10:00:10")
        .fix(at: depot.moved(north: 300), "10:00:20")
        .fix(at: depot.moved(north: 800), "10:00:30"))
    let result = try s.run()
    result.expectEvents([
      .checkIn("near-tug", at: "10:00:20", device: "barge"),
      .checkOut("near-tug", at: "10:00:30", duration: 10, device: "barge"),
    ])
    let checkIn = result.events[0]
    #expect(checkIn.roamingDevice == "tug-1")
    #expect(checkIn.fence == nil)
    #expect(checkIn.customData == ["kind": .string("escort")])
    #expect(abs(try #require(checkIn.distance) - WGS84.distance(depot, depot.moved(north: 300))) < 1e-9)
    #expect(abs(try #require(result.events[1].distance) - WGS84.distance(depot, depot.moved(north: 800))) < 1e-9)
  }

  @Test func theCircleMovesWithItsDeviceButOnlyTheTargetsFixesAreEvaluated() throws {
    // The barge stays put; the tug comes to it, then leaves. The barge's state changes only at
    // its own fixes.
    var s = scenario(roaming())
    s.add(
      DeviceScript("tug-1")
        .fix(at: depot.moved(north: 2000), "10:00:00")
        .fix(at: depot.moved(north: 100), "10:01:00")
        .fix(at: depot.moved(north: 3000), "10:03:00"))
    s.add(
      DeviceScript("barge")
        .fix(at: depot, "10:00:30")
        .fix(at: depot, "10:02:00")
        .fix(at: depot, "10:02:30")
        .fix(at: depot, "10:04:00"))
    try s.run().expectEvents([
      .checkIn("near-tug", at: "10:02:00", device: "barge"),
      .checkOut("near-tug", at: "10:04:00", duration: 120, device: "barge"),
    ])
  }

  @Test func eachRoamingDeviceIsAPairOfItsOwnAndNoDeviceChecksInToItself() throws {
    var s = scenario(roaming())
    s.add(DeviceScript("tug-2").fix(at: depot.moved(east: 200), "10:00:00"))
    s.add(DeviceScript("tug-1").fix(at: depot.moved(east: -200), "10:00:00"))
    s.add(DeviceScript("both").fix(at: depot.moved(north: 5000), "10:00:01"))
    s.add(DeviceScript("barge").fix(at: depot, "10:00:10"))
    let result = try s.run()
    result.expectEvents([
      .checkIn("near-tug", at: "10:00:10", device: "barge"),
      .checkIn("near-tug", at: "10:00:10", device: "barge"),
    ])
    #expect(result.events.map(\.roamingDevice) == ["tug-1", "tug-2"])
    #expect(result.events[0].id != result.events[1].id)
  }

  @Test func aDeviceThatIsBothCarrierAndTargetMeetsOnlyOthers() throws {
    var s = scenario(roaming())
    s.add(DeviceScript("both").fix(at: depot, "10:00:00").fix(at: depot, "10:00:10"))
    s.add(DeviceScript("tug-1").fix(at: depot.moved(north: 100), "10:00:05"))
    let result = try s.run()
    result.expectEvents([.checkIn("near-tug", at: "10:00:10", device: "both")])
    #expect(result.events.first?.roamingDevice == "tug-1")
  }

  @Test func devicesOutsideTheTargetsGetNothingAndWithoutTargetsEveryOtherDeviceIsOne() throws {
    var s = scenario(roaming())
    s.add(DeviceScript("tug-1").fix(at: depot, "10:00:00"))
    s.add(DeviceScript("untagged").fix(at: depot, "10:00:10"))
    try s.run().expectEvents([])
    s.zones = [roaming(targets: nil)]
    try s.run().expectEvents([.checkIn("near-tug", at: "10:00:10", device: "untagged")])
  }

  @Test func dwellAndMinimumRetriggerTimeArePerPair() throws {
    var s = scenario(roaming(rules: .init(minimumRetriggerTime: 600, dwell: 60)))
    s.add(DeviceScript("tug-1").fix(at: depot, "10:00:00"))
    s.add(
      DeviceScript("barge")
        .fix(at: depot.moved(north: 100), "10:00:10")
        .fix(at: depot.moved(north: 100), "10:01:30")
        .fix(at: depot.moved(north: 900), "10:02:00")
        .fix(at: depot.moved(north: 100), "10:03:00"))
    let result = try s.run()
    // Back within the MRT window at 10:03: inside silently.
    result.expectEvents([
      .checkIn("near-tug", at: "10:00:10", device: "barge"),
      .dwell("near-tug", at: "10:01:10", device: "barge"),
      .checkOut("near-tug", at: "10:02:00", duration: 110, device: "barge"),
    ])
    #expect(result.events[1].roamingDevice == "tug-1")
  }

  @Test func exitHysteresisKeepsAPairCheckedIn() throws {
    var s = scenario(roaming(rules: .init(exitHysteresis: 100)))
    s.add(DeviceScript("tug-1").fix(at: depot, "10:00:00"))
    s.add(
      DeviceScript("barge")
        .fix(at: depot.moved(north: 400), "10:00:10")
        .fix(at: depot.moved(north: 580), "10:00:20")
        .fix(at: depot.moved(north: 620), "10:00:30"))
    try s.run().expectEvents([
      .checkIn("near-tug", at: "10:00:10", device: "barge"),
      .checkOut("near-tug", at: "10:00:30", duration: 20, device: "barge"),
    ])
  }

  @Test func tagsGivenLaterMakeADeviceACarrierAtItsLatestFix() throws {
    var s = scenario(roaming())
    s.deviceTags = ["barge": ["barge"]]
    s.add(DeviceScript("boat").fix(at: depot, "10:00:00"))
    s.add(DeviceScript("barge").fix(at: depot, "10:00:10").fix(at: depot, "10:00:30"))
    s.at("10:00:20", .setTags(device: "boat", tags: ["tug"]))
    let result = try s.run()
    result.expectEvents([.checkIn("near-tug", at: "10:00:30", device: "barge")])
    #expect(result.events.first?.roamingDevice == "boat")
  }

  @Test(arguments: [false, true])
  func aSnapshotAfterEveryFixGivesTheEventsOfAnUninterruptedRun(scheduled: Bool) throws {
    var rules = ZoneRules(minimumRetriggerTime: 30, dwell: 40, exitConfirmations: 2)
    if scheduled {
      // Closed from 10:02 to 10:03: the pairs checked in then are checked out at 10:02.
      rules.schedule = ZoneSchedule(
        timeZone: "UTC",
        windows: [.init(days: [.mon], from: .init(parsing: "09:00")!, to: .init(parsing: "10:02")!),
                  .init(days: [.mon], from: .init(parsing: "10:03")!, to: .init(parsing: "12:00")!)])
    }
    let zone = roaming(rules: rules)
    var s = scenario(zone)
    s.add(DeviceScript("tug-1").fix(at: depot, "10:00:00").move(to: depot.moved(north: 900), speed: 5, every: 20))
    s.add(DeviceScript("tug-2", every: 15).fix(at: depot.moved(east: 300), "10:00:05").stay(for: 300))
    s.add(DeviceScript("barge", every: 10).fix(at: depot.moved(north: 200), "10:00:02").stay(for: 400))
    let fixes = try s.feed()
    var plain = ZoneEvaluator()
    try plain.add(zone)
    for (device, tags) in s.deviceTags { plain.setTags(tags, forDevice: device) }
    var resumed = plain
    var plainEvents: [ZoneEvent] = []
    var resumedEvents: [ZoneEvent] = []
    for fix in fixes {
      plain.process(fix, into: &plainEvents)
      let bytes = resumed.snapshot().encoded()
      resumed = ZoneEvaluator()
      try resumed.add(zone)
      try resumed.restore(try EvaluatorSnapshot(decoding: bytes))
      resumed.process(fix, into: &resumedEvents)
    }
    #expect(resumedEvents == plainEvents)
    // The run exercised pairs: check-ins with both tugs, a dwell and a check-out.
    let kinds = Set(plainEvents.map(\.kind))
    #expect(kinds == [.checkIn, .dwell, .checkOut])
    #expect(plainEvents.filter { $0.checkOutReason == .scheduleClosed }.count == (scheduled ? 2 : 0))
    #expect(Set(plainEvents.compactMap(\.roamingDevice)) == ["tug-1", "tug-2"])
  }

  @Test func roamingZonesRefuseFences() throws {
    var withFence = roaming()
    withFence.fences = [try .circle(id: "f", center: depot, radius: 10)]
    var evaluator = ZoneEvaluator()
    #expect(throws: ZoneError(zone: "near-tug", fault: .roamingZoneWithFences)) {
      try evaluator.add(withFence)
    }
    #expect(evaluator.zoneCount == 0)
  }

  // MARK: - With a schedule, a lifetime, exitOnRemove

  /// A tug at the depot, a barge next to it from 09:58 a fix a minute until 10:10.
  func escortedBarge(_ zone: Zone) -> Scenario {
    var s = scenario(zone)
    s.add(DeviceScript("tug-1").fix(at: depot, "09:57:00"))
    var barge = DeviceScript("barge").fix(at: depot.moved(north: 100), "09:58:00")
    for _ in 1...12 { barge = barge.fix(at: depot.moved(north: 100), after: 60) }
    s.add(barge)
    return s
  }

  @Test func aClosingWindowChecksOutEveryPairAtTheClosingInstantAndAnOpeningChecksInAgain() throws {
    var rules = ZoneRules()
    rules.schedule = ZoneSchedule(
      timeZone: "UTC",
      windows: [.init(days: [.mon], from: .init(parsing: "10:00")!, to: .init(parsing: "10:05")!),
                .init(days: [.mon], from: .init(parsing: "10:08")!, to: .init(parsing: "12:00")!)])
    let result = try escortedBarge(roaming(rules: rules)).run()
    result.expectEvents([
      .checkIn("near-tug", at: "10:00:00", device: "barge"),
      .checkOut("near-tug", at: "10:05:00", duration: 300, device: "barge", reason: .scheduleClosed),
      .checkIn("near-tug", at: "10:08:00", device: "barge"),
    ])
    let closing = result.events[1]
    #expect(closing.roamingDevice == "tug-1")
    #expect(abs(try #require(closing.distance) - WGS84.distance(depot, depot.moved(north: 100))) < 1e-9)
    #expect(closing.latitude == depot.moved(north: 100).latitude)
  }

  @Test func anEndedLifetimeChecksOutPairsOnlyWithExitOnRemove() throws {
    var rules = ZoneRules()
    rules.validUntil = try at("10:03:30")
    try escortedBarge(roaming(rules: rules)).run().expectEvents([
      .checkIn("near-tug", at: "09:58:00", device: "barge")
    ])
    rules.exitOnRemove = true
    try escortedBarge(roaming(rules: rules)).run().expectEvents([
      .checkIn("near-tug", at: "09:58:00", device: "barge"),
      .checkOut("near-tug", at: "10:03:30", duration: 330, device: "barge", reason: .zoneRemoved),
    ])
    // validFrom: the pair appears then, as for a zone added then (initial trigger).
    rules = ZoneRules()
    rules.validFrom = try at("10:03:30")
    try escortedBarge(roaming(rules: rules)).run().expectEvents([
      .checkIn("near-tug", at: "10:04:00", device: "barge")
    ])
  }

  @Test func removingOrReplacingARoamingZoneWithExitOnRemoveChecksOutItsPairs() throws {
    var rules = ZoneRules()
    rules.exitOnRemove = true
    var removed = escortedBarge(roaming(rules: rules))
    removed.at("10:03:30", .remove(zoneID: "near-tug"))
    try removed.run().expectEvents([
      .checkIn("near-tug", at: "09:58:00", device: "barge"),
      .checkOut("near-tug", at: "10:03:00", duration: 300, device: "barge", reason: .zoneRemoved),
    ])
    // Replaced by a zone that no longer roams: the pairs go as on a removal.
    var replaced = escortedBarge(roaming(rules: rules))
    let fixed = try Zone.circle("near-tug", center: depot.moved(north: 5000), radius: 100)
    replaced.at("10:03:30", .add(fixed))
    try replaced.run().expectEvents([
      .checkIn("near-tug", at: "09:58:00", device: "barge"),
      .checkOut("near-tug", at: "10:03:00", duration: 300, device: "barge", reason: .zoneRemoved),
    ])
    // Replaced by a roaming version too small to hold the barge: the next fix checks it out,
    // as an exit (no reason).
    var shrunk = escortedBarge(roaming(rules: rules))
    shrunk.at("10:03:30", .add(roaming(50, rules: rules)))
    try shrunk.run().expectEvents([
      .checkIn("near-tug", at: "09:58:00", device: "barge"),
      .checkOut("near-tug", at: "10:04:00", duration: 360, device: "barge"),
    ])
    // Without exitOnRemove a removal drops the pairs silently.
    var silent = escortedBarge(roaming())
    silent.at("10:03:30", .remove(zoneID: "near-tug"))
    try silent.run().expectEvents([.checkIn("near-tug", at: "09:58:00", device: "barge")])
  }
}
