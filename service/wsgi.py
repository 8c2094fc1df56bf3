"""gunicorn entry point: `gunicorn service.wsgi:app` (configuration from the environment,
checked first: a wrong value stops the server with one line naming it, not a traceback)."""
from service.adapters import logs
from service.bootstrap import create_app
from service.config import checked_from_env

config = checked_from_env()
logs.configure(config)
app = create_app(config)
