import FenceEngine
import FenceFormats

extension StoreCommand {
  /// The payload stored in the log's `payload` column.
  ///
  /// Fixes: a table of the batch's device names, then per fix the device's number, the time in
  /// microseconds and the exact bits of every number (a varint flag byte says which optional
  /// members are present), about 30 bytes a fix. Advance: the time. Zone changes: the zones as
  /// GeoJSON written by ``ZoneSetWriter`` (so the log is readable with any GeoJSON tool and
  /// replays through the same loader). Remove: the zone id. Device tags: the device and its tags
  /// (a count and strings).
  ///
  /// - Throws: the writer's error for zones it cannot express (never for zones that came from
  ///   GeoJSON).
  public func encodedPayload() throws -> [UInt8] {
    var writer = ByteWriter()
    switch self {
    case .fixes(let fixes):
      var numbers: [String: UInt64] = [:]
      var names: [String] = []
      var references: [UInt64] = []
      references.reserveCapacity(fixes.count)
      for fix in fixes {
        if let number = numbers[fix.device] {
          references.append(number)
        } else {
          let number = UInt64(names.count)
          numbers[fix.device] = number
          names.append(fix.device)
          references.append(number)
        }
      }
      writer.bytes.reserveCapacity(fixes.count * 32 + names.count * 12)
      writer.varint(UInt64(names.count))
      for name in names { writer.string(name) }
      writer.varint(UInt64(fixes.count))
      for (fix, reference) in zip(fixes, references) {
        writer.varint(reference)
        writer.i64(fix.time.microsecondsSinceEpoch)
        writer.f64(fix.latitude)
        writer.f64(fix.longitude)
        let flags: UInt8 =
          (fix.accuracy == nil ? 0 : 1) | (fix.speed == nil ? 0 : 2) | (fix.course == nil ? 0 : 4)
        writer.u8(flags)
        if let accuracy = fix.accuracy { writer.f64(accuracy) }
        if let speed = fix.speed { writer.f64(speed) }
        if let course = fix.course { writer.f64(course) }
      }
    case .advance(let time):
      writer.i64(time.microsecondsSinceEpoch)
    case .addZones(let zones), .replaceAllZones(let zones):
      writer.bytes = try ZoneSetWriter.bytes(zones)
    case .removeZone(let id):
      writer.bytes = Array(id.utf8)
    case .setDeviceTags(let device, let tags):
      writer.string(device)
      writer.varint(UInt64(tags.count))
      for tag in tags { writer.string(tag) }
    }
    return writer.bytes
  }

  /// Decodes a payload written by ``encodedPayload()``.
  ///
  /// - Throws: ``StoreError`` (`damaged`) naming the command when the payload does not decode.
  public init(kindCode: Int, payload: [UInt8], commandSeq: Int64) throws {
    func damaged(_ reason: String) -> StoreError {
      StoreError.damaged("command \(commandSeq): \(reason)")
    }
    switch kindCode {
    case 1:
      var reader = ByteReader(payload)
      do {
        let nameCount = try reader.count(stride: 1)
        var names: [String] = []
        names.reserveCapacity(nameCount)
        for _ in 0..<nameCount { names.append(try reader.string()) }
        let fixCount = try reader.count(stride: 26)
        var fixes: [LocationFix] = []
        fixes.reserveCapacity(fixCount)
        for _ in 0..<fixCount {
          let reference = try reader.varint()
          guard reference < UInt64(names.count) else {
            throw PayloadError(offset: reader.offset, "device number \(reference) out of range")
          }
          let time = Timestamp(microsecondsSinceEpoch: try reader.i64())
          let latitude = try reader.f64()
          let longitude = try reader.f64()
          let flags = try reader.u8()
          let accuracy = flags & 1 != 0 ? try reader.f64() : nil
          let speed = flags & 2 != 0 ? try reader.f64() : nil
          let course = flags & 4 != 0 ? try reader.f64() : nil
          fixes.append(
            LocationFix(
              device: names[Int(reference)], time: time, latitude: latitude,
              longitude: longitude, accuracy: accuracy, speed: speed, course: course))
        }
        guard reader.isAtEnd else { throw PayloadError(offset: reader.offset, "trailing bytes") }
        self = .fixes(fixes)
      } catch {
        throw damaged("fixes payload: \(error)")
      }
    case 2:
      var reader = ByteReader(payload)
      do {
        let time = Timestamp(microsecondsSinceEpoch: try reader.i64())
        guard reader.isAtEnd else { throw PayloadError(offset: reader.offset, "trailing bytes") }
        self = .advance(time)
      } catch {
        throw damaged("advance payload: \(error)")
      }
    case 3, 4:
      let zones: [Zone]
      do {
        var options = ZoneLoadOptions()
        options.trustsTopology = true  // written by ZoneSetWriter, which validated them
        zones = try ZoneLoader.loadZones(from: payload, file: "command \(commandSeq)", options: options)
      } catch {
        throw damaged("zones do not load back: \(error)")
      }
      self = kindCode == 3 ? .addZones(zones) : .replaceAllZones(zones)
    case 5:
      self = .removeZone(String(decoding: payload, as: UTF8.self))
    case 6:
      var reader = ByteReader(payload)
      do {
        let device = try reader.string()
        let count = try reader.count(stride: 1)
        var tags: [String] = []
        for _ in 0..<count { tags.append(try reader.string()) }
        guard reader.isAtEnd else { throw PayloadError(offset: reader.offset, "trailing bytes") }
        self = .setDeviceTags(device: device, tags: tags)
      } catch {
        throw damaged("device tags payload: \(error)")
      }
    default:
      throw damaged("unknown command kind \(kindCode)")
    }
  }
}
