"""The frame every page (service.http.pages) builds on:
- `pages`, one Flask blueprint without a URL prefix (registered in service.bootstrap);
  templates in `templates/` (Jinja2, autoescaped: what people typed renders as text),
  static files in `static/` served under STATIC_URL.
- `templates/base.html`: blocks `title`, `head`, `main` and `scripts`, the nav, the
  responsive frame (a TV, a laptop, a phone, no horizontal scroll).
- service.http.pages.session: sign-in, `floor_page(roles=...)`, `csrf_token()` and the
  CSRF check on every POST.
- `static/live.js`: `Cardroom.follow(url, onEvent)`, an EventSource on a stream.
- Jinja filters `clock_time` (seconds as 12:00), `chips` (25,000: the one formatter of
  amounts, domain.rules.betting.chips), `figure` (a ruling's or problem's number, as
  `chips`), `ordinal` (1st), `day` and `time_of_day` (an epoch as Sat 5 Dec, 20:00 UTC).
- Every page answer carries CONTENT_SECURITY_POLICY: scripts come from static/ only.
- `problem_page(status, code, detail)`: an error as a page (a problem document for a
  client that does not take HTML); problems, violations and conflicts raised in a page
  view come out that way.

Modules of views register their routes on `pages`; service.http.pages imports them all.
"""
from __future__ import annotations

import http
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from flask import Blueprint, Response, render_template, request

from domain.rules.betting import Amount
from domain.rules.betting import chips as chip_words
from domain.rules.violations import Violation
from service.application.event_log import VersionConflict
from service.application.handling import UnreadableStream
from service.http.problems import UNREADABLE_STREAM_STATUS, Problem, problem_response, unreadable_stream_problem

STATIC_URL = "/static/pages"
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                           "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
"""Scripts only from static/ (no inline script, no inline handler, no javascript: URL):
should a name ever slip past the escaping, the browser still runs none of it."""

pages = Blueprint("pages", __name__, template_folder="templates", static_folder="static",
                  static_url_path=STATIC_URL)


def problem_page(status: int, code: str, detail: str, **numbers: Any) -> Response:
    """An error a person reads: the page with the status, the stable code and the detail;
    a problem document (the API's shape) when the client asks for JSON."""
    best = request.accept_mimetypes.best_match(["text/html", "application/json",
                                                "application/problem+json"])
    if best is not None and best != "text/html":
        return problem_response(status, code, detail, **numbers)
    body = render_template("problem.html", status=status, title=http.HTTPStatus(status).phrase,
                           code=code, detail=detail, numbers=numbers)
    return Response(body, status, mimetype="text/html")


@pages.app_template_filter("clock_time")
def clock_time(seconds: float | None) -> str:
    """Seconds as a clock shows them: 9:05, 12:00, 1:30:00 (as static/screens.js does)."""
    whole = max(0, int(seconds or 0))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@pages.app_template_filter("chips")
def chips(amount: Amount | None) -> str:
    """A chip count with thousands separated: 25,000. The one formatter of amounts
    (domain.rules.betting.chips): what a page writes reads as the rulings' words do."""
    return "" if amount is None else chip_words(amount)


@pages.app_template_filter("figure")
def figure(value: Any) -> str:
    """A value of a ruling's or a problem's numbers: a number as `chips` writes it (so a
    page never shows 1000 beside 1,400), anything else as it is."""
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return chips(value)
    return str(value)


@pages.app_template_filter("ordinal")
def ordinal(number: int) -> str:
    """A place as people say it: 1st, 2nd, 3rd, 11th, 22nd."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


@pages.app_template_filter("day")
def day(epoch: float) -> str:
    """The day of a moment, in UTC (static/screens.js shows it in the screen's own time
    zone): Sat 5 Jan."""
    moment = datetime.fromtimestamp(epoch, tz=UTC)
    return f"{moment:%a} {moment.day} {moment:%b}"


@pages.app_template_filter("time_of_day")
def time_of_day(epoch: float) -> str:
    """The time of a moment, in UTC (as `day`): 20:00 UTC."""
    return f"{datetime.fromtimestamp(epoch, tz=UTC):%H:%M} UTC"


@pages.after_request
def _page_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


@pages.errorhandler(Problem)
def _problem(error: Problem) -> Response:
    response = problem_page(error.status, error.code, error.detail, **error.extensions)
    response.headers.update(error.headers)
    return response


@pages.errorhandler(Violation)
def _violation(error: Violation) -> Response:
    return problem_page(422, error.code, error.detail, **({"rule": error.rule} if error.rule else {}),
                        numbers=dict(error.numbers))


@pages.errorhandler(VersionConflict)
def _conflict(error: VersionConflict) -> Response:
    return problem_page(409, "version_conflict", "someone else changed this first: reload and try again")


@pages.errorhandler(UnreadableStream)
def _unreadable(error: UnreadableStream) -> Response:
    detail, numbers = unreadable_stream_problem(error)
    return problem_page(UNREADABLE_STREAM_STATUS, error.code, detail, numbers=numbers)
