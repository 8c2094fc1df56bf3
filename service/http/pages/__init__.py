"""The pages for the people in the room (pages.md): server-rendered HTML from the same
application layer as the API, a little plain JavaScript, no build step.

`pages` is their one Flask blueprint (service.http.pages.frame: the templates, the static
files, the filters and the error pages every page shares); each module of views below adds
its routes to it, and this package imports them all, so importing any module of it (as
service.bootstrap imports `pages` from frame) registers every page.
"""
from __future__ import annotations

from service.http.pages import desk, desk_print, floor_tables, hand_rulings, home, replayer, rulings_forms, screens, series, session, table_opening  # noqa: F401
