// Module FenceFormats: see Docs/Architecture.md.
