import FenceTesting
import Testing

@Suite struct ScenarioTests {}
