extension ZoneEvaluator {
  /// Registers the devices named `names` and returns their handles, `handles[i]` for
  /// `names[i]`: what ``handle(forDevice:)`` gives name by name, in one call.
  ///
  /// An evaluator that has no device yet keeps the array itself as its table of device names,
  /// when no name appears in it twice: a caller that read every name beforehand (a replay of a
  /// file with a million devices) hands them over instead of the evaluator copying each name
  /// while the caller's array is still alive (16 MB more at the peak for a million names).
  /// Otherwise the names are registered one by one, the first of two equal names taking the
  /// slot both handles share.
  ///
  /// Taking the array, it does not keep the table of names by slot that checked them: the
  /// next call that registers or finds a device by name and changes the evaluator
  /// (``handle(forDevice:)``, a fix given by name) makes it again, and until then a lookup
  /// that changes nothing (``deviceStatus(named:)``, ``tags(ofDevice:)``) scans the names.
  ///
  /// Registering changes no event: slots only name devices inside the evaluator, and events
  /// that tie are ordered by device name.
  public mutating func registerDevices(named names: consuming [String]) -> [DeviceHandle] {
    let names = names
    guard devices.isEmpty, !names.isEmpty, names.count < Int(Int32.max) else {
      return names.map { handle(forDevice: $0) }
    }
    var table = IDSlotTable()
    table.reserveCapacity(names.count)
    let distinct = names.withUnsafeBufferPointer { names in
      for i in names.indices {
        let slot = table.slot(interning: names[i], next: Int32(i)) { names[Int($0)] }
        if slot != Int32(i) { return false }
      }
      return true
    }
    guard distinct else { return names.map { handle(forDevice: $0) } }
    // The table checked the names; it is made again only if a name is ever looked up by a
    // change (see `deviceNamesAreFiled`).
    table = IDSlotTable()
    deviceSlotByName = IDSlotTable()
    deviceNamesAreFiled = false
    devices = [DeviceState](repeating: DeviceState(), count: names.count)
    if configuration.skipsUnchangedFixes {
      safeDiscs = [SafeDisc](repeating: SafeDisc(), count: names.count)
    }
    deviceNames = names
    return (0..<Int32(names.count)).map { DeviceHandle(slot: $0) }
  }
}
