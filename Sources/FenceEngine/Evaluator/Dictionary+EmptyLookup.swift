extension Dictionary {
  /// The value for `key`, without hashing `key` when the dictionary is empty.
  ///
  /// A lookup in an empty Swift dictionary still hashes its key. A large load looks every fence
  /// id up in tables that are empty for most zones (a new zone's reusable slots, the load's
  /// element owners): about 2 % of a million-circle restart, with a string hash each.
  @inline(__always)
  func valueUnlessEmpty(forKey key: Key) -> Value? {
    isEmpty ? nil : self[key]
  }

  /// Removes and returns the value for `key`, without hashing `key` when the dictionary is
  /// empty (see ``valueUnlessEmpty(forKey:)``).
  @inline(__always)
  mutating func removeValueUnlessEmpty(forKey key: Key) -> Value? {
    isEmpty ? nil : removeValue(forKey: key)
  }
}
