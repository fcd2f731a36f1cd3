/// The path of a file under the repository's top-level `Fixtures/` folder.
public func fixturePath(_ name: String, filePath: String = #filePath) -> String {
  // This file is Tests/FenceTestSupport/Fixtures.swift: the root is three levels up.
  let root = filePath.split(separator: "/").dropLast(3).joined(separator: "/")
  return "/\(root)/Fixtures/\(name)"
}

/// The path of a file under `../shared/data` beside the repository, if that folder exists.
public func sharedDataPath(_ name: String, filePath: String = #filePath) -> String {
  let root = filePath.split(separator: "/").dropLast(4).joined(separator: "/")
  return "/\(root)/shared/data/\(name)"
}
