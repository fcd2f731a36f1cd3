// Module FenceEngine: see Docs/Architecture.md.
