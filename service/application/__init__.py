"""The application layer: load a stream, let the domain decide, append with the expected
version; the read models and views every entry point (HTTP, pages, workers) shares."""
