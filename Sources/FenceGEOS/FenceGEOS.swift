// Module FenceGEOS: see Docs/Architecture.md.
