// Module FenceTesting: see Docs/Architecture.md.
