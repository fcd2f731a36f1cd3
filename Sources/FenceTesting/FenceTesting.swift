// `import FenceTesting` is all a zone-rule test needs: the engine's and the geometry's types
// (Zone, ZoneRules, ZoneEvent, Coordinate, ...) come with it.
@_exported import FenceEngine
@_exported import FenceGeometry
