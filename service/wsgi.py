"""gunicorn entry point: `gunicorn service.wsgi:app` (configuration from the environment)."""
from service.app import create_app

app = create_app()
