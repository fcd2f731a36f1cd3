extension Dictionary where Value: FixedWidthInteger {
  /// The number stored under `key`, storing `next` first when the key is new: one hash and
  /// one probe either way (a lookup followed by an insert hashes a new key twice). Interning
  /// tables (device names or zone ids to dense indices) call it once per fix, row or zone.
  ///
  /// The caller tells a new key by the answer being `next`. Inlinable, so that other modules
  /// get it specialised for their key type rather than the generic form.
  @inlinable
  package mutating func interned(_ key: Key, next: Value) -> Value {
    func read(_ value: inout Value) -> Value { value }
    return read(&self[key, default: next])
  }
}
