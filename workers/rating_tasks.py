"""Rating updates from workers: the tables layer (or anything that finishes a ranked
game) sends the result here. Applying it goes through service.application.ratings, which rates a
result id once, so a redelivered or duplicated task changes nothing."""
from __future__ import annotations

import logging

from domain.ratings import Finish, GameResult
from domain.rules.violations import Violation
from service.adapters.scheduler import APPLY_RATING_TASK
from service.application import ratings
from service.application.handling import UnreadableStream
from workers.celery_app import app, resources

log = logging.getLogger(__name__)


@app.task(name=APPLY_RATING_TASK)
def apply_rating(game: str, result_id: str, finishes: list[dict]) -> int:
    """Rate one finished game; `finishes` are {"player_id", "place"}. Returns the version
    of the game's rating stream that holds the update."""
    result = GameResult(result_id, game, tuple(Finish(f["player_id"], int(f["place"])) for f in finishes))
    try:
        recorded = ratings.record_result(resources().application, result, actor="worker")
    except Violation as refused:
        # A result the rules refuse will be refused on every retry: log it, do not retry.
        log.warning("rating for %s/%s refused: %s", game, result_id, refused)
        return 0
    except UnreadableStream as refused:
        # The game's rating stream cannot be read or fails its integrity check: nothing is
        # rated on it (/v1/status lists it); a retry meets the same.
        log.error("rating for %s/%s not applied: %s", game, result_id, refused)
        return 0
    log.info("rating for %s/%s %s", game, result_id, "already applied" if recorded.deduplicated else "applied")
    return recorded.version
