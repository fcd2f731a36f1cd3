extension Dictionary where Value == Int32 {
  /// The number stored under `key`, storing `next` first when the key is new: one hash and
  /// one probe either way (a lookup followed by an insert hashes a new key twice). Interning
  /// tables (device names to dense slots) call it once per fix or row.
  ///
  /// The caller tells a new key by the answer being `next`. Inlinable, so that other modules
  /// get it specialised for their key type rather than the generic form.
  @inlinable
  package mutating func interned(_ key: Key, next: Int32) -> Int32 {
    func read(_ value: inout Int32) -> Int32 { value }
    return read(&self[key, default: next])
  }
}
