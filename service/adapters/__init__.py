"""What the application runs on: the event store (and its metrics), the embedded servers,
notifications, the Celery scheduler, logging, migrations and the log's keyed integrity."""
