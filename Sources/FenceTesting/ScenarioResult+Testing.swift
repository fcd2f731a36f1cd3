#if canImport(Testing)
  import Testing

  extension ScenarioResult {
    /// Records an issue with the readable diff (see ``EventListDiff``) when the events differ
    /// from `expected`.
    ///
    /// - Returns: whether the events matched.
    @discardableResult
    public func expectEvents(
      _ expected: [ExpectedEvent], _ comment: Comment? = nil, fileID: String = #fileID,
      filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Bool {
      guard let diff = diff(expected) else { return true }
      let prefix = comment.map { "\($0.rawValue)\n" } ?? ""
      Issue.record(
        Comment(rawValue: prefix + diff.description),
        sourceLocation: SourceLocation(
          fileID: fileID, filePath: filePath, line: line, column: column))
      return false
    }

    /// Records an issue when the rejection counts differ from `expected` (reasons not named
    /// must be 0).
    ///
    /// - Returns: whether the counts matched.
    @discardableResult
    public func expectRejections(
      _ expected: [RejectionReason: Int], fileID: String = #fileID, filePath: String = #filePath,
      line: Int = #line, column: Int = #column
    ) -> Bool {
      let actual = rejections.byReason
      let wanted = expected.filter { $0.value != 0 }
      guard actual != wanted else { return true }
      var text = "Rejections differ (reason: expected, actual):"
      for reason in RejectionReason.allCases where wanted[reason] != actual[reason] {
        text += "\n  \(reason.rawValue): \(wanted[reason] ?? 0), \(actual[reason] ?? 0)"
      }
      Issue.record(
        Comment(rawValue: text),
        sourceLocation: SourceLocation(
          fileID: fileID, filePath: filePath, line: line, column: column))
      return false
    }
  }
#endif
