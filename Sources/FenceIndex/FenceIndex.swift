// Module FenceIndex: see Docs/Architecture.md.
