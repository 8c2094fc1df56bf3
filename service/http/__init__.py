"""The HTTP face: blueprints, schemas, problems, authentication, limits, metrics, the
OpenAPI document, streams and the gunicorn worker."""
