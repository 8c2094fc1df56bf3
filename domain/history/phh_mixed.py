"""The phh-std variants of the mixed games, replayed through domain.games.mixed: seven-card
stud (F7S), stud hi-lo (F7S/8), razz (FR), Omaha hi-lo (FO/8), 2-7 triple draw (F2L3D),
2-7 single draw (N2L1D), badugi (FB) and short-deck hold'em (NS).

PHH writes forced bets by position (`antes`, `blinds_or_straddles`, `bring_in`), which is
how our StartHand takes them; `ante_trimming_status = false` with an ante on the big blind
only is the big-blind ante, dead money; other antes are live. Each `d dh` deals the seat's cards of the street
(stud: the first two down and the third up on third street, then one up, the seventh
down), or the cards a draw owes it; `pN sd` discards; `pN pb` posts the bring-in; `cbr`
completes, bets or raises. Cards shown before the board or the last street (all-in) are
shown again at the end; the hand is settled from the last showing.
"""
from __future__ import annotations

from typing import Any

from domain.games import dealt_games, draw_family, mixed
from domain.games.dealt_hand import MixedState
from domain.games.hand_events import ActionTaken, PostAction
from domain.history.phh import (
    POT_POLICY,
    UNKNOWN_CARD,
    BetOrRaisedTo,
    BoardDealt,
    BringInPosted,
    CheckedOrCalled,
    Folded,
    HandHistory,
    HoleCardsDealt,
    PhhAction,
    ReplayResult,
    ShownOrMucked,
    StoodPatOrDiscarded,
    betting_action,
    format_action,
    odd_chip_rule,
    phh_order,
    play_record,
    player_names,
    whole_amount,
)
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, POT_LIMIT, BettingStructure
from domain.rules.violations import Violation

# PHH variant -> (our game, betting structure).
VARIANTS = {
    "F7S": ("stud", FIXED_LIMIT),
    "F7S/8": ("stud_hi_lo", FIXED_LIMIT),
    "FR": ("razz", FIXED_LIMIT),
    "FO/8": ("omaha_hi_lo", FIXED_LIMIT),
    "F2L3D": ("deuce_seven_triple_draw", FIXED_LIMIT),
    "N2L1D": ("deuce_seven_single_draw", NO_LIMIT),
    "FB": ("badugi", FIXED_LIMIT),
    "NS": ("short_deck", NO_LIMIT),
}


def _forced_bets_refused(detail: str) -> Violation:
    return Violation("unsupported_forced_bets", detail)


# Hold'em and Omaha records whose blinds domain.games.holdem cannot post (a single blind
# on the first seat, a button blind: domain.history.phh.positional_blinds) replay as a
# rotation's hold'em and Omaha, whose forced bets are posted where the record puts them.
ROTATION_OF = {"NT": ("rotation_holdem", NO_LIMIT), "FT": ("rotation_holdem", FIXED_LIMIT),
               "PT": ("rotation_holdem", POT_LIMIT), "PO": ("rotation_omaha", POT_LIMIT)}


def start_command(record: HandHistory, game_and_kind: tuple[str, str] | None = None) -> mixed.StartHand:
    """Our StartHand for the record: p1 in seat 0, the button (the dealer) last."""
    game, kind = game_and_kind or VARIANTS[record.variant]
    count = record.player_count
    antes = record.antes
    blinds = record.blinds_or_straddles or (0,) * count
    family = dealt_games.DEALT_GAMES[game].family
    if family == dealt_games.STUD and any(blinds):
        raise _forced_bets_refused(f"stud games have no blinds: {list(blinds)}")
    if family != dealt_games.STUD and record.bring_in:
        raise _forced_bets_refused(f"only stud games have a bring-in ({record.bring_in})")
    # An ante on the big blind alone, untrimmed, is the big-blind ante: dead money. Other
    # antes are live, posted by each player (at most the stack).
    dead_antes = (not record.ante_trimming_status and count > 2 and bool(antes[1])
                  and not any(a for i, a in enumerate(antes) if i != 1))
    fixed = kind == FIXED_LIMIT
    if fixed and not record.small_bet:
        raise _forced_bets_refused("a fixed-limit game needs small_bet")
    if not fixed and not record.min_bet:
        raise _forced_bets_refused("a no-limit game needs min_bet")
    structure = BettingStructure(
        kind=kind, min_bet=None if fixed else record.min_bet,
        small_bet=record.small_bet if fixed else None, big_bet=record.big_bet if fixed else None,
        big_blind=max(blinds), raise_cap=4 if fixed else None)
    return mixed.StartHand(
        game=game, players=player_names(record), stacks=record.starting_stacks,
        button=count - 1, betting=structure, antes=tuple(antes), blinds=tuple(blinds),
        bring_in=record.bring_in or 0, dead_antes=dead_antes, odd_chip=POT_POLICY[odd_chip_rule(record)])


def _command(state: MixedState, action: PhhAction) -> mixed.Command | None:
    if isinstance(action, Folded):
        return PostAction(action.player, "fold")
    if isinstance(action, CheckedOrCalled):
        b = state.betting
        return PostAction(action.player, "call" if b.highest > b.bets[action.player] else "check")
    if isinstance(action, BetOrRaisedTo):
        return PostAction(action.player, "bet" if state.betting.highest == 0 else "raise",
                          action.amount)
    if isinstance(action, BringInPosted):
        return PostAction(action.player, "bring_in")
    if isinstance(action, HoleCardsDealt):
        return mixed.DealCards(action.player, "".join(action.cards))
    if isinstance(action, BoardDealt):
        return mixed.DealBoard("".join(action.cards))
    if isinstance(action, StoodPatOrDiscarded):
        return draw_family.Discard(action.player, "".join(action.cards))
    if isinstance(action, ShownOrMucked):
        if action.cards is None:
            if state.phase != "showdown":
                return None  # a muck before the last card: the showdown still comes
            return mixed.Muck(action.player)
        if not action.cards or UNKNOWN_CARD in action.cards:
            return None  # shown as unknown cards: they cannot be ranked
        return mixed.ShowCards(action.player, "".join(action.cards))
    raise Violation("unsupported_variant", f"{format_action(action)!r} is no action of "
                    f"{state.game.name}")


def played(record: HandHistory, game_and_kind: tuple[str, str] | None = None,
           ) -> tuple[list[Any], list[Any], MixedState]:
    """(our commands, our events, the final state) of the record; raises Violation."""
    return play_record(record, start_command(record, game_and_kind), mixed.handle, _command,
                       mixed.SettleShowdown())


def replay(record: HandHistory, game_and_kind: tuple[str, str] | None = None) -> ReplayResult:
    _, log, state = played(record, game_and_kind)
    winners = sorted({seat for award in state.awards for seat in award.winners})
    return ReplayResult(tuple(whole_amount(s) for s in state.stacks), state.awards, tuple(winners),
                        tuple(log), odd_chip_rule(record))


# ---------------------------------------------------------------- export

# A rotation's hold'em and Omaha hands are written as the phh-std's (read back through
# domain.games.holdem).
_VARIANT_OF = {**{game_and_kind: variant for variant, game_and_kind in VARIANTS.items()},
               **{game_and_kind: variant for variant, game_and_kind in ROTATION_OF.items()}}


def phh_from_events(events: Any) -> HandHistory:
    """A finished mixed-game hand (its decider events) as a PHH record: p1 the first seat
    left of the button, the button last (how `start_command` reads it back); each street's
    cards as `d dh`, a draw as every player's `pN sd` and then their replacements' `d dh`
    (the order PHH and PokerKit write a draw in, though a live dealer serves each player
    as they discard); cards a viewer may not see written `??`."""
    events = list(events)
    started = events[0]
    if not isinstance(started, mixed.HandStarted):
        raise ValueError("a mixed-game hand's events begin with HandStarted")
    structure = started.betting
    variant = _VARIANT_OF.get((started.game, structure.kind))
    if variant is None:
        raise ValueError(f"no PHH variant for {started.game} {structure.kind}")
    order = phh_order(started.button, len(started.players))
    index = {seat: k for k, seat in enumerate(order)}
    stud = dealt_games.DEALT_GAMES[started.game].family == dealt_games.STUD
    actions: list[PhhAction] = []
    replacements: list[PhhAction] = []  # of the draw under way, written after its discards
    finishing = None
    for event in events[1:]:
        kind = type(event)
        if kind is mixed.CardsDealt and (replacements or actions and isinstance(actions[-1], StoodPatOrDiscarded)):
            replacements.append(HoleCardsDealt(index[event.position], _card_texts(event.cards)))
            continue
        if kind is not draw_family.CardsDiscarded:
            actions += replacements
            replacements = []
        if kind is mixed.CardsDealt:
            actions.append(HoleCardsDealt(index[event.position], _card_texts(event.cards)))
        elif kind is mixed.BoardDealt:
            actions.append(BoardDealt(_card_texts(event.cards)))
        elif kind is draw_family.CardsDiscarded:
            actions.append(StoodPatOrDiscarded(index[event.position], _card_texts(event.cards)))
        elif kind is ActionTaken:
            actions.append(BringInPosted(index[event.position]) if event.action == "bring_in"
                           else betting_action(index[event.position], event))
        elif kind is mixed.CardsShown:
            actions.append(ShownOrMucked(index[event.position], _card_texts(event.cards)))
        elif kind is mixed.CardsMucked:
            actions.append(ShownOrMucked(index[event.position], None))
        elif kind is mixed.HandEnded:
            finishing = tuple(whole_amount(event.stacks[seat]) for seat in order)
    return HandHistory(
        variant=variant,
        ante_trimming_status=not started.dead_antes,
        antes=tuple(started.antes[seat] for seat in order),
        blinds_or_straddles=None if stud else tuple(started.blinds[seat] for seat in order),
        bring_in=started.bring_in if stud else None,
        small_bet=structure.unit(late=False) if structure.kind == FIXED_LIMIT else None,
        big_bet=structure.unit(late=True) if structure.kind == FIXED_LIMIT else None,
        min_bet=None if structure.kind == FIXED_LIMIT else structure.opening_minimum,
        starting_stacks=tuple(started.stacks[seat] for seat in order),
        actions=tuple(actions),
        players=tuple(started.players[seat] for seat in order),
        finishing_stacks=finishing,
    )


def _card_texts(cards: str) -> tuple[str, ...]:
    return tuple(cards[i:i + 2] for i in range(0, len(cards), 2))
