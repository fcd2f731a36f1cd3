/// Sorts keys whose high 32 bits are the sort key and whose low 32 bits are distinct positions
/// given in increasing order.
///
/// A stable least-significant-digit radix sort in two passes of 16 bits: O(*n*) and about ten
/// times faster than a comparison sort for the million-key loads the index sees. Because the
/// low halves arrive in increasing order and the sort is stable, the result equals a plain
/// `sort()`, which small inputs use.
///
/// Keys already in order are left as they are after one pass that finds it: an index packed
/// from fences that a load put in the same curve order (its zones applied along the curve of
/// their first boxes' centres, decision 0012) gets its keys in order.
func sortByHighWord(_ keys: inout ContiguousArray<UInt64>) {
  let n = keys.count
  let inOrder = keys.withUnsafeBufferPointer { keys in
    keys.indices.dropFirst().allSatisfy { keys[$0 - 1] <= keys[$0] }
  }
  if inOrder { return }
  if n < 1 << 12 {
    keys.sort()
    return
  }
  var other = ContiguousArray<UInt64>(repeating: 0, count: n)
  var counts = ContiguousArray<Int>(repeating: 0, count: 1 << 16)
  for shift: UInt64 in [32, 48] {
    keys.withUnsafeBufferPointer { source in
      other.withUnsafeMutableBufferPointer { target in
        counts.withUnsafeMutableBufferPointer { count in
          for i in 0..<count.count { count[i] = 0 }
          for key in source { count[Int((key >> shift) & 0xFFFF)] += 1 }
          var sum = 0
          for digit in 0..<count.count {
            let c = count[digit]
            count[digit] = sum
            sum += c
          }
          for key in source {
            let digit = Int((key >> shift) & 0xFFFF)
            target[count[digit]] = key
            count[digit] += 1
          }
        }
      }
    }
    swap(&keys, &other)
  }
}
