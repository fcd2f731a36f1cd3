import FenceEngine

/// Fixes held compactly in memory: device names interned, 32 bytes a fix (time, position,
/// device, reading order), and 8 more for each optional value (accuracy, speed, course) that
/// some fix of the table has, in a column of its own (NaN where a fix has none). A
/// random-access collection of ``LocationFix``.
///
/// Built by ``readSorted(paths:options:)``, which reads every file and sorts all fixes by time.
public struct FixTable: RandomAccessCollection, Sendable {
  struct Row: Sendable {
    var time: Int64
    var latitude: Double
    var longitude: Double
    var device: Int32
    /// The row's index in appending order (in the 4 bytes the row would otherwise pad): it makes
    /// the sort stable, and tells the sort where each row's optional values are. Set to the
    /// row's index again after a sort.
    var sequence: Int32
  }

  /// An optional value of every row, stored only once some row has one: a track without
  /// accuracy (most) holds no accuracy column, rather than 8 bytes a fix of NaN (a 5 M-row
  /// track of positions alone took 56 bytes a row with all three).
  struct OptionalColumn: Sendable {
    /// Empty, or one value per row (NaN where absent: readers never produce NaN, "nan" is not
    /// a number to them).
    private(set) var values: [Double] = []

    /// Appends `value` as row `row`'s (the rows before it have been appended).
    @inline(__always)
    mutating func append(_ value: Double?, row: Int, capacity: Int) {
      if !values.isEmpty {
        values.append(value ?? .nan)
      } else if let value {
        values.reserveCapacity(capacity)
        values.append(contentsOf: repeatElement(.nan, count: row))
        values.append(value)
      }
    }

    /// Row `row`'s value.
    @inline(__always)
    func value(at row: Int) -> Double? {
      guard !values.isEmpty else { return nil }
      let value = values[row]
      return value.isNaN ? nil : value
    }

    /// Reorders the values to follow sorted `rows`: row `i`'s value is the one that was at its
    /// ``Row/sequence``.
    mutating func permute(_ rows: [Row]) {
      guard !values.isEmpty else { return }
      let old = values
      values = rows.map { old[Int($0.sequence)] }
    }

    mutating func reserveCapacity(_ count: Int) {
      if !values.isEmpty { values.reserveCapacity(count) }
    }
  }

  private var rows: [Row] = []
  private var accuracy = OptionalColumn()
  private var speed = OptionalColumn()
  private var course = OptionalColumn()
  /// Distinct device names; rows refer to them by index.
  public private(set) var devices: [String] = []
  private var deviceIndex: [String: Int32] = [:]
  /// The device of the last fix appended.
  private var lastDevice: Int32?
  /// The guesses of which device comes next (see ``DeviceSuccession``).
  private var succession = DeviceSuccession()
  /// Rows skipped while reading, over all files (see ``issues``).
  public internal(set) var skippedRowCount = 0
  /// The first skipped rows of each file.
  public internal(set) var issues: [TrackIssue] = []

  public init() {}

  /// Appends a fix at the end.
  public mutating func append(_ fix: LocationFix) {
    let device: Int32
    if let last = lastDevice, devices[Int(last)] == fix.device {
      // Rows of one device often come together (a GPX track, a file per vessel).
      device = last
    } else if let last = lastDevice, let guess = succession.guess(after: last),
      devices[Int(guess)] == fix.device
    {
      succession.hit()
      device = guess
      lastDevice = guess
    } else {
      if deviceIndex.count < devices.count { restoreDeviceIndex() }
      let next = Int32(devices.count)
      device = deviceIndex.interned(fix.device, next: next)
      if device == next {
        devices.append(fix.device)
        succession.addDevice()
      }
      if let last = lastDevice { succession.miss(after: last, came: device) }
      lastDevice = device
    }
    let row = rows.count
    let capacity = rows.capacity
    accuracy.append(fix.accuracy, row: row, capacity: capacity)
    speed.append(fix.speed, row: row, capacity: capacity)
    course.append(fix.course, row: row, capacity: capacity)
    rows.append(
      Row(
        time: fix.time.microsecondsSinceEpoch, latitude: fix.latitude, longitude: fix.longitude,
        device: device, sequence: Int32(truncatingIfNeeded: row)))
  }

  /// Drops the tables that only appending uses (the name table, about 40 bytes a device, and
  /// the device guesses), once reading is over: a million devices' table would otherwise stay
  /// beside the evaluator's own through the whole replay. A later ``append(_:)`` rebuilds them.
  public mutating func finishAppending() {
    deviceIndex = [:]
    succession = DeviceSuccession()
    lastDevice = nil
  }

  /// The name table and guesses again, after ``finishAppending()``.
  private mutating func restoreDeviceIndex() {
    deviceIndex.reserveCapacity(devices.count)
    succession = DeviceSuccession()
    for (index, name) in devices.enumerated() {
      deviceIndex[name] = Int32(index)
      succession.addDevice()
    }
  }

  /// Sorts the fixes by time, keeping the order of appending among equal times (a stable
  /// sort: ties are broken by ``Row/sequence``, set by ``append(_:)``).
  ///
  /// - Complexity: O(*n*) when the fixes are already in time order (rows appended in order
  ///   have increasing sequences, so equal times are already stable), else O(*n* log *n*).
  public mutating func sortByTime() {
    // Files written in time order (most recorders and exports) need no sort: one pass tells.
    var isSorted = true
    rows.withUnsafeBufferPointer { rows in
      var k = 1
      while k < rows.count, isSorted {
        isSorted = rows[k - 1].time <= rows[k].time
        k += 1
      }
    }
    if isSorted { return }
    rows.sort { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
    // The optional values follow their rows; then each row's sequence is its new index, which
    // keeps the order for a later sort.
    accuracy.permute(rows)
    speed.permute(rows)
    course.permute(rows)
    rows.withUnsafeMutableBufferPointer { rows in
      for i in rows.indices { rows[i].sequence = Int32(truncatingIfNeeded: i) }
    }
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { rows.count }

  public subscript(position: Int) -> LocationFix {
    let row = rows[position]
    return LocationFix(
      device: devices[Int(row.device)], time: Timestamp(microsecondsSinceEpoch: row.time),
      latitude: row.latitude, longitude: row.longitude,
      accuracy: accuracy.value(at: position), speed: speed.value(at: position),
      course: course.value(at: position))
  }

  /// The index in ``devices`` of the device of the fix at `position` (without building the
  /// fix), so that a caller can resolve something per device once, not per fix.
  public func deviceIndex(at position: Int) -> Int {
    Int(rows[position].device)
  }

  /// The time of the fix at `position` (without building the fix).
  public func time(at position: Int) -> Timestamp {
    Timestamp(microsecondsSinceEpoch: rows[position].time)
  }

  /// Fixes of a file read before the room for the rest is reserved (see
  /// ``TrackReader/estimatedFixCount``).
  static let rowsBeforeReserving = 8_192

  /// Reserves room for `count` fixes.
  public mutating func reserveCapacity(_ count: Int) {
    rows.reserveCapacity(count)
    accuracy.reserveCapacity(count)
    speed.reserveCapacity(count)
    course.reserveCapacity(count)
  }

  /// Bytes a row takes in the row table (the optional columns aside).
  static var rowBytes: Int { MemoryLayout<Row>.stride }

  /// Which optional columns are stored (for tests of the storage).
  var storedColumns: (accuracy: Bool, speed: Bool, course: Bool) {
    (!accuracy.values.isEmpty, !speed.values.isEmpty, !course.values.isEmpty)
  }
}

/// Reads every fix of every file, then sorts them by time: the order `fencebench run` feeds the
/// engine ("a stable sort by time across all files"). Fixes of equal time keep their file
/// order, then their order within the file.
///
/// - Throws: ``TrackReadError`` for a file that cannot be read (or, strict, a bad row).
public func readSorted(paths: [String], options: TrackReadOptions = TrackReadOptions()) throws
  -> FixTable
{
  var table = FixTable()
  for path in paths {
    let reader = try TrackReader(path: path, options: options)
    let before = table.count
    // Room for the whole file once its first rows tell how long rows are, rather than growth
    // by doubling, which copies the rows read so far at every step and touches about twice
    // the pages (5 M rows: 280 MB).
    while reader.fixCount < FixTable.rowsBeforeReserving, let fix = try reader.next() {
      table.append(fix)
    }
    if let rows = reader.estimatedFixCount {
      table.reserveCapacity(before + rows + rows / 64)
    }
    while let fix = try reader.next() { table.append(fix) }
    table.skippedRowCount += reader.skippedRowCount
    table.issues += reader.issues
  }
  table.sortByTime()
  table.finishAppending()
  return table
}
