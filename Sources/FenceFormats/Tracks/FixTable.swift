import CMemoryHints
import FenceEngine

/// Fixes held compactly in memory: device names interned, 8 bytes a fix for its time and
/// device, 4 for each coordinate, and 2 or 4 more for each optional value (accuracy,
/// speed, course) that some fix of the table has, in a column of its own. A random-access
/// collection of ``LocationFix``.
///
/// Times are kept as whole seconds from the first fix's time (``TimeColumn``) while every time
/// is such an offset within `Int32` (68 years either way), else as microseconds.
///
/// Values are kept as integers of their decimal digits (``DecimalColumn``) when that gives them
/// back bit for bit, which it does for the decimals tracks are written with (up to seven digits
/// after the point for coordinates, six for the other values), in 2 bytes while a speed's, a
/// course's or an accuracy's values are short decimals (two digits after the point for speed,
/// one for the others); a column holding any other value keeps `Double`s instead. A million
/// devices' five fixes each took 48 bytes a fix with `Double`s, 20 now (with speed and course).
///
/// Built by ``readSorted(paths:options:)``, which reads every file and sorts all fixes by time.
public struct FixTable: RandomAccessCollection, Sendable {
  /// A row's place in appending order is its index until a sort; the sort makes its own
  /// order of the indexes (``sortByTime()``), so no row carries it: 8 bytes, not 12.
  struct Row: Sendable {
    /// The time as ``TimeColumn`` codes it (0 once the column holds microseconds).
    var time: Int32
    var device: Int32
  }

  /// The time of every row: whole seconds from the first row's time, in the rows (4 bytes),
  /// while every time appended is such an offset that fits an `Int32`; else microseconds since
  /// the epoch in a column of their own (8 bytes), the earlier rows' included.
  struct TimeColumn: Sendable {
    /// The first row's time, in microseconds since the epoch.
    private(set) var base: Int64?
    /// Every row's time once some time had no code; empty before.
    private(set) var microseconds: [Int64] = []

    /// Whether the rows' codes hold the times.
    var isCoded: Bool { microseconds.isEmpty }

    /// `time`'s code for the row `row` (the rows before it appended, their codes in `rows`).
    @inline(__always)
    mutating func code(_ time: Int64, row: Int, rows: inout [Row], capacity: Int) -> Int32 {
      if !microseconds.isEmpty {
        microseconds.append(time)
        return 0
      }
      guard let base else {
        self.base = time
        return 0
      }
      let (offset, overflow) = time.subtractingReportingOverflow(base)
      if !overflow, offset % 1_000_000 == 0, let seconds = Int32(exactly: offset / 1_000_000) {
        return seconds
      }
      microseconds.reserveCapacity(Swift.max(capacity, row + 1))
      rows.withUnsafeMutableBufferPointer { rows in
        for k in rows.indices {
          microseconds.append(base + Int64(rows[k].time) * 1_000_000)
          rows[k].time = 0
        }
      }
      microseconds.append(time)
      return 0
    }

    /// The time of row `position`, whose row is `row`.
    @inline(__always)
    func time(at position: Int, row: Row) -> Int64 {
      microseconds.isEmpty ? base! + Int64(row.time) * 1_000_000 : microseconds[position]
    }

    /// Reorders the times as the sort ordered the rows (see ``DecimalColumn/permute(_:)``).
    mutating func permute(_ order: [UInt32]) {
      guard !microseconds.isEmpty else { return }
      let old = microseconds
      microseconds = order.map { old[Int($0)] }
    }

    mutating func reserveCapacity(_ count: Int) {
      if !microseconds.isEmpty { microseconds.reserveCapacity(count) }
    }

    /// Gives back the pages of rows `rows` (``FixTable/releaseRows(before:)``).
    mutating func releasePages(ofRows rows: Range<Int>) {
      microseconds.releasePages(of: rows)
    }
  }

  /// One value of every row: as integers of its decimal digits (`value × scale`, 4 bytes) while
  /// every value appended converts back to itself bit for bit, else as `Double`s (8 bytes).
  /// An optional column stores nothing until some row has a value.
  ///
  /// A column with a ``narrowScale`` (speed, course, accuracy) starts narrower still: 2-byte
  /// codes of `value × narrowScale`, while every value has one (speeds of two decimals up to
  /// 327.67, courses of one decimal). The first value without one widens the column: every
  /// value so far is appended again as a 4-byte code (or, past those codes' range, the column
  /// holds `Double`s), and reads back bit for bit as before.
  struct DecimalColumn: Sendable {
    /// The code of a row without a value.
    static let absent = Int32.min
    /// The code of -0.0 (a longitude written "-0.000000" parses to it), which `value × scale`
    /// would turn into +0.0.
    static let negativeZero = Int32.min + 1
    /// The same two codes among the 2-byte ones.
    static let narrowAbsent = Int16.min
    static let narrowNegativeZero = Int16.min + 1
    /// Powers of ten the codes count in: 10⁷ for degrees of latitude and longitude (±214.7°),
    /// 10⁶ for accuracy, speed and course (±2,147).
    let scale: Double
    /// The power of ten of the 2-byte codes (0: the column has none).
    let narrowScale: Double
    /// Whether a value is always appended (coordinates): the column is never empty then.
    private let isRequired: Bool
    /// One 2-byte code per row while every value has one (``narrowAbsent`` where a row has no
    /// value); empty once the column widened.
    private(set) var narrowCodes: [Int16] = []
    /// One code per row while every value has one (``absent`` where a row has no value).
    private(set) var codes: [Int32] = []
    /// One value per row (NaN where absent: readers never produce NaN, "nan" is not a number to
    /// them) once some value had no exact code; `codes` is empty then.
    private(set) var values: [Double] = []

    init(scale: Double, narrowScale: Double = 0, isRequired: Bool) {
      precondition(narrowScale == 0 || (narrowScale >= 1 && narrowScale <= scale))
      self.scale = scale
      self.narrowScale = narrowScale
      self.isRequired = isRequired
    }

    /// Whether the column holds any rows (an optional column that no row had a value for holds
    /// none).
    var isStored: Bool { !narrowCodes.isEmpty || !codes.isEmpty || !values.isEmpty }
    /// Whether the column fell back to `Double`s.
    var holdsDoubles: Bool { !values.isEmpty }
    /// Whether the column holds 2-byte codes.
    var isNarrow: Bool { !narrowCodes.isEmpty }

    /// `value`'s code, if the code converts back to `value` bit for bit (the division is
    /// correctly rounded, so every decimal of at most log₁₀(scale) digits after the point and
    /// within ±(2³¹ - 3) / scale has one, and -0.0 has ``negativeZero``; NaN has none).
    @inline(__always)
    func code(of value: Double) -> Int32? {
      let scaled = (value * scale).rounded()
      guard scaled > -2_147_483_645.5, scaled < 2_147_483_647.5 else {
        return nil
      }
      if value == 0, value.sign == .minus { return Self.negativeZero }
      let code = Int32(scaled)
      guard (Double(code) / scale).bitPattern == value.bitPattern else { return nil }
      return code
    }

    /// `value`'s 2-byte code (``narrowAbsent`` for none), if the column has them and the code
    /// converts back to `value` bit for bit, as ``code(of:)``.
    @inline(__always)
    func narrowCode(of value: Double?) -> Int16? {
      guard narrowScale > 0 else { return nil }
      guard let value else { return Self.narrowAbsent }
      let scaled = (value * narrowScale).rounded()
      guard scaled > -32_765.5, scaled < 32_767.5 else { return nil }
      if value == 0, value.sign == .minus { return Self.narrowNegativeZero }
      let code = Int16(scaled)
      guard (Double(code) / narrowScale).bitPattern == value.bitPattern else { return nil }
      return code
    }

    /// Appends `value` as row `row`'s (the rows before it have been appended); `capacity` is
    /// the rows' reserved count, reserved for the column too when it starts.
    @inline(__always)
    mutating func append(_ value: Double?, row: Int, capacity: Int) {
      if !narrowCodes.isEmpty {
        if let code = narrowCode(of: value) {
          narrowCodes.append(code)
          return
        }
        widen(capacity: capacity)
      } else if !isStored, value != nil || isRequired, let code = narrowCode(of: value) {
        narrowCodes.reserveCapacity(capacity)
        narrowCodes.append(contentsOf: repeatElement(Self.narrowAbsent, count: row))
        narrowCodes.append(code)
        return
      }
      appendWide(value, row: row, capacity: capacity)
    }

    /// Appends `value` as 4-byte codes or `Double`s (as ``append(_:row:capacity:)`` for a
    /// column without 2-byte codes).
    @inline(__always)
    private mutating func appendWide(_ value: Double?, row: Int, capacity: Int) {
      if !values.isEmpty {
        values.append(value ?? .nan)
        return
      }
      let code: Int32
      if let value {
        guard let exact = self.code(of: value) else {
          switchToDoubles(row: row, capacity: capacity)
          values.append(value)
          return
        }
        code = exact
      } else {
        code = Self.absent
      }
      if codes.isEmpty, !isRequired {
        guard value != nil else { return }
        codes.reserveCapacity(capacity)
        codes.append(contentsOf: repeatElement(Self.absent, count: row))
      } else if codes.isEmpty {
        codes.reserveCapacity(capacity)
      }
      codes.append(code)
    }

    /// Appends the values of the 2-byte codes again, as 4-byte codes or `Double`s: each
    /// decoded value is the decimal its code stands for, so it has the 4-byte code of that
    /// decimal unless it is past those codes' range.
    private mutating func widen(capacity: Int) {
      let narrow = narrowCodes
      narrowCodes = []
      for (row, code) in narrow.enumerated() {
        appendWide(decodeNarrow(code), row: row, capacity: capacity)
      }
    }

    /// Moves the `row` rows appended so far to `values`.
    private mutating func switchToDoubles(row: Int, capacity: Int) {
      values.reserveCapacity(Swift.max(capacity, row + 1))
      if codes.isEmpty {
        values.append(contentsOf: repeatElement(.nan, count: row))
      } else {
        for code in codes { values.append(decode(code) ?? .nan) }
      }
      codes = []
    }

    @inline(__always)
    private func decode(_ code: Int32) -> Double? {
      if code <= Self.negativeZero { return code == Self.absent ? nil : -0.0 }
      return Double(code) / scale
    }

    @inline(__always)
    private func decodeNarrow(_ code: Int16) -> Double? {
      if code <= Self.narrowNegativeZero { return code == Self.narrowAbsent ? nil : -0.0 }
      return Double(code) / narrowScale
    }

    /// Row `row`'s value in a column that every row has a value in (coordinates): NaN stays NaN.
    @inline(__always)
    func requiredValue(at row: Int) -> Double {
      value(at: row) ?? .nan
    }

    /// Row `row`'s value.
    @inline(__always)
    func value(at row: Int) -> Double? {
      if !codes.isEmpty { return decode(codes[row]) }
      if !narrowCodes.isEmpty { return decodeNarrow(narrowCodes[row]) }
      guard !values.isEmpty else { return nil }
      let value = values[row]
      return value.isNaN ? nil : value
    }

    /// Reorders the values as the sort ordered the rows: row `i`'s value is the one that was
    /// at `order[i]`.
    mutating func permute(_ order: [UInt32]) {
      if !narrowCodes.isEmpty {
        let old = narrowCodes
        narrowCodes = order.map { old[Int($0)] }
      } else if !codes.isEmpty {
        let old = codes
        codes = order.map { old[Int($0)] }
      } else if !values.isEmpty {
        let old = values
        values = order.map { old[Int($0)] }
      }
    }

    mutating func reserveCapacity(_ count: Int) {
      if !narrowCodes.isEmpty { narrowCodes.reserveCapacity(count) }
      if !codes.isEmpty { codes.reserveCapacity(count) }
      if !values.isEmpty { values.reserveCapacity(count) }
    }

    /// Gives back the pages of rows `rows` (``FixTable/releaseRows(before:)``).
    mutating func releasePages(ofRows rows: Range<Int>) {
      narrowCodes.releasePages(of: rows)
      codes.releasePages(of: rows)
      values.releasePages(of: rows)
    }
  }

  private var rows: [Row] = []
  private var times = TimeColumn()
  private var latitude = DecimalColumn(scale: 1e7, isRequired: true)
  private var longitude = DecimalColumn(scale: 1e7, isRequired: true)
  private var accuracy = DecimalColumn(scale: 1e6, narrowScale: 10, isRequired: false)
  private var speed = DecimalColumn(scale: 1e6, narrowScale: 100, isRequired: false)
  private var course = DecimalColumn(scale: 1e6, narrowScale: 10, isRequired: false)
  /// Distinct device names; rows refer to them by index. Empty once taken
  /// (``takeDeviceNames()``).
  public private(set) var devices: [String] = []
  /// Whether ``takeDeviceNames()`` took the names.
  public private(set) var deviceNamesTaken = false
  private var deviceIndex: [String: Int32] = [:]
  /// The device of the last fix appended.
  private var lastDevice: Int32?
  /// The guesses of which device comes next (see ``DeviceSuccession``).
  private var succession = DeviceSuccession()
  /// The rows before this one were given back to the system (``releaseRows(before:)``).
  public internal(set) var releasedRowCount = 0
  /// Rows skipped while reading, over all files (see ``issues``).
  public internal(set) var skippedRowCount = 0
  /// The first skipped rows of each file.
  public internal(set) var issues: [TrackIssue] = []

  public init() {}

  /// Appends a fix at the end.
  public mutating func append(_ fix: LocationFix) {
    precondition(!deviceNamesTaken, "FixTable: no fix can be appended once the names were taken")
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
    let time = times.code(fix.time.microsecondsSinceEpoch, row: row, rows: &rows, capacity: capacity)
    latitude.append(fix.latitude, row: row, capacity: capacity)
    longitude.append(fix.longitude, row: row, capacity: capacity)
    accuracy.append(fix.accuracy, row: row, capacity: capacity)
    speed.append(fix.speed, row: row, capacity: capacity)
    course.append(fix.course, row: row, capacity: capacity)
    rows.append(Row(time: time, device: device))
  }

  /// Hands the device names over (``devices`` becomes empty), so that a caller holding them
  /// elsewhere (an engine that registered every device) does not keep a second copy: a million
  /// names take 16 MB or more. ``deviceIndex(at:)`` still tells each fix's device; read fixes
  /// with ``fix(at:device:)`` from then on. No fix can be appended afterwards.
  public mutating func takeDeviceNames() -> [String] {
    finishAppending()
    deviceNamesTaken = true
    var names: [String] = []
    swap(&names, &devices)
    return names
  }

  /// Gives back to the system the memory of the rows before `end`, for a caller that reads the
  /// table once, front to back, and is done with them: `fencebench run` during its replay, which
  /// then holds the fixes still to come rather than every fix it read (5 M rows of a million
  /// devices take about 150 MB).
  ///
  /// Whole pages of each column go, up to the last one that holds only rows before `end`
  /// (a page holding a later row stays); ``releasedRowCount`` becomes `end`. The rows given
  /// back must not be read again: on Linux they read as zeros (`MADV_DONTNEED`), and debug
  /// builds stop a ``fix(at:device:)`` of one. Elsewhere nothing is given back. Nothing is
  /// copied: a table whose columns are shared with a copy copies them first (as any mutation
  /// does), so give back only the rows of a table nothing else holds.
  public mutating func releaseRows(before end: Int) {
    let end = Swift.min(end, rows.count)
    guard end > releasedRowCount else { return }
    let released = releasedRowCount..<end
    rows.releasePages(of: released)
    times.releasePages(ofRows: released)
    latitude.releasePages(ofRows: released)
    longitude.releasePages(ofRows: released)
    accuracy.releasePages(ofRows: released)
    speed.releasePages(ofRows: released)
    course.releasePages(ofRows: released)
    releasedRowCount = end
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

  /// Sorts the fixes by time, keeping the order of rows among equal times (a stable sort: ties
  /// are broken by the rows' indexes before the sort).
  ///
  /// - Complexity: O(*n*) when the fixes are already in time order, else O(*n* log *n*), with
  ///   8 bytes a row for the sort's keys while it runs (the rows themselves keep no index).
  public mutating func sortByTime() {
    // Files written in time order (most recorders and exports) need no sort: one pass tells.
    // Codes are in time order (whole seconds from one base); microseconds are in row order.
    var isSorted = true
    let coded = times.isCoded
    let microseconds = times.microseconds
    rows.withUnsafeBufferPointer { rows in
      var k = 1
      while k < rows.count, isSorted {
        isSorted = coded ? rows[k - 1].time <= rows[k].time : microseconds[k - 1] <= microseconds[k]
        k += 1
      }
    }
    if isSorted { return }
    precondition(rows.count <= Int(UInt32.max), "a fix table sorts at most 2³² - 1 fixes")
    let order: [UInt32]
    if coded {
      // One key per row, the time's code (its sign bit flipped, so that unsigned order is the
      // codes' order) above the row's index: all keys differ, and sorting them is the stable
      // sort of the rows by time.
      var keys = rows.indices.map { k in
        UInt64(UInt32(bitPattern: rows[k].time) ^ 0x8000_0000) << 32 | UInt64(k)
      }
      keys.sort()
      order = keys.map { UInt32(truncatingIfNeeded: $0) }
    } else {
      var indexes = (0..<UInt32(rows.count)).map { $0 }
      indexes.sort { (microseconds[Int($0)], $0) < (microseconds[Int($1)], $1) }
      order = indexes
    }
    // The rows and the values follow the order.
    let old = rows
    rows = order.map { old[Int($0)] }
    times.permute(order)
    latitude.permute(order)
    longitude.permute(order)
    accuracy.permute(order)
    speed.permute(order)
    course.permute(order)
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { rows.count }

  /// The fix at `position`.
  ///
  /// - Precondition: the device names were not taken (``takeDeviceNames()``); then use
  ///   ``fix(at:device:)``.
  public subscript(position: Int) -> LocationFix {
    precondition(
      !deviceNamesTaken, "FixTable: the device names were taken; read fixes with fix(at:device:)")
    return fix(at: position, device: devices[deviceIndex(at: position)])
  }

  /// The fix at `position` with `device` as its device name: for a caller that took the names
  /// (``takeDeviceNames()``) and keeps them elsewhere, such as in the engine.
  public func fix(at position: Int, device: String) -> LocationFix {
    assert(position >= releasedRowCount, "FixTable: row \(position) was given back")
    let row = rows[position]
    return LocationFix(
      device: device,
      time: Timestamp(microsecondsSinceEpoch: times.time(at: position, row: row)),
      latitude: latitude.requiredValue(at: position),
      longitude: longitude.requiredValue(at: position),
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
    Timestamp(microsecondsSinceEpoch: times.time(at: position, row: rows[position]))
  }

  /// Fixes of a file read before the room for the rest is reserved (see
  /// ``TrackReader/estimatedFixCount``).
  static let rowsBeforeReserving = 8_192

  /// Reserves room for `count` fixes.
  public mutating func reserveCapacity(_ count: Int) {
    rows.reserveCapacity(count)
    times.reserveCapacity(count)
    latitude.reserveCapacity(count)
    longitude.reserveCapacity(count)
    accuracy.reserveCapacity(count)
    speed.reserveCapacity(count)
    course.reserveCapacity(count)
  }

  /// Bytes a row takes in the row table (the value columns aside).
  static var rowBytes: Int { MemoryLayout<Row>.stride }

  /// Which optional columns are stored (for tests of the storage).
  var storedColumns: (accuracy: Bool, speed: Bool, course: Bool) {
    (accuracy.isStored, speed.isStored, course.isStored)
  }

  /// Whether the times are kept as whole seconds in the rows (for tests of the storage).
  var timesAreCoded: Bool { times.isCoded }

  /// Which optional columns hold 2-byte codes (for tests of the storage).
  var narrowColumns: [String] {
    [("accuracy", accuracy), ("speed", speed), ("course", course)].filter { $0.1.isNarrow }
      .map(\.0)
  }

  /// Which value columns fell back to `Double`s (for tests of the storage).
  var columnsHoldingDoubles: [String] {
    [
      ("latitude", latitude), ("longitude", longitude), ("accuracy", accuracy),
      ("speed", speed), ("course", course),
    ].filter { $0.1.holdsDoubles }.map(\.0)
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
    try reader.forEachRemainingFix { table.append($0) }
    table.skippedRowCount += reader.skippedRowCount
    table.issues += reader.issues
  }
  table.sortByTime()
  table.finishAppending()
  // The name table's and the names' earlier generations (freed as they doubled, below glibc's
  // mmap threshold) stay resident in the heap otherwise: 59 MB for a million devices.
  fencekit_release_free_memory()
  return table
}
