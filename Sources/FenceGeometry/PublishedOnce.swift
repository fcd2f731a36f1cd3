import Synchronization

/// An object made by the first use that needs it and published once to every thread: the
/// stripes, chunk tree and unpacked values of an ``EdgeIndex`` and the joined index of a
/// multipolygon (decisions 0017 and 0018).
///
/// One word holds the object's address (0 while nothing is made: `Atomic` of a reference or a
/// pointer would not be `Sendable`). Whichever thread finds 0 makes the object and publishes it
/// by compare-and-exchange; a thread that loses the race drops its own and uses the winner's,
/// which is the same object (what is made is a function of what the owner holds). Once
/// published, reading costs one acquiring load (a plain load on x86-64, LDAR on ARM64) and no
/// reference counting: the object lives until the owner calls ``releaseObject(keeping:)`` from
/// its `deinit`.
struct PublishedOnce<Object: AnyObject & Sendable>: ~Copyable, Sendable {
  private let word: Atomic<UInt>

  /// The word's value once the maker gave nothing (no object's address).
  static var nothing: UInt { 1 }

  /// A slot holding `initial`: 0 (nothing made yet), or the address of an object that is never
  /// released (shared by many owners, such as the one empty stripe table).
  init(_ initial: UInt = 0) { word = Atomic(initial) }

  /// The object, made by `make` and published first if nothing is yet; `nil` when `make` gave
  /// nothing. `make` runs only on the first use (on every thread that races to it).
  @inline(__always)
  func object(orMake make: () -> Object?) -> Unmanaged<Object>? {
    var value = word.load(ordering: .acquiring)
    if value == 0 { value = publish(make()) }
    guard value != Self.nothing else { return nil }
    return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: value)!)
  }

  /// Publishes `made` unless another thread did first; returns the word's value either way.
  @inline(never)
  private func publish(_ made: Object?) -> UInt {
    let retained = made.map { Unmanaged.passRetained($0) }
    let value = retained.map { UInt(bitPattern: $0.toOpaque()) } ?? Self.nothing
    let (stored, current) = word.compareExchange(
      expected: 0, desired: value, ordering: .acquiringAndReleasing)
    if stored { return value }
    retained?.release()
    return current
  }

  /// The object if one is published, without making it.
  var publishedObject: Unmanaged<Object>? {
    let value = word.load(ordering: .acquiring)
    guard value != 0, value != Self.nothing else { return nil }
    return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: value)!)
  }

  /// The word: 0, ``nothing``, or an object's address (for tests).
  var value: UInt { word.load(ordering: .acquiring) }

  /// Whether anything is published (an object, or ``nothing``).
  var isPublished: Bool { word.load(ordering: .acquiring) != 0 }

  /// Releases the published object, unless it is `immortal` (see ``init(_:)``); for the
  /// owner's `deinit`.
  func releaseObject(keeping immortal: UInt = 0) {
    let value = word.load(ordering: .acquiring)
    guard value != 0, value != Self.nothing, value != immortal else { return }
    Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: value)!).release()
  }
}
