import Foundation
import Testing

/// The tests' temporary files go to one folder per test run, and a run removes the folders of
/// earlier runs whose process has ended (`FenceBenchProcess.runFolder`).
@Suite struct TemporaryFolderTests {
  @Test func foldersOfEndedRunsAreRemovedAndOthersKept() throws {
    let parent = FileManager.default.temporaryDirectory
      .appendingPathComponent("fencebench-folder-test-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: parent) }
    // A process that has ended (and been waited for): its id names no running process.
    let ended = Process()
    ended.executableURL = URL(fileURLWithPath: "/bin/sh")
    ended.arguments = ["-c", "exit 0"]
    try ended.run()
    ended.waitUntilExit()
    let own = ProcessInfo.processInfo.processIdentifier
    let prefix = FenceBenchProcess.folderPrefix
    let names = [
      "\(prefix)\(own)", "\(prefix)\(ended.processIdentifier)", "\(prefix)abc", "other-\(own)",
    ]
    for name in names {
      try FileManager.default.createDirectory(
        atPath: parent + "/" + name, withIntermediateDirectories: true)
      #expect(FileManager.default.createFile(atPath: parent + "/" + name + "/file", contents: Data([1])))
    }
    let removed = FenceBenchProcess.removeFoldersOfEndedRuns(in: parent)
    #expect(removed == ["\(prefix)\(ended.processIdentifier)"])
    let left = try FileManager.default.contentsOfDirectory(atPath: parent).sorted()
    #expect(left == ["\(prefix)\(own)", "\(prefix)abc", "other-\(own)"].sorted())
  }

  /// This run's folder is named after this process and exists.
  @Test func theRunFolderIsThisProcessesAndExists() {
    let folder = FenceBenchProcess.runFolder
    #expect(folder.hasSuffix("/\(FenceBenchProcess.folderPrefix)\(ProcessInfo.processInfo.processIdentifier)"))
    var isDirectory: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue)
  }
}
