"""A game's ratings as folded from its stream (service.application.ratings keeps them):
each player's Elo and Glicko-2 rating with its history, the results counted and their
finishing places."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from domain.ratings import Finish, Glicko2Rating, RatingsUpdated


@dataclass(frozen=True)
class HistoryEntry:
    result_id: str
    place: int
    before: float
    after: float
    recorded_at: str
    glicko2_before: Glicko2Rating | None = None  # None: a result rated by Elo alone
    glicko2_after: Glicko2Rating | None = None

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class PlayerRating:
    rating: float  # Elo
    games: int
    history: tuple[HistoryEntry, ...]
    glicko2: Glicko2Rating = Glicko2Rating()

    def value(self, system: str) -> float:
        return self.rating if system == "elo" else self.glicko2.rating


@dataclass(frozen=True)
class RatingBook:
    """One game's ratings folded from its stream, at `version`."""

    game: str
    version: int = 0
    players: Mapping[str, PlayerRating] = field(default_factory=dict)
    results: Mapping[str, RatingsUpdated] = field(default_factory=dict)
    finishes: Mapping[str, tuple[Finish, ...]] = field(default_factory=dict)

    def leaderboard(self, system: str = "elo") -> list[tuple[str, PlayerRating]]:
        """Highest rating in `system` first; equal ratings by player id, so the order is
        stable."""
        return sorted(self.players.items(), key=lambda item: (-item[1].value(system), item[0]))
