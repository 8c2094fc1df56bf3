"""Hold'em and Omaha, five-card draw, Palace Poker and dice poker as live-table games: each
adapter wraps its game's decider so that domain.live.table can seat it (a hand state with
`over`, `to_act` and `stacks`; how a hand starts, how a table action becomes the game's
command, what the computer plays), and says what each viewer may see of its hand: the
view, the public summary, the seats' status and bets, the legal actions, the deal's
check (service.application.views asks the adapter, never the game's type). The mixed
games' adapters (domain.live.mixed, domain.live.rotation) have the same shape.

A module per game (`holdem`, `draw`, `palace`, `dice`), what they share in `common`;
domain.registry registers them. The names below are the ones read from outside.
"""
from __future__ import annotations

from domain.live.games.common import (
    DECK_HASH,
    Dealing,
    DealSeal,
    Draws,
    Opening,
    PlaysForChips,
    TableMove,
    Viewing,
    betting_status,
    commit_card_by_card,
    commit_whole_deck,
    deck_deal_view,
    openings_view,
    refuse_fields,
)
from domain.live.games.dice import DiceGame, DiceTableHand, RollPrepared
from domain.live.games.draw import DrawGame, DrawTableHand
from domain.live.games.holdem import HoldemGame
from domain.live.games.palace import PALACE_DECK, RESHUFFLE_KEYS, PalaceDeckCut, PalaceGame, PalaceReshuffleCommitted, PalaceTableHand, ranked_reshuffle_order

__all__ = [
    "DECK_HASH", "DealSeal", "Dealing", "DiceGame", "DiceTableHand", "DrawGame", "DrawTableHand", "Draws",
    "HoldemGame", "Opening", "PALACE_DECK", "PalaceDeckCut", "PalaceGame",
    "PalaceReshuffleCommitted", "PalaceTableHand", "PlaysForChips", "RESHUFFLE_KEYS", "RollPrepared",
    "TableMove", "Viewing", "betting_status", "commit_card_by_card", "commit_whole_deck",
    "deck_deal_view", "openings_view", "ranked_reshuffle_order", "refuse_fields",
]
