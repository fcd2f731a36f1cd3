import ArgumentParser

@main
struct FenceBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fencebench", abstract: "Replays location tracks through the FenceKit engine.")
  func run() throws { print("fencebench: not yet implemented") }
}
