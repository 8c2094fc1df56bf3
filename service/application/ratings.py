"""The rating projection: each finished ranked result moves the players' Elo and
Glicko-2 ratings exactly once, and the ratings, their history and the leaderboards are read models folded
from the events.

One stream per game, `ratings-<game>`, holds a `RatingsUpdated` per result. A result is
rated against the ratings the stream holds at the version it read, and appended with that
version expected: a concurrent update makes the append conflict and the result is rated
again on the fresh ratings, and a result id already in the stream is answered from it
(nothing new is written). That is what makes a twice-delivered task, an HTTP retry or a
tournament finishing and its sweep all apply a result once. Serialising per game is what
Elo needs anyway: each result is rated on the ratings after the previous one.

Both systems are rated from the same result in one event, so they can never disagree on
which results they counted. A Glicko-2 rating period is one result (one finished game or
tournament): the players of that result are rated against each other's ratings from before
it; players who did not play it keep their deviation (periods are results, not weeks, so
a busy room does not widen everyone's deviation). Results recorded before Glicko-2 was
served moved Elo only; Glicko-2 counts the results since.

Ratings are floats, which the store refuses (see service.adapters.store.base.canonical_json): they
are stored as their shortest round-trip text (`repr`), exact both ways.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from domain.ratings import DEFAULT_ELO, EloChange, Finish, GameResult, Glicko2Change, Glicko2Rating, RatingsUpdated, rate_elo_and_glicko2
from domain.rules.violations import Violation
from service.adapters.store.base import NewEvent, RecordedEvent, format_recorded_at
from service.application.handling import Decision, Loaded, StreamKind
from service.application.parts import Application
from service.application.rating_book import HistoryEntry, PlayerRating, RatingBook

STREAM_PREFIX = "ratings-"
GAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
SYSTEMS = ("elo", "glicko2")
RETRIES = 10  # concurrent results for one game: each retry re-rates on fresher ratings


def stream_id(game: str) -> str:
    return STREAM_PREFIX + game


@dataclass(frozen=True)
class Recorded:
    update: RatingsUpdated
    version: int
    deduplicated: bool


def load_book(app: Application, game: str) -> RatingBook:
    """The game's book: the cached one plus whatever was appended since."""
    book = app.ratings.load(stream_id(game)).state
    return book if book.game == game else replace(book, game=game)


def _fold(book: RatingBook, records: Sequence[RecordedEvent]) -> RatingBook:
    players = dict(book.players)
    results = dict(book.results)
    finishes = dict(book.finishes)
    for record in records:
        update = _update_from(record.data)
        places = tuple(Finish(f["player_id"], int(f["place"])) for f in record.metadata.get("finishes", ()))
        place_of = {f.player_id: f.place for f in places}
        glicko2_of = {c.player_id: c for c in update.glicko2}
        for change in update.elo:
            previous = players.get(change.player_id, PlayerRating(DEFAULT_ELO, 0, ()))
            period = glicko2_of.get(change.player_id)
            entry = HistoryEntry(update.result_id, place_of.get(change.player_id, 0), change.before,
                                 change.after, format_recorded_at(record.recorded_at),
                                 period.before if period else None, period.after if period else None)
            players[change.player_id] = PlayerRating(
                change.after, previous.games + 1, previous.history + (entry,),
                period.after if period else previous.glicko2)
        results[update.result_id] = update
        finishes[update.result_id] = places
    return RatingBook(book.game or records[0].data["game"], records[-1].version, players, results, finishes)


# A book is read for every rated game a player is looked up in: keep the few games' books.
CACHED_GAMES = 64
BOOKS: StreamKind[RatingBook] = StreamKind(STREAM_PREFIX, RatingBook(""), _fold, cached=CACHED_GAMES,
                                           retries=RETRIES)


def record_result(app: Application, result: GameResult, *, actor: str | None = None) -> Recorded:
    """Rate a finished ranked game once. The same result id again answers the first update
    (a different set of finishes under that id is refused)."""
    if not GAME_PATTERN.match(result.game):
        raise Violation("invalid_result", f"game {result.game!r}: lower-case letters, digits, - and _")
    finishes = tuple(sorted(result.finishes, key=lambda f: (f.place, f.player_id)))
    handled = app.ratings.handle(stream_id(result.game), lambda loaded: _rate(loaded, result, finishes),
                                 actor=actor)
    update = handled.decided[0]
    return Recorded(update, handled.version, deduplicated=not handled.events)


def _rate(loaded: Loaded[RatingBook], result: GameResult, finishes: tuple[Finish, ...]) -> Decision[RatingBook]:
    """The result rated on the book's ratings; nothing new when the book has it already.
    The book after it is folded from the log on the next read: its history is dated by the
    store's clock."""
    book = loaded.state
    if result.result_id in book.results:
        if book.finishes[result.result_id] != finishes:
            raise Violation(
                "result_already_recorded",
                f"result {result.result_id} was recorded for {result.game} with other finishes",
            )
        return Decision((), book, (book.results[result.result_id],))
    update = rate_elo_and_glicko2(result, {p: r.rating for p, r in book.players.items()},
                                  {p: r.glicko2 for p, r in book.players.items()})
    event = NewEvent(
        "RatingsUpdated", _update_data(update),
        metadata={"finishes": [{"player_id": f.player_id, "place": f.place} for f in finishes]},
    )
    return Decision((event,), book, (update,), remember=False)


def rated_games(app: Application) -> list[str]:
    return [s[len(STREAM_PREFIX):] for s in app.store.list_streams(STREAM_PREFIX)]


def player_ratings(app: Application, player_id: str) -> dict[str, PlayerRating]:
    """The player's rating in every game they have been rated in."""
    found = {}
    for game in rated_games(app):
        rating = load_book(app, game).players.get(player_id)
        if rating is not None:
            found[game] = rating
    return found


def _update_data(update: RatingsUpdated) -> dict[str, Any]:
    return {
        "result_id": update.result_id, "game": update.game, "system": update.system,
        "elo": [{"player_id": c.player_id, "before": repr(c.before), "after": repr(c.after)}
                for c in update.elo],
        "glicko2": [{"player_id": c.player_id, "before": _glicko2_data(c.before), "after": _glicko2_data(c.after)}
                    for c in update.glicko2],
    }


def _glicko2_data(rating: Glicko2Rating) -> list[str]:
    return [repr(rating.rating), repr(rating.deviation), repr(rating.volatility)]


def _glicko2_from(data: list[str]) -> Glicko2Rating:
    rating, deviation, volatility = (float(x) for x in data)
    return Glicko2Rating(rating, deviation, volatility)


def _update_from(data: Mapping[str, Any]) -> RatingsUpdated:
    return RatingsUpdated(
        result_id=data["result_id"], game=data["game"], system=data["system"],
        elo=tuple(EloChange(c["player_id"], float(c["before"]), float(c["after"])) for c in data["elo"]),
        glicko2=tuple(Glicko2Change(c["player_id"], _glicko2_from(c["before"]), _glicko2_from(c["after"]))
                      for c in data.get("glicko2", ())),
    )
