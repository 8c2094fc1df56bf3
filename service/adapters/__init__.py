"""What the application runs on: the event store, the embedded servers, notifications,
logging, migrations and the log's keyed integrity."""
