import FenceEngine
import FenceFormats
import FuzzSupport

/// The NDJSON fix readers on any bytes: ``FixBatchReader`` (a daemon's request body, NDJSON or a
/// JSON array) and ``TrackReader`` on a `.ndjson` file. Besides never trapping:
///
/// - a rejected batch keeps at most ``FixBatchReader/keptProblemLimit`` problems, in body order;
///   an accepted one holds only possible fixes;
/// - the lines of an accepted NDJSON batch, put in a JSON array, give the same fixes (so the
///   flat-line fast path agrees with the full JSON parse the array elements go through);
/// - the file reader takes every line of a body exactly when the batch reader does (less the
///   batch's checks of possible values), with the same fixes;
/// - the body repeated past the size at which batches are read on several threads gives the
///   same fixes, or the same problems on the shifted lines.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNDJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let body = Array(UnsafeBufferPointer(start: data, count: size))
  let batch = readBatch(body)
  switch batch {
  case .failure(let error):
    fuzzCheck(error.problemCount >= 1, "an error without problems")
    fuzzCheck(
      error.problems.count == min(error.problemCount, FixBatchReader.keptProblemLimit),
      "\(error.problems.count) problems kept of \(error.problemCount)")
    fuzzCheck(
      zip(error.problems, error.problems.dropFirst()).allSatisfy { $0.line < $1.line },
      "problems out of body order: \(error.problems.map(\.line))")
  case .success(let fixes):
    for fix in fixes { fuzzCheck(isPossible(fix), "an accepted impossible fix \(fix)") }
  }

  let hasByteOrderMark = body.starts(with: [0xEF, 0xBB, 0xBF])
  let text = hasByteOrderMark ? Array(body.dropFirst(3)) : body
  if text.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[") { return 0 }
  let lines = ndjsonLines(text)

  if case .success(let fixes) = batch {
    var array: [UInt8] = Array("[\n".utf8)
    for (index, line) in lines.enumerated() {
      if index > 0 { array.append(contentsOf: Array(",\n".utf8)) }
      array.append(contentsOf: line)
    }
    array.append(contentsOf: Array("\n]".utf8))
    switch readBatch(array) {
    case .success(let again):
      fuzzCheck(haveSameBits(fixes, again), "the lines as a JSON array give other fixes")
    case .failure(let error):
      fuzzCheck(false, "the accepted lines as a JSON array are rejected: \(error)")
    }
  }

  if !hasByteOrderMark {
    let reading = body.withUnsafeBufferPointer { buffer in
      withScratchFile(holding: buffer, suffix: ".ndjson") { path in
        TrackFileReading(path: path, options: TrackReadOptions())
      }
    }
    fuzzCheck(reading.error == nil, "the NDJSON file reader stopped: \(String(describing: reading.error))")
    switch batch {
    case .success(let fixes):
      fuzzCheck(
        reading.skippedRowCount == 0 && haveSameBits(reading.fixes, fixes),
        "the file reader skipped \(reading.skippedRowCount) rows (\(reading.issues.first.map(String.init(describing:)) ?? "")) or read other fixes than the batch")
    case .failure(let error):
      fuzzCheck(
        reading.skippedRowCount > 0 || !reading.fixes.allSatisfy(isPossible),
        "the file reader took every line of a batch rejected with \(error)")
    }
  }

  // Reading 64 KiB costs as much as a few hundred small inputs: one input in 64, chosen by a
  // hash of its bytes (libFuzzer makes many inputs of exactly the maximum length, so the size
  // would choose too many).
  if body.reduce(0, { ($0 &* 31) &+ Int($1) }) & 63 == 0, !hasByteOrderMark {
    checkRepeated(body, single: batch)
  }
  return 0
}

/// The batch reader's answer as a value.
private func readBatch(_ body: [UInt8]) -> Result<[LocationFix], FixBatchError> {
  do {
    return .success(try FixBatchReader.fixes(in: body))
  } catch {
    return .failure(error)
  }
}

/// Repeats the body (each copy ending in a line feed) until it is read on several threads, and
/// compares with one copy's answer.
private func checkRepeated(_ body: [UInt8], single: Result<[LocationFix], FixBatchError>) {
  var copy = body
  if copy.last != 0x0A { copy.append(0x0A) }
  let linesPerCopy = copy.count(where: { $0 == 0x0A })
  let copies = (1 << 16) / copy.count + 2
  var repeated: [UInt8] = []
  repeated.reserveCapacity(copies * copy.count)
  for _ in 0..<copies { repeated.append(contentsOf: copy) }
  let whole = readBatch(repeated)
  switch (single, whole) {
  case (.success(let fixes), .success(let all)):
    var expected: [LocationFix] = []
    for _ in 0..<copies { expected.append(contentsOf: fixes) }
    fuzzCheck(haveSameBits(expected, all), "\(copies) copies give other fixes than one copy \(copies) times")
  case (.failure(let one), .failure(let all)):
    fuzzCheck(
      all.problemCount == one.problemCount * copies,
      "\(copies) copies have \(all.problemCount) problems, one copy \(one.problemCount)")
    if one.problemCount == one.problems.count {
      var expected: [FixBatchError.Problem] = []
      for index in 0..<copies {
        for problem in one.problems where expected.count < FixBatchReader.keptProblemLimit {
          expected.append(
            FixBatchError.Problem(line: problem.line + index * linesPerCopy, reason: problem.reason))
        }
      }
      fuzzCheck(all.problems == expected, "\(copies) copies report other problems than one copy shifted")
    }
  default:
    fuzzCheck(false, "one copy and \(copies) copies disagree: \(single) / \(whole)")
  }
}

/// The lines of an NDJSON body as the batch reader cuts them: at line feeds, without a `\r`
/// before one, blank lines (spaces and tabs only) left out.
private func ndjsonLines(_ text: [UInt8]) -> [ArraySlice<UInt8>] {
  var lines: [ArraySlice<UInt8>] = []
  for var line in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
    if line.last == 0x0D { line = line.dropLast() }
    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
    lines.append(line)
  }
  return lines
}

private func isJSONWhitespace(_ byte: UInt8) -> Bool {
  byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
}

/// The batch reader's documented checks of possible values.
private func isPossible(_ fix: LocationFix) -> Bool {
  func within(_ x: Double?, _ low: Double, _ high: Double) -> Bool {
    guard let x else { return true }
    return x.isFinite && x >= low && x <= high
  }
  return !fix.device.isEmpty && within(fix.latitude, -90, 90) && within(fix.longitude, -180, 180)
    && within(fix.accuracy, 0, .greatestFiniteMagnitude) && within(fix.speed, 0, .greatestFiniteMagnitude)
    && within(fix.course, -360, 360)
}

/// Runs libFuzzer on ``fuzzNDJSON(_:_:)`` (see ``FuzzSupport/runFuzzer(_:)``).
@main
enum FuzzNDJSONMain {
  static func main() { runFuzzer(fuzzNDJSON) }
}
