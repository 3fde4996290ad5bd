"""Data: real-corpus loaders and the embedded related-documents world, behind shared `datasets` schemas."""
