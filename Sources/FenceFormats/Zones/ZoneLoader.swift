import FenceEngine
import FenceGEOS
import FenceGeometry

/// Loads zones from GeoJSON (RFC 7946) as `formats.md` specifies.
///
/// A FeatureCollection whose features are fences (Point, Polygon, MultiPolygon) or GEOLINEs
/// (LineString; a MultiLineString gives one GEOLINE per part, ids `ID#0`, `ID#1`, …). Fence ids
/// come from the feature's `id`, else `properties.id`, else `f<index>`; `properties.zone` names
/// the zone (else the feature is its own zone, with the fence id as zone id). Rules come from
/// the properties of the zone's features and from the top-level `zones` member; `customData` is
/// `properties.customData` when it is an object, else the feature's other properties. Anything a
/// zone does not set comes from ``ZoneLoadOptions/defaults``.
///
/// Loading is all or nothing: every feature is checked and the first problem throws a
/// ``ZoneLoadError`` before any zone is returned. Polygons are validated with GEOS (their
/// topology: self-intersection and the like), or repaired with GEOS MakeValid when
/// ``ZoneLoadOptions/repair`` is set. Docs/Formats.md lists every choice made where the spec is
/// silent.
public enum ZoneLoader {
  /// Loads the zones of a GeoJSON file (read through gzip when its name ends in `.gz`).
  ///
  /// - Throws: ``ZoneLoadError`` naming the file and, for bad content, the feature and property.
  public static func loadZones(contentsOf path: String, options: ZoneLoadOptions = ZoneLoadOptions())
    throws -> [Zone]
  {
    try loadZones(contentsOf: path, options: options, input: ByteInput.Settings())
  }

  /// Loads the zones of a file with explicit input settings (`-` and chunk sizes, for tests).
  static func loadZones(contentsOf path: String, options: ZoneLoadOptions, input settings: ByteInput.Settings)
    throws -> [Zone]
  {
    func read() throws -> [UInt8] {
      do {
        return try ByteInput(path: path, settings: settings).readAll()
      } catch {
        throw ZoneLoadError(file: path, message: "cannot read: \(error.reason)")
      }
    }
    var bytes = try read()
    // A large file is read feature by feature, its pages given back as its features are parsed
    // (not standard input, which cannot be read again): when that fails, the file is read
    // again for the whole-document path, which words the first fault.
    guard path != "-", bytes.count >= ZoneLoading.splitThreshold else {
      return try loadZones(from: bytes, file: path, options: options)
    }
    // Mutable access: the pages given back change the array's contents (to zeros).
    let zones = bytes.withUnsafeMutableBufferPointer { buffer in
      ZoneLoading.loadSplit(
        withoutByteOrderMark(UnsafeBufferPointer(buffer)), file: path, options: options,
        releasingParsed: true)
    }
    if let zones { return zones }
    bytes = []
    // The split path failed on this text: only the whole document words its fault.
    return try loadWholeDocument(try read(), file: path, options: options)
  }

  /// A UTF-8 byte order mark (which some editors write) is not JSON, but harmless: the text
  /// after it.
  private static func withoutByteOrderMark(_ buffer: UnsafeBufferPointer<UInt8>)
    -> UnsafeBufferPointer<UInt8>
  {
    buffer.starts(with: byteOrderMark) ? UnsafeBufferPointer(rebasing: buffer[3...]) : buffer
  }

  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  /// Loads the zones of GeoJSON text held in memory (for example a `Data` or `[UInt8]`).
  ///
  /// - Parameter file: a name for messages, when the bytes came from a file.
  /// - Throws: ``ZoneLoadError`` naming the feature and property at fault.
  public static func loadZones<Bytes: Collection>(
    from bytes: Bytes, file: String? = nil, options: ZoneLoadOptions = ZoneLoadOptions()
  ) throws -> [Zone] where Bytes.Element == UInt8 {
    if bytes.count >= ZoneLoading.splitThreshold {
      let split = bytes.withContiguousStorageIfAvailable { buffer in
        ZoneLoading.loadSplit(withoutByteOrderMark(buffer), file: file, options: options)
      }
      if let zones = split ?? nil { return zones }
    }
    return try loadWholeDocument(bytes, file: file, options: options)
  }

  /// The whole document parsed at once and read in order: the path that words every fault.
  private static func loadWholeDocument<Bytes: Collection>(
    _ bytes: Bytes, file: String?, options: ZoneLoadOptions
  ) throws -> [Zone] where Bytes.Element == UInt8 {
    let tape: JSONTape
    do {
      tape =
        bytes.starts(with: byteOrderMark)
        ? try JSONReader.tape(Array(bytes.dropFirst(3))) : try JSONReader.tape(bytes)
    } catch {
      throw ZoneLoadError(
        file: file, message: "invalid JSON at line \(error.line), column \(error.column): \(error.message)")
    }
    var loading = try ZoneLoading(tape: tape, file: file, options: options)
    return try loading.load()
  }

  /// Property names the loader interprets, which therefore never go into `customData`.
  public static let reservedProperties = Set(reservedPropertyList)

  /// ``reservedProperties`` as a list: the rule keys, then the keys that place a feature.
  static let reservedPropertyList = ruleKeys + ["direction", "zone", "id", "radius"]

  /// Whether the loader interprets a property (``reservedProperties``), asked for every
  /// property of every feature: seventeen comparisons of short strings cost less than hashing
  /// the key.
  static func isReserved(_ key: String) -> Bool {
    reservedPropertyList.contains(key)
  }

  /// The zone rules a feature's properties or the `zones` member may set.
  static let ruleKeys = [
    "zoneName", "minimumRetriggerTime", "dwell", "checkOut", "initialTrigger", "exitHysteresis",
    "exitConfirmations",
  ] + ZoneRules.v2SettingNames
}

/// The state of one load: the tape, the zones being assembled, the fence ids seen.
struct ZoneLoading {
  /// Where a setting came from, for conflict messages.
  enum Source: Equatable {
    case feature(index: Int, id: String)
    case zonesMember(zone: String)

    var text: String {
      switch self {
      case .feature(let index, let id): return "feature \(index) (id \(quoted(id)))"
      case .zonesMember(let zone): return "the top-level zones member \(quoted(zone))"
      }
    }
  }

  /// A zone being assembled.
  struct Draft {
    var id: String
    var customData = JSONObject()
    /// The fences (one, the common case, inline: see ``FenceList``).
    var fences = FenceList()
    /// The settings, custom data sources and GEOLINEs, in one box made by the first of them:
    /// most drafts (a feature that is its own zone, without rules) have none, and a million
    /// drafts took 16 MB more at the parse's peak with a reference for each.
    private var rare: Rare?
    var hasFeatures = false
    /// The feature that defined this zone's fence or GEOLINE whose id is the zone's own id (a
    /// feature that is its own zone), or -1: such ids are claimed here rather than in
    /// ``ZoneLoading/fenceOwners`` (in the draft's padding).
    var selfFeature: Int32 = -1

    /// A draft's values that most drafts do not have. Owned by one draft: a draft that is
    /// copied and then changed copies its box first (``rareForChange()``).
    final class Rare {
      var settings: [String: (value: JSONValue, source: Source)] = [:]
      var customDataSources: [String: Source] = [:]
      var geolines: [(geoline: Geoline, hasOwnDirection: Bool)] = []

      func copy() -> Rare {
        let copy = Rare()
        copy.settings = settings
        copy.customDataSources = customDataSources
        copy.geolines = geolines
        return copy
      }
    }

    init(id: String) { self.id = id }

    /// Rule, `description` and zone-level `direction` settings, with where each came from.
    var settings: [String: (value: JSONValue, source: Source)] { rare?.settings ?? [:] }
    /// Where each custom data key came from.
    var customDataSources: [String: Source] { rare?.customDataSources ?? [:] }
    /// GEOLINEs and whether their feature set `direction` itself.
    var geolines: [(geoline: Geoline, hasOwnDirection: Bool)] { rare?.geolines ?? [] }

    mutating func setSetting(_ key: String, _ setting: (value: JSONValue, source: Source)) {
      rareForChange().settings[key] = setting
    }

    mutating func setCustomDataSource(_ key: String, _ source: Source) {
      rareForChange().customDataSources[key] = source
    }

    mutating func appendGeolines(_ more: [(geoline: Geoline, hasOwnDirection: Bool)]) {
      guard !more.isEmpty else { return }
      rareForChange().geolines += more
    }

    /// The box, made on first use, and copied first when another draft shares it.
    private mutating func rareForChange() -> Rare {
      if rare == nil {
        rare = Rare()
      } else if !isKnownUniquelyReferenced(&rare!) {
        rare = rare!.copy()
      }
      return rare!
    }
  }

  /// The document; while features are read one by one (``loadSplit(_:file:options:)``), the
  /// feature being read.
  var tape: JSONTape
  let file: String?
  let options: ZoneLoadOptions
  /// The zones' drafts, with their ids' index.
  var drafts = DraftList()
  /// Fence and GEOLINE ids seen, with the index of the feature that defined each (20 bytes a
  /// bucket: with the feature's id beside it, 40, which at a million fences was about 40 MB more
  /// at the parse's peak). The defining feature's id is read again from the document when a
  /// duplicate is reported (``featureIDText(ofFeature:)``).
  ///
  /// Only ids that are not their zone's id: an id that is (every feature that is its own zone)
  /// is claimed by its zone's draft (``Draft/selfFeature``), whose id table already holds it,
  /// and a million such features' table held another 42 MB at the parse's peak. An id is thus
  /// taken when it is in this table or its own zone's draft claims it.
  var fenceOwners: [String: Int32] = [:]
  var geos: GEOSContext?

  init(tape: JSONTape, file: String?, options: ZoneLoadOptions) throws {
    self.tape = tape
    self.file = file
    self.options = options
    guard options.pointRadius > 0, ValidRange.distance.contains(options.pointRadius) else {
      throw ZoneLoadError(
        file: file,
        message: "the point radius must be a number of metres above 0 and at most \(JSONWriter.numberText(ValidRange.distance.upperBound)), got \(options.pointRadius)")
    }
  }

  func error(_ message: String, property: String? = nil) -> ZoneLoadError {
    ZoneLoadError(file: file, property: property, message: message)
  }

  mutating func load() throws -> [Zone] {
    let featuresNode = try checkCollection()
    let features = tape.elements(featuresNode)
    reserveCapacity(features: features.count)
    if features.count < Self.parallelFeatureThreshold
      || !loadFeaturesInParallel(count: features.count, load: { loading, index in
        try loading.loadFeature(features[index], index: index)
      })
    {
      for (index, node) in features.enumerated() {
        try loadFeature(node, index: index)
      }
    }
    return try finish()
  }

  /// Checks the FeatureCollection around the features: its type, keys given twice, and a
  /// `features` array, whose node it returns.
  func checkCollection() throws -> Int {
    guard tape.kind(0) == .object else {
      throw error("expected a GeoJSON FeatureCollection object, got \(tape.describe(0))")
    }
    guard let typeNode = tape.member(0, "type"), tape.string(typeNode) == "FeatureCollection" else {
      let got = tape.member(0, "type").map { tape.describe($0) } ?? "nothing"
      throw error("expected a GeoJSON FeatureCollection, got type \(got)", property: "type")
    }
    // A key given twice is refused rather than resolved by keeping the last (which one was
    // meant?); features are checked one by one as they load, to name the feature.
    if let duplicate = tape.firstDuplicateKey(under: 0, skipping: ["features"]) {
      let place = duplicate.path.isEmpty ? "the FeatureCollection" : duplicate.path.joined(separator: ".")
      throw error(
        "\(place) has the key \(quoted(duplicate.key)) twice; give each key once",
        property: duplicate.path.first ?? duplicate.key)
    }
    guard let featuresNode = tape.member(0, "features"), tape.kind(featuresNode) == .array else {
      let got = tape.member(0, "features").map { tape.describe($0) } ?? "nothing"
      throw error("expected an array of features, got \(got)", property: "features")
    }
    return featuresNode
  }

  /// Most files hold one zone per feature: the tables grow once, not by doubling through the
  /// load.
  mutating func reserveCapacity(features count: Int) {
    reserveCapacity(zones: count, fences: count)
  }

  /// The node holding the fence id of the feature at `node`: its `id`, else its
  /// `properties.id` (the last member of each name), else nil (the id is then `f<index>`).
  func fenceIDNode(ofFeature node: Int) -> Int? {
    if let idNode = tape.member(node, "id") { return idNode }
    guard let properties = tape.member(node, "properties"), tape.kind(properties) == .object
    else { return nil }
    return tape.member(properties, "id")
  }

  /// A fence id node's text: a non-empty string, or a number as JSON writes it; nil for
  /// anything else (``loadFeature(_:index:)`` refuses it).
  func fenceIDText(_ idNode: Int) -> String? {
    if let s = tape.string(idNode) { return s.isEmpty ? nil : s }
    return tape.number(idNode).map { JSONWriter.numberText($0) }
  }

  /// The id that feature `index` gives its fence, as ``loadFeature(_:index:)`` reads it, read
  /// from the whole document's tape; a tape of one feature (the split and parallel paths, whose
  /// faults are worded by reading the whole document again) gives `f<index>`.
  func featureIDText(ofFeature index: Int) -> String {
    guard let features = tape.member(0, "features"), tape.kind(features) == .array,
      index < tape.count(features),
      let idNode = fenceIDNode(ofFeature: tape.elements(features)[index]),
      let text = fenceIDText(idNode)
    else { return "f\(index)" }
    return text
  }

  /// Room for `zones` zones and `fences` fence and GEOLINE ids.
  mutating func reserveCapacity(zones: Int, fences: Int) {
    drafts.reserveCapacity(zones)
    fenceOwners.reserveCapacity(fences)
  }

  /// After the features: the top-level `zones` member, then the zones, in order of first
  /// appearance.
  ///
  /// The id table goes before the zones are made (nothing after the `zones` member looks a
  /// draft up): a million zones' table (about 50 MB) is not held beside both the drafts and the
  /// zones made from them.
  mutating func finish() throws -> [Zone] {
    if let zonesNode = tape.member(0, "zones") {
      try loadZonesMember(zonesNode)
    }
    drafts.dropIndex()
    // Each chunk of drafts goes once its zones are made (``DraftList/consume(_:)``).
    var zones: [Zone] = []
    zones.reserveCapacity(drafts.count)
    var taken = DraftList()
    swap(&taken, &drafts)
    try taken.consume { zones.append(try makeZone($0)) }
    return zones
  }

  // MARK: Drafts

  /// The index of zone `id`'s draft, made empty when it is new.
  mutating func draft(_ id: String) -> Int { drafts.interning(id) }

  /// Records a zone setting; a different value already set is a conflict naming both sources.
  mutating func set(
    _ key: String, _ value: JSONValue, zone: Int, source: Source, error: (String) -> ZoneLoadError
  ) throws {
    if let existing = drafts[zone].settings[key] {
      if existing.value != value {
        throw error(
          "zone \(quoted(drafts[zone].id)) gets \(JSONWriter.string(value)) here but \(JSONWriter.string(existing.value)) from \(existing.source.text)")
      }
      return
    }
    drafts[zone].setSetting(key, (value, source))
  }

  /// Merges custom data into a zone's; the same key with different values is a conflict.
  mutating func merge(
    _ data: JSONObject, zone: Int, source: Source, error: (String, String) -> ZoneLoadError
  ) throws {
    for (key, value) in data.members {
      if let existing = drafts[zone].customData[key] {
        if existing != value, let other = drafts[zone].customDataSources[key] {
          throw error(
            key,
            "customData of zone \(quoted(drafts[zone].id)) gets \(JSONWriter.string(value)) here but \(JSONWriter.string(existing)) from \(other.text)")
        }
        continue
      }
      drafts[zone].customData[key] = value
      drafts[zone].setCustomDataSource(key, source)
    }
  }

  // MARK: Rules

  /// The validated value of a rule (numbers, booleans and strings as given; `null` only for
  /// `dwell`, meaning no dwell events), or a message saying what was expected.
  func ruleValue(_ key: String, _ node: Int) -> Result<JSONValue, RuleProblem> {
    func fail(_ expected: String) -> Result<JSONValue, RuleProblem> {
      .failure(RuleProblem(message: "expected \(expected), got \(tape.describe(node))"))
    }
    switch key {
    case "zoneName", "description":
      guard let s = tape.string(node) else { return fail("a string") }
      return .success(.string(s))
    case "minimumRetriggerTime":
      guard let x = tape.number(node), ValidRange.duration.contains(x) else {
        return fail("a number of seconds \(ValidRange.describe(ValidRange.duration))")
      }
      return .success(.number(x))
    case "dwell":
      if tape.kind(node) == .null { return .success(.null) }
      guard let x = tape.number(node), ValidRange.duration.contains(x) else {
        return fail("a number of seconds \(ValidRange.describe(ValidRange.duration)) (or null for no dwell events)")
      }
      return .success(.number(x))
    case "checkOut", "initialTrigger":
      guard let b = tape.bool(node) else { return fail("true or false") }
      return .success(.bool(b))
    case "exitHysteresis":
      guard let x = tape.number(node), ValidRange.distance.contains(x) else {
        return fail("a number of metres \(ValidRange.describe(ValidRange.distance))")
      }
      return .success(.number(x))
    case "exitConfirmations":
      let range = ValidRange.exitConfirmations
      guard let x = tape.number(node), x >= Double(range.lowerBound), x == x.rounded(),
        x <= Double(range.upperBound)
      else {
        return fail("a whole number from \(range.lowerBound) to \(range.upperBound)")
      }
      return .success(.number(x))
    case "direction":
      guard let s = tape.string(node), Geoline.DirectionFilter(rawValue: s) != nil else {
        return fail("\"both\", \"leftToRight\" or \"rightToLeft\"")
      }
      return .success(.string(s))
    case _ where ZoneRules.v2SettingNames.contains(key):
      // Checked by the engine's own reader of these settings, which makeZone uses again.
      let value = tape.value(node)
      var rules = ZoneRules()
      do throws(RuleSettingError) {
        try rules.setRuleV2(key, value)
      } catch {
        return .failure(
          RuleProblem(message: error.path.isEmpty ? error.message : "\(error.path): \(error.message)"))
      }
      return .success(value)
    default:
      preconditionFailure("not a rule: \(key)")
    }
  }

  struct RuleProblem: Error { var message: String }


  // MARK: Zones member

  mutating func loadZonesMember(_ node: Int) throws {
    guard tape.kind(node) == .object else {
      throw error(
        "expected an object of zone settings keyed by zone id, got \(tape.describe(node))",
        property: "zones")
    }
    let file = self.file
    let settingKeys = Set(ZoneLoader.ruleKeys + ["name", "description", "direction"])
    for (zoneID, settingsNode) in tape.members(node) {
      func fail(_ property: String?, _ message: String) -> ZoneLoadError {
        ZoneLoadError(file: file, zone: zoneID, property: property, message: message)
      }
      guard let zone = drafts.index(of: zoneID) else {
        throw fail(nil, "no feature belongs to this zone (set properties.zone of its features to \(quoted(zoneID)))")
      }
      guard tape.kind(settingsNode) == .object else {
        throw fail(nil, "expected an object of zone settings, got \(tape.describe(settingsNode))")
      }
      let source = Source.zonesMember(zone: zoneID)
      for (key, valueNode) in tape.members(settingsNode) {
        switch key {
        case "customData":
          guard tape.kind(valueNode) == .object else {
            throw fail(key, "expected an object, got \(tape.describe(valueNode))")
          }
          try merge(tape.object(valueNode), zone: zone, source: source) { key, message in
            fail("customData", message + " (key \(quoted(key)))")
          }
        case _ where settingKeys.contains(key):
          let ruleKey = key == "name" ? "zoneName" : key
          switch ruleValue(ruleKey, valueNode) {
          case .success(let value):
            try set(ruleKey, value, zone: zone, source: source) { fail(key, $0) }
          case .failure(let problem):
            throw fail(key, problem.message)
          }
        default:
          throw fail(
            key,
            "unknown zone setting: expected one of \((ZoneLoader.ruleKeys + ["name", "description", "direction", "customData"]).joined(separator: ", "))")
        }
      }
    }
  }

  // MARK: Zones

  func makeZone(_ draft: Draft) throws -> Zone {
    var rules = options.defaults
    var name: String?
    var description: String?
    for (key, setting) in draft.settings {
      switch (key, setting.value) {
      case ("zoneName", .string(let s)): name = s
      case ("description", .string(let s)): description = s
      case ("minimumRetriggerTime", .number(let x)): rules.minimumRetriggerTime = x
      case ("dwell", .number(let x)): rules.dwell = x
      case ("dwell", .null): rules.dwell = nil
      case ("checkOut", .bool(let b)): rules.checkOut = b
      case ("initialTrigger", .bool(let b)): rules.initialTrigger = b
      case ("exitHysteresis", .number(let x)): rules.exitHysteresis = x
      case ("exitConfirmations", .number(let x)): rules.exitConfirmations = Int(x)
      case ("direction", _): break
      case (_, let value) where ZoneRules.v2SettingNames.contains(key):
        do throws(RuleSettingError) {
          try rules.setRuleV2(key, value)
        } catch {
          // Checked by `ruleValue` when the setting was read.
          preconditionFailure("unvalidated setting \(key): \(error)")
        }
      default: preconditionFailure("unvalidated setting \(key) = \(setting.value)")
      }
    }
    var zoneDirection: Geoline.DirectionFilter?
    if case .string(let s)? = draft.settings["direction"]?.value {
      zoneDirection = Geoline.DirectionFilter(rawValue: s)
    }
    let geolines = draft.geolines.map { entry -> Geoline in
      var geoline = entry.geoline
      if !entry.hasOwnDirection, let zoneDirection { geoline.direction = zoneDirection }
      return geoline
    }
    return Zone(
      id: draft.id, name: name, description: description, customData: draft.customData,
      fences: draft.fences, geolines: geolines, rules: rules)
  }
}
