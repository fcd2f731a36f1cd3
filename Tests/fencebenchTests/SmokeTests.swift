import Testing

@Test func packageBuilds() { #expect(1 + 1 == 2) }
