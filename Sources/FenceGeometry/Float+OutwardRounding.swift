extension Float {
  /// The largest `Float` at most `value`: a lower bound stays a lower bound when it is kept in
  /// half the bytes (the packed tree's lane boxes, a circle's test in degrees).
  package init(roundingDown value: Double) {
    let nearest = Float(value)
    self = Double(nearest) > value ? nearest.nextDown : nearest
  }

  /// The smallest `Float` at least `value`: an upper bound stays an upper bound.
  package init(roundingUp value: Double) {
    let nearest = Float(value)
    self = Double(nearest) < value ? nearest.nextUp : nearest
  }
}
