"""Signing in to the `/floor/...` pages (pages.md): an API key typed once, then a session.

- `/floor/sign-in` takes the key in a form and verifies it as the API verifies a bearer
  key (service.http.auth). A valid key opens a server-side session (`PageSessions`, the
  page_sessions table of migration 0012) under a random id sent in an HttpOnly,
  SameSite=Strict cookie (Secure when the request came over https); the table and the
  lookup are service.http.page_sessions'. The row keeps the key's id, role and player,
  never the key.
- Any role may sign in (a player's session sees a stream as that player); the floor's
  pages say which roles they admit.
- Every request checks the row against api_keys: a revoked key ends its sessions at once,
  and a session expires SESSION_TTL_S after sign-in (a shift at the floor desk).
- Every POST to a page carries `csrf_token` (the Jinja global `csrf_token()` in a hidden
  field): the session's token, or before sign-in the token of an anonymous cookie (the
  double-submit pattern, so the sign-in form itself cannot be forged). A missing or wrong
  token is a 403 `csrf_invalid`.
- `floor_page(roles=...)` guards a page: signed out, it redirects to the sign-in; another
  role gets a 403 page. Inside, `current_principal()` is the signed-in caller, so the page
  calls the same application functions as the API's views.
- Streams (`GET /v1/.../stream`) accept the session cookie too (`stream_caller`), since a
  browser's EventSource sends no Authorization header; the caller's redaction applies.
"""
from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import Response, g, make_response, redirect, render_template, request, url_for

from service.application.api_keys import REVOKED, Principal
from service.application.page_sessions import SESSION_TTL_S
from service.http.api import resources
from service.http.auth import acting_as, principal_for_key
from service.http.page_sessions import SESSION_COOKIE, current_session, signed_in
from service.http.pages.frame import pages, problem_page

ANONYMOUS_CSRF_COOKIE = "cardroom_csrf"
CSRF_FIELD = "csrf_token"
ANONYMOUS_CSRF_TTL_S = 3600

View = TypeVar("View", bound=Callable[..., Any])


# ------------------------------------------------------------------------------ CSRF


@pages.app_template_global()
def csrf_token() -> str:
    """The token every POST form of the pages carries (a Jinja global): the session's, or
    before sign-in the anonymous cookie's (set on this response when new)."""
    session = current_session()
    if session is not None:
        return session.csrf_token
    token = request.cookies.get(ANONYMOUS_CSRF_COOKIE) or g.get("new_anonymous_csrf")
    if not token:
        token = g.new_anonymous_csrf = secrets.token_urlsafe(32)
    return token


def _expected_csrf() -> str | None:
    session = current_session()
    return session.csrf_token if session is not None else request.cookies.get(ANONYMOUS_CSRF_COOKIE)


@pages.before_request
def check_csrf() -> Response | None:
    """Every POST to a page carries the CSRF token of its form."""
    if request.method != "POST":
        return None
    sent = request.form.get(CSRF_FIELD, "")
    expected = _expected_csrf()
    if not expected or not sent or not hmac.compare_digest(sent.encode(), expected.encode()):
        return problem_page(403, "csrf_invalid", "the form's CSRF token is missing or does not match "
                                                 "this browser's session: reload the page and send it again")
    return None


@pages.after_request
def set_anonymous_csrf_cookie(response: Response) -> Response:
    token = g.get("new_anonymous_csrf")
    if token:
        response.set_cookie(ANONYMOUS_CSRF_COOKIE, token, max_age=ANONYMOUS_CSRF_TTL_S, path="/",
                            httponly=True, samesite="Strict", secure=request.is_secure)
    return response


# -------------------------------------------------------------------------- the guard


def floor_page(roles: tuple[str, ...]) -> Callable[[View], View]:
    """Guard a page view: signed out, a redirect to the sign-in (and back after it);
    signed in with another role, a 403 page. The view runs as the signed-in caller, and
    its answer is not cached (Cache-Control: no-store)."""

    def decorator(view: View) -> View:
        @wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            principal = signed_in()
            if principal is None:
                return redirect(url_for("pages.sign_in", next=request.full_path.rstrip("?")))
            if principal.role not in roles:
                return problem_page(403, "forbidden", f"the {principal.role} role may not open this page; "
                                                      f"allowed: {', '.join(roles)}")
            with acting_as(principal):
                response = make_response(view(*args, **kwargs))
            # What a signed-in caller saw stays out of shared and back-button caches.
            response.headers["Cache-Control"] = "no-store"
            return response

        return guarded  # type: ignore[return-value]

    return decorator


# ---------------------------------------------------------------------------- the views


def _local(target: str | None) -> str:
    """Where to go after signing in: a path of this site only (never another host)."""
    if (not target or not target.startswith("/") or target.startswith("//") or "\\" in target
            or len(target) > 2000 or any(ord(c) < 32 or ord(c) == 127 for c in target)):
        return url_for("pages.home")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return url_for("pages.home")
    return target


@pages.route("/floor/sign-in", methods=["GET"])
def sign_in() -> Any:
    return render_template("sign_in.html", next=_local(request.args.get("next")), error=None)


@pages.route("/floor/sign-in", methods=["POST"])
def sign_in_with_key() -> Any:
    target = _local(request.form.get("next"))
    secret = request.form.get("key", "")
    found = principal_for_key(secret) if secret.strip() and len(secret) <= 200 and "\x00" not in secret else None
    error = None
    if found is None:
        error = "That key is not valid."
    elif found is REVOKED:
        error = "That key was revoked."
    sessions = resources().sessions
    if error is None and sessions is None:
        error = "No database is configured: sessions cannot be kept."
    if error is not None:
        return render_template("sign_in.html", next=target, error=error), 401
    assert sessions is not None and isinstance(found, Principal)
    # A sign-in always starts a new session (a fixed id could have been planted); the
    # browser's previous one ends.
    previous = request.cookies.get(SESSION_COOKIE)
    if previous:
        sessions.close(previous)
    session_id, _ = sessions.open(found)
    response = redirect(target, code=303)
    response.set_cookie(SESSION_COOKIE, session_id, max_age=SESSION_TTL_S, path="/", httponly=True,
                        samesite="Strict", secure=request.is_secure)
    response.delete_cookie(ANONYMOUS_CSRF_COOKIE, path="/")
    return response


@pages.route("/floor/sign-out", methods=["POST"])
def sign_out() -> Any:
    session_id = request.cookies.get(SESSION_COOKIE)
    sessions = resources().sessions
    if session_id and sessions is not None:
        sessions.close(session_id)
    response = redirect(url_for("pages.home"), code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="Strict",
                           secure=request.is_secure)
    return response


@pages.context_processor
def signed_in_caller() -> dict[str, Any]:
    """The pages' templates see `caller` (the signed-in Principal, or None); `csrf_token()`
    is a Jinja global (a form sends it as the field CSRF_FIELD, `csrf_token`)."""
    return {"caller": signed_in()}
