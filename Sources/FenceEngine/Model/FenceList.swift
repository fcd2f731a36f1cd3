/// A zone's fences: an array, except that a single fence (most zones have one) is held inline
/// rather than in an allocation of its own.
///
/// A million zones of one fence each held a million one-element arrays, 96 bytes apiece (the
/// array's header and the fence): 96 MB at a million circles' load, more than the zones
/// themselves. Inline, each zone grows by the fence's own bytes instead.
///
/// It reads and changes like `[Fence]` (an array literal makes one; `Array(list)` gives the
/// array back). Equality and hashing are those of the fences in order, as for an array.
public struct FenceList: RandomAccessCollection, MutableCollection, RangeReplaceableCollection,
  ExpressibleByArrayLiteral, Hashable, Sendable, CustomStringConvertible
{
  /// Exactly one fence is always `.one`; no fence or several are `.many`.
  private enum Storage: Sendable {
    case one(Fence)
    case many([Fence])
  }

  private var storage: Storage

  /// No fences.
  public init() { storage = .many([]) }

  /// The fences of `fences`, in order.
  public init<S: Sequence>(_ fences: S) where S.Element == Fence {
    self.init(array: Array(fences))
  }

  public init(arrayLiteral fences: Fence...) { self.init(array: fences) }

  /// Keeps `array` unless it has exactly one fence, which is moved inline.
  private init(array: [Fence]) {
    storage = array.count == 1 ? .one(array[0]) : .many(array)
  }

  public var startIndex: Int { 0 }

  public var endIndex: Int {
    switch storage {
    case .one: return 1
    case .many(let fences): return fences.count
    }
  }

  public var count: Int { endIndex }

  public var isEmpty: Bool { endIndex == 0 }

  public subscript(position: Int) -> Fence {
    get {
      switch storage {
      case .one(let fence):
        precondition(position == 0, "FenceList index \(position) out of range 0..<1")
        return fence
      case .many(let fences): return fences[position]
      }
    }
    set {
      switch storage {
      case .one:
        precondition(position == 0, "FenceList index \(position) out of range 0..<1")
        storage = .one(newValue)
      case .many(var fences):
        // Emptied first, so that the array taken out is the only reference and changes in place.
        storage = .many([])
        fences[position] = newValue
        storage = .many(fences)
      }
    }
  }

  public mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with fences: C)
  where C.Element == Fence {
    var array: [Fence]
    switch storage {
    case .one(let fence): array = [fence]
    case .many(let taken): array = taken
    }
    storage = .many([])
    array.replaceSubrange(range, with: fences)
    self = FenceList(array: array)
  }

  public mutating func append(_ fence: Fence) {
    switch storage {
    case .many(let fences) where fences.isEmpty: storage = .one(fence)
    case .one(let first): storage = .many([first, fence])
    case .many(var fences):
      storage = .many([])
      fences.append(fence)
      storage = .many(fences)
    }
  }

  public mutating func reserveCapacity(_ n: Int) {
    guard n > 1, case .many(var fences) = storage else { return }
    storage = .many([])
    fences.reserveCapacity(n)
    storage = .many(fences)
  }

  public static func == (a: FenceList, b: FenceList) -> Bool { a.elementsEqual(b) }

  public func hash(into hasher: inout Hasher) {
    // As `[Fence]` hashes: the count, then each element.
    hasher.combine(count)
    for fence in self { hasher.combine(fence) }
  }

  public var description: String { Array(self).description }
}
