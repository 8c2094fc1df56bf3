"""The event store: the contract (base), an in-memory store and the PostgreSQL store."""
