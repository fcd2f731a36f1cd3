import FenceEngine
import FenceFormats

/// Everything one pass of a ``FenceFormats/TrackReader`` over a file gave: the fixes it
/// returned, the error that ended it early (if any), and the rows it skipped.
public struct TrackFileReading {
  public var fixes: [LocationFix] = []
  public var error: TrackReadError?
  public var issues: [TrackIssue] = []
  public var skippedRowCount = 0

  /// Reads the file to its end or to the first error; any error that is not a
  /// ``FenceFormats/TrackReadError`` (the only one the reader documents) breaks a property.
  public init(path: String, options: TrackReadOptions) {
    let reader: TrackReader
    do {
      reader = try TrackReader(path: path, options: options)
    } catch let failure as TrackReadError {
      error = failure
      return
    } catch {
      fuzzCheck(false, "TrackReader.init threw \(type(of: error)): \(error)")
      return
    }
    do {
      while let fix = try reader.next() { fixes.append(fix) }
    } catch let failure as TrackReadError {
      error = failure
    } catch {
      fuzzCheck(false, "TrackReader.next threw \(type(of: error)): \(error)")
    }
    fuzzCheck(reader.fixCount == fixes.count, "fixCount \(reader.fixCount) for \(fixes.count) fixes")
    issues = reader.issues
    skippedRowCount = reader.skippedRowCount
  }

  /// Reads the file again with ``FenceFormats/TrackReader/readAll()``, whose loop keeps the
  /// reader's issue log and count in locals, and checks that it gives what the pass of `next()`
  /// gave (`byNext`): the same fixes bit for bit, issues, skipped rows and count, or the same
  /// error after the same number of fixes.
  public static func checkReadAll(path: String, options: TrackReadOptions, against byNext: TrackFileReading) {
    let reader: TrackReader
    do {
      reader = try TrackReader(path: path, options: options)
    } catch {
      fuzzCheck(byNext.error != nil, "TrackReader.init threw only for readAll: \(error)")
      return
    }
    do {
      let fixes = try reader.readAll()
      fuzzCheck(byNext.error == nil, "readAll ended without the error next() met: \(String(describing: byNext.error))")
      fuzzCheck(haveSameBits(fixes, byNext.fixes), "readAll gave \(fixes.count) fixes, next() \(byNext.fixes.count)")
    } catch let failure as TrackReadError {
      fuzzCheck(failure == byNext.error, "readAll threw \(failure), next() \(String(describing: byNext.error))")
    } catch {
      fuzzCheck(false, "readAll threw \(type(of: error)): \(error)")
    }
    fuzzCheck(reader.fixCount == byNext.fixes.count, "readAll counted \(reader.fixCount) fixes, next() read \(byNext.fixes.count)")
    fuzzCheck(reader.issues == byNext.issues, "readAll kept other issues than next()")
    fuzzCheck(reader.skippedRowCount == byNext.skippedRowCount, "readAll skipped \(reader.skippedRowCount) rows, next() \(byNext.skippedRowCount)")
  }

  /// Reads a track file leniently and checks that every skipped row is counted and the first
  /// `maximumRetainedIssues` are kept; when a row was skipped, reads it strictly too and checks
  /// that the two passes agree: the strict fixes are the first lenient ones, and the strict pass
  /// stops exactly at the first row the lenient one skipped (same line and reason). (Without a
  /// skipped row a strict pass is the same pass: a file is opened only once then, which
  /// doubles the executions per second.)
  public static func checkLenientAgainstStrict(path: String, options: TrackReadOptions) {
    var lenientOptions = options
    lenientOptions.strict = false
    var strictOptions = options
    strictOptions.strict = true
    let lenient = TrackFileReading(path: path, options: lenientOptions)
    checkReadAll(path: path, options: lenientOptions, against: lenient)
    fuzzCheck(
      lenient.issues.count == min(lenient.skippedRowCount, options.maximumRetainedIssues),
      "\(lenient.issues.count) issues kept of \(lenient.skippedRowCount) skipped")
    guard lenient.skippedRowCount > 0 else { return }
    let strict = TrackFileReading(path: path, options: strictOptions)
    checkReadAll(path: path, options: strictOptions, against: strict)

    fuzzCheck(strict.skippedRowCount == 0, "a strict reader skipped \(strict.skippedRowCount) rows")
    fuzzCheck(
      strict.fixes.count <= lenient.fixes.count
        && haveSameBits(strict.fixes, Array(lenient.fixes.prefix(strict.fixes.count))),
      "the strict fixes (\(strict.fixes.count)) are not the first lenient ones (\(lenient.fixes.count))")
    if let first = lenient.issues.first {
      fuzzCheck(
        strict.error == TrackReadError(file: path, line: first.line, reason: first.reason),
        "strict stopped with \(String(describing: strict.error)), lenient first skipped \(first)")
    } else {
      fuzzCheck(strict.error != nil, "a strict pass read a file whose lenient pass skipped rows (none kept)")
    }
  }
}
