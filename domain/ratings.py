"""Ratings: Elo (pairwise, a draw is half a win) and Glicko-2.

Pure functions: a finished game's result record and the players' current ratings in,
new ratings out as one `RatingsUpdated` event that names the result it came from. Applying
each result exactly once (idempotency on `result_id`) is the service's job.

Multiplayer results (a table, a tournament) are decomposed into every head-to-head pair:
finishing ahead is a win (1), the same place a draw (0.5), behind a loss (0). For Elo the
per-pair K is K / (N - 1), so a player's total swing stays on the scale of one game.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from domain.rules.violations import Violation

DEFAULT_K = 32.0
DEFAULT_ELO = 1500.0
GLICKO2_SCALE = 173.7178  # Glickman: converts between the Glicko and Glicko-2 scales
DEFAULT_TAU = 0.5
CONVERGENCE = 1e-6


@dataclass(frozen=True)
class Finish:
    player_id: str
    place: int  # 1 is first; equal places are a tie


@dataclass(frozen=True)
class GameResult:
    result_id: str
    game: str
    finishes: tuple[Finish, ...]


@dataclass(frozen=True)
class EloChange:
    player_id: str
    before: float
    after: float


@dataclass(frozen=True)
class Glicko2Rating:
    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


@dataclass(frozen=True)
class Glicko2Change:
    player_id: str
    before: Glicko2Rating
    after: Glicko2Rating


@dataclass(frozen=True)
class RatingsUpdated:
    result_id: str
    game: str
    system: str  # "elo" | "glicko2" | "elo+glicko2" (both, as the service rates)
    elo: tuple[EloChange, ...] = ()
    glicko2: tuple[Glicko2Change, ...] = ()


EVENT_TYPES: dict[str, type] = {"RatingsUpdated": RatingsUpdated}


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + float(10.0 ** ((opponent - rating) / 400.0)))


def pair_score(place: int, opponent_place: int) -> float:
    if place < opponent_place:
        return 1.0
    if place == opponent_place:
        return 0.5
    return 0.0


def elo_head_to_head(
    rating_a: float, rating_b: float, score_a: float, k: float = DEFAULT_K
) -> tuple[float, float]:
    """New ratings of A and B after one game; `score_a` is 1, 0.5 or 0."""
    change = k * (score_a - expected_score(rating_a, rating_b))
    return rating_a + change, rating_b - change


def elo_multiplayer(
    ratings: Sequence[float], places: Sequence[int], k: float = DEFAULT_K
) -> tuple[float, ...]:
    """New ratings after a game of N players, decomposed into all pairs with K / (N - 1)."""
    if len(ratings) != len(places):
        raise Violation("invalid_result", f"{len(ratings)} ratings but {len(places)} places")
    if len(ratings) < 2:
        raise Violation("invalid_result", "a rated game needs at least two players")
    pair_k = k / (len(ratings) - 1)
    return tuple(
        rating + pair_k * sum(
            pair_score(places[i], places[j]) - expected_score(rating, ratings[j])
            for j in range(len(ratings)) if j != i
        )
        for i, rating in enumerate(ratings)
    )


def rate_elo(
    result: GameResult,
    current: Mapping[str, float],
    k: float = DEFAULT_K,
    initial: float = DEFAULT_ELO,
) -> RatingsUpdated:
    """Players without a rating yet start at `initial`."""
    _check_result(result)
    before = [current.get(f.player_id, initial) for f in result.finishes]
    after = elo_multiplayer(before, [f.place for f in result.finishes], k)
    return RatingsUpdated(
        result_id=result.result_id,
        game=result.game,
        system="elo",
        elo=tuple(
            EloChange(f.player_id, b, a) for f, b, a in zip(result.finishes, before, after)
        ),
    )


def glicko2_update(
    player: Glicko2Rating,
    games: Sequence[tuple[Glicko2Rating, float]],
    tau: float = DEFAULT_TAU,
) -> Glicko2Rating:
    """One rating period of Glickman's Glicko-2 (steps 2-8 of "Example of the Glicko-2
    system"); `games` are (opponent before the period, score 1 / 0.5 / 0)."""
    mu = (player.rating - 1500.0) / GLICKO2_SCALE
    phi = player.deviation / GLICKO2_SCALE
    if not games:
        # A period without games only widens the deviation.
        widened = math.sqrt(phi**2 + player.volatility**2)
        return Glicko2Rating(player.rating, widened * GLICKO2_SCALE, player.volatility)
    weighted: list[tuple[float, float, float]] = []  # (g, E, score) per game
    for opponent, score in games:
        mu_j = (opponent.rating - 1500.0) / GLICKO2_SCALE
        phi_j = opponent.deviation / GLICKO2_SCALE
        g = 1.0 / math.sqrt(1.0 + 3.0 * phi_j**2 / math.pi**2)
        weighted.append((g, 1.0 / (1.0 + math.exp(-g * (mu - mu_j))), score))
    variance = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in weighted)
    improvement = sum(g * (s - e) for g, e, s in weighted)
    delta = variance * improvement
    sigma = _new_volatility(phi, player.volatility, variance, delta, tau)
    phi_star = math.sqrt(phi**2 + sigma**2)
    new_phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / variance)
    new_mu = mu + new_phi**2 * improvement
    return Glicko2Rating(1500.0 + GLICKO2_SCALE * new_mu, GLICKO2_SCALE * new_phi, sigma)


def _new_volatility(phi: float, sigma: float, variance: float, delta: float, tau: float) -> float:
    """Step 5: the Illinois algorithm on f(x) as in Glickman's paper."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta**2 - phi**2 - variance - ex)) / (
            2.0 * (phi**2 + variance + ex) ** 2
        ) - (x - a) / tau**2

    low = a
    if delta**2 > phi**2 + variance:
        high = math.log(delta**2 - phi**2 - variance)
    else:
        step = 1
        while f(a - step * tau) < 0:
            step += 1
        high = a - step * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > CONVERGENCE:
        middle = low + (low - high) * f_low / (f_high - f_low)
        f_middle = f(middle)
        if f_middle * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = middle, f_middle
    return math.exp(low / 2.0)


def rate_glicko2(
    result: GameResult,
    current: Mapping[str, Glicko2Rating],
    tau: float = DEFAULT_TAU,
) -> RatingsUpdated:
    """The whole game is one rating period; every pair is one game against the
    opponent's rating from before the period."""
    _check_result(result)
    before = [current.get(f.player_id, Glicko2Rating()) for f in result.finishes]
    changes = []
    for i, finish in enumerate(result.finishes):
        games = [
            (before[j], pair_score(finish.place, other.place))
            for j, other in enumerate(result.finishes) if j != i
        ]
        changes.append(Glicko2Change(finish.player_id, before[i], glicko2_update(before[i], games, tau)))
    return RatingsUpdated(
        result_id=result.result_id, game=result.game, system="glicko2", glicko2=tuple(changes)
    )


def rate_elo_and_glicko2(
    result: GameResult,
    elo: Mapping[str, float],
    glicko2: Mapping[str, Glicko2Rating],
    k: float = DEFAULT_K,
    tau: float = DEFAULT_TAU,
) -> RatingsUpdated:
    """Both systems from one result, so one event moves both ratings together: the Elo
    changes of `rate_elo` and the Glicko-2 period of `rate_glicko2`."""
    by_elo = rate_elo(result, elo, k)
    by_glicko2 = rate_glicko2(result, glicko2, tau)
    return RatingsUpdated(result_id=result.result_id, game=result.game, system="elo+glicko2",
                          elo=by_elo.elo, glicko2=by_glicko2.glicko2)


def _check_result(result: GameResult) -> None:
    players = [f.player_id for f in result.finishes]
    if len(players) < 2:
        raise Violation("invalid_result", "a rated game needs at least two players")
    if len(set(players)) != len(players):
        raise Violation("invalid_result", "a player appears twice in the result")
    if any(f.place < 1 for f in result.finishes):
        raise Violation("invalid_result", "places start at 1")
