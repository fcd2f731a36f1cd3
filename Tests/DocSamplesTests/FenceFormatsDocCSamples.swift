// The Swift sample of the FenceFormats DocC catalog (Sources/FenceFormats/Documentation.docc),
// compiled here so that it keeps compiling; see Scripts/check-doc-samples.

import FenceEngine
import FenceFormats

/// FenceFormats.md, "Overview". Not run: it reads `harbor.geojson`, `ais.csv` and
/// `phones.ndjson.gz` from the working directory and writes to standard output.
func fenceFormatsOverview() throws {
  let zones = try ZoneLoader.loadZones(contentsOf: "harbor.geojson")
  let fixes = try readSorted(paths: ["ais.csv", "phones.ndjson.gz"])   // all fixes, by time
  var evaluator = try ZoneEvaluator(zones: zones)
  var events: [ZoneEvent] = []
  let writer = try EventWriter(path: "-")                              // "-": standard output
  for fix in fixes {
    evaluator.process(fix, into: &events)
    try writer.write(contentsOf: events)
    events.removeAll(keepingCapacity: true)
  }
  try writer.close()
}
