"""The application layer: one handling path (handling.py: load a stream, let the domain
decide, append with the expected version) for tables, tournaments, ratings and players,
the Application that holds it (application.py, built once by service.wiring), what it
schedules (scheduling.py, an interface), and the read models and views every entry point
(HTTP, pages, workers) shares."""
