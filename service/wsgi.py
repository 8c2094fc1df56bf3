"""gunicorn entry point: `gunicorn service.wsgi:app` (configuration from the environment,
checked first: a wrong value stops the worker with a message naming it)."""
from service import logs
from service.app import create_app
from service.config import Config

config = Config.from_env()
logs.configure(config)
app = create_app(config)
