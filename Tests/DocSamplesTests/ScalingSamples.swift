// The Swift sample of Docs/Scaling.md, compiled here so that it keeps compiling; see
// Scripts/check-doc-samples.

import FenceEngine

/// Docs/Scaling.md, "In one process: `ShardedEvaluator` and `ShardedMonitor`". The sample's
/// `zones`, `batches` and `end` are the parameters.
func scalingShardedEvaluator(zones: [Zone], batches: [[LocationFix]], end: Timestamp) throws
  -> [ZoneEvent]
{
  let sharded = try ShardedEvaluator(shardCount: 4, zones: zones)
  var events: [ZoneEvent] = []
  for batch in batches {                  // time-ordered batches of fixes
    sharded.process(batch, into: &events)  // one thread per shard, then a time sync
  }
  sharded.advance(to: end, into: &events)
  return events
}
