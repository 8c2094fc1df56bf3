"""Who a request's page session (its cookie) says the caller is; the sessions themselves
are service.application.page_sessions. Kept apart from the pages' views (service.http.pages.session)
because the API's streams read sessions too: a browser's EventSource sends no
Authorization header, so a stream accepts the session cookie (live.md).
"""
from __future__ import annotations

from flask import g, request

from service.application.api_keys import Principal
from service.application.page_sessions import PageSession
from service.http.api import resources
from service.http.auth import authenticate

SESSION_COOKIE = "cardroom_session"


def current_session() -> PageSession | None:
    """The request's live session, looked up once per request."""
    if "page_session" not in g:
        g.page_session = _look_up_session()
    session: PageSession | None = g.page_session
    return session


def _look_up_session() -> PageSession | None:
    session_id = request.cookies.get(SESSION_COOKIE)
    sessions = resources().sessions
    # A cookie no random id could be is not worth a query.
    if not session_id or sessions is None or len(session_id) > 100 or "\x00" in session_id:
        return None
    return sessions.find(session_id, master_key_configured=bool(resources().config.admin_key))


def signed_in() -> Principal | None:
    """Who is signed in to the pages on this request, if anyone."""
    session = current_session()
    return session.principal if session else None


def stream_caller() -> Principal:
    """A stream's caller: the bearer key when one is sent, else the pages' session, else a
    401 as the API answers."""
    if "Authorization" not in request.headers:
        principal = signed_in()
        if principal is not None:
            return principal
    return authenticate()
