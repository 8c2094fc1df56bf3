"""One hand of five-card draw as a decider: `decide(state, command) -> events`,
`evolve(state, event) -> state`, `replay(events) -> state` (five-card-draw.md, seeds 000
Bengali and 004 Indonesian; betting through domain.rules.betting and domain.rules.pots).

A hand: antes, five cards each dealt one at a time from the left of the dealer, the first
betting round from the left of the dealer, one draw each in turn from the left of the
dealer, the second betting round, the showdown. In no-betting mode: deal, draw, show, and
the best hand (every tied best hand) scores a point.

The showdown is the TDA's (declarations.md "Showdown"; domain.rules.showdown_order), as at
hold'em tables: all in with the betting over, every hand is tabled (TDA 2024 16: at the
showdown, after the draw, which has no board to run out); otherwise the last aggressor of
the second round shows first, else the first player left of the dealer, and the others show
or muck in turn (17), by the computer (`settings.showdown` "automatic") or by the players
themselves ("declared": ShowCards, Muck, AskToSee, 18-B); the last live hand wins without
showing (17-B). A mucked hand is never shown. No-betting mode shows every hand: points go
to every best hand, so there is nothing to muck for.

Randomness comes from the caller: StartHand and Redeal carry the deck order (a full
permutation, 53 cards with a joker) and its published commitment, plus an optional
`reshuffle_order` (another permutation) that orders the discards if the stub runs out.
Without one the discards are re-used in the order they were discarded; the service
should always send one. The events record both orders, so replay never draws.

Where the spec page and the seeds disagree, or are silent, this module decides:
- Redeal for want of openers (seeds: "if nobody CAN open"; the spec says "can or does").
  The seeds win: a "no_openers" redeal happens when no player still in held jacks or
  better. When someone held openers but everyone checked, it is an ordinary all-check
  round, and the "second round starts" setting decides as the seeds say: "opener" ->
  redeal with the pot kept, "left_of_dealer" -> on to the draw.
- Draw limit 4: the seeds' how-to line names only the ace, their settings rows say "an A
  or a joker"; the settings rows (the more specific text) win: an ace or the joker kept.
- The unit: the seeds say bets and raises "use" a unit of twice the ante, and their
  settings row calls it the minimum bet unit. We read it as the minimum (no-limit and
  pot-limit take any larger whole amount), as the spec page does; fixed-limit bets exactly
  one unit before the draw and two after.
- The "bug" joker is not in the seeds (their only joker is wild); it is the spec page's
  extra option and scores as domain.rules.evaluation's "bug" rule.
- Seeds silent, standard practice: the deal goes one card at a time; an exhausted stub is
  topped up with the discards and folded hands (never the drawing player's own discards);
  the opener's openers are shown at the end of the hand (OpenersShown, public), even when
  the opener folded or won without a showdown.
- Openers (declarations.md; Robert's Rules, draw): an opener who throws away part of the
  openers must declare it (`Discard.split_openers`, else `split_openers_undeclared`); the
  discards kept aside are private to the opener (OpenersSplit) and never reshuffled into
  the stub. An opener whose straight or flush also holds a pair of jacks or better (with
  the joker) keeps openers by keeping that pair: drawing to it is no split.
  A table checks the openers at the bet, so a false open reaches this module
  only as `OpenWithoutProof` (a ruling describing a live game) and is found by the floor
  (`FalseOpeners`) or at the end of the hand, when the opener must prove the openers.
  The sources leave these open and we decide: nobody else acted after the open -> the
  pot (antes and the opening bet) is carried to the next deal, which deals everyone who
  was in at the open, the false opener too; otherwise the pot plays among the others
  (found after the draw or at the showdown alike), the opener's chips stay in, callers'
  bets stand, and a single remaining caller takes it as the last live hand; when every
  other player folded to the false opener, no live hand is left and the pot is carried.
- Our own rulings: a player may fold when they could check (the betting engine allows
  it); a folded hand is dead for the rest of the hand, redeals included, and its chips
  stay in the pot. When fewer than two players can bet (the others are all-in from the
  antes) an unbet first round is no "all check": the hand goes on to the draw.

Hidden information: `visible_event(event, viewer_seat, role)` returns what a viewer may
see. Hole cards and a player's discards and received cards are private to that seat;
deck orders and a reshuffled stub are for the floor only; everything else is public
(the number of cards each player drew included, as the seeds require).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any, TypeVar

from domain import secrecy
from domain.games.draw_settings import JACKS_OR_BETTER, LEFT_OF_DEALER, MAX_PLAYERS, MIN_PLAYERS, THREE_OR_FOUR_WITH_ACE, DrawSettings
from domain.games.hand_events import ActionTaken, CardsMucked, PostAction, PotAwarded, ShowAsked, UncalledReturned, credit_award
from domain.rules import betting as bet
from domain.rules import showdown_order
from domain.rules.betting import Amount, BettingState, LegalActions, with_changes
from domain.rules.cards import JOKER, format_card, new_deck, parse_cards
from domain.rules.citations import cite
from domain.rules.evaluation import evaluate_high
from domain.rules.pots import LEFT_OF_BUTTON, Pot, PotAward, award_pots, build_pots
from domain.rules.violations import Violation
from domain.secrecy import OWNER_ONLY, PUBLIC, SEALED

HAND_SIZE = 5
ACE_RANK_INDEX = 12
_JACK_RANK_INDEX = 9
FIRST_ROUND = "first_round"
REDEAL = "redeal"
DRAW = "draw"
SECOND_ROUND = "second_round"
SHOWDOWN = "showdown"
"""Not a phase of its own: what a hand awaits once the second round is over (`awaiting`)."""
OVER = "over"
ALL_CHECKED = "all_checked"
NO_OPENERS = "no_openers"

PLAYER = "player"
SPECTATOR = "spectator"
FLOOR = "floor"
ROLES = (PLAYER, SPECTATOR, FLOOR)

_CARD_BY_TEXT = {format_card(c): c for c in range(53)}
# The weakest hand that opens under "jacks or better": a pair of jacks with 4-3-2.
_JACKS_STRENGTH = evaluate_high(parse_cards("JsJh4c3d2s")).strength
# How many of HandValue.best make the category (the rest are kickers).
_CATEGORY_CARDS = {"one_pair": 2, "two_pair": 4, "three_of_a_kind": 3, "four_of_a_kind": 4}


# ------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class StartHand:
    """Start a hand. `stacks` before the antes (betting mode; empty in no-betting mode),
    `button` the dealer's seat, `deck` the shuffled full deck as card strings."""
    players: tuple[str, ...]
    button: int
    settings: DrawSettings
    deck: tuple[str, ...]
    stacks: tuple[Amount, ...] = ()
    commitment: str | None = None
    reshuffle_order: tuple[str, ...] | None = None
    derived_redeals: bool = False
    """Recorded on HandStarted: the caller will take every redeal's orders from the hand's
    secret (the table: domain.live.games.DrawGame), so they are fixed before the first
    action and the floor's check covers them."""


@dataclass(frozen=True)
class Discard:
    """The seat's one draw: the cards thrown away (none: stand pat). `split_openers`: the
    opener says they throw away part of the openers, and the discards are kept aside."""
    position: int
    cards: tuple[str, ...] = ()
    split_openers: bool = False


@dataclass(frozen=True)
class OpenWithoutProof:
    """The opening bet as it was made at a table where nobody checked the openers at the
    bet (a ruling describing a live game): the proof comes later (FalseOpeners, or the
    end of the hand)."""
    position: int
    to: int


@dataclass(frozen=True)
class FalseOpeners:
    """The floor finds that the opener did not hold openers."""
    position: int


@dataclass(frozen=True)
class Redeal:
    """After RedealRequired: a fresh deck order for the new deal (the pot stays)."""
    deck: tuple[str, ...]
    commitment: str | None = None
    reshuffle_order: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ShowCards:
    """At a declared showdown: the seat next in the order of show tables its hand."""
    position: int


@dataclass(frozen=True)
class Muck:
    """At a declared showdown: the seat next in the order of show throws its hand away."""
    position: int


@dataclass(frozen=True)
class AskToSee:
    """A caller asks to see the last aggressor's hand (TDA 2024 18-B)."""
    position: int


Command = (StartHand | PostAction | Discard | Redeal | OpenWithoutProof | FalseOpeners
                | ShowCards | Muck | AskToSee)


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class HandStarted:
    """Public but for `deck` and `reshuffle_order` (floor only). `derived_redeals`: every
    redeal's deck and reshuffle order come from the hand's secret (False: hands recorded
    before, whose redeals drew theirs when they came)."""
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    button: int
    settings: DrawSettings
    deck: tuple[str, ...] | None = field(metadata=SEALED)
    commitment: str | None
    reshuffle_order: tuple[str, ...] | None = field(metadata=SEALED)
    derived_redeals: bool = False


@dataclass(frozen=True)
class AntesPosted:
    """Each seat's ante (a short stack is all-in for what it has; folded seats post 0)."""
    amounts: tuple[Amount, ...]


@dataclass(frozen=True)
class HoleCardsDealt:
    """`cards` private to `seat`."""
    position: int
    cards: str | None = field(metadata=OWNER_ONLY)


@dataclass(frozen=True)
class RedealRequired:
    """The first round ended unopened: the pot stays, a Redeal with a fresh deck is due.
    `reason`: "all_checked" or "no_openers"."""
    reason: str


@dataclass(frozen=True)
class Redealt:
    """Public but for `deck` and `reshuffle_order` (floor only)."""
    deck: tuple[str, ...] | None = field(metadata=SEALED)
    commitment: str | None
    reshuffle_order: tuple[str, ...] | None = field(metadata=SEALED)


@dataclass(frozen=True)
class DrawBegan:
    """The first betting round is over; the draw starts left of the dealer."""


@dataclass(frozen=True)
class StubReshuffled:
    """The stub ran out: `count` discards became the new stub (`cards`: floor only)."""
    count: int
    cards: tuple[str, ...] | None = field(metadata=SEALED)


@dataclass(frozen=True)
class PlayerDrew:
    """`count` is public; `discarded` and `received` are private to `seat`."""
    position: int
    count: int
    discarded: str | None = field(metadata=OWNER_ONLY)
    received: str | None = field(metadata=OWNER_ONLY)


@dataclass(frozen=True)
class SecondRoundBegan:
    """`first_to_act` None: nobody can bet any more (all-in), straight to the showdown."""
    first_to_act: int | None


@dataclass(frozen=True)
class OpenersShown:
    """Under jacks or better the opener proves the opening (the cards that made it)."""
    position: int
    cards: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class OpenersSplit:
    """The opener split the openers: `cards`, the discards kept aside face down to prove
    them (private to the seat), never go back into a reshuffled stub."""
    position: int
    cards: str | None = field(metadata=OWNER_ONLY)


@dataclass(frozen=True)
class FalseOpenersFound:
    """The opener had no openers: their hand is dead and their chips stay in the pot.
    `outcome` "carried": nobody else had acted after the open (or no live hand is left),
    so the pot is carried to the next deal; "pot_plays": the others play for it."""
    position: int
    outcome: str


@dataclass(frozen=True)
class CardsShown:
    position: int
    cards: str = field(metadata=PUBLIC)
    category: str


@dataclass(frozen=True)
class PointsScored:
    """No-betting mode: every seat with the best hand scores one point."""
    winners: tuple[int, ...]


@dataclass(frozen=True)
class HandEnded:
    """`stacks` after the hand (zeros in no-betting mode); `points` scored this hand."""
    stacks: tuple[Amount, ...]
    points: tuple[int, ...]
    showdown: bool


Event = (HandStarted | AntesPosted | HoleCardsDealt | ActionTaken | UncalledReturned
              | RedealRequired | Redealt | DrawBegan | StubReshuffled | PlayerDrew
              | SecondRoundBegan | OpenersShown | CardsShown | PotAwarded | PointsScored | HandEnded
              | OpenersSplit | FalseOpenersFound | CardsMucked | ShowAsked)
EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    HandStarted, AntesPosted, HoleCardsDealt, ActionTaken, UncalledReturned, RedealRequired,
    Redealt, DrawBegan, StubReshuffled, PlayerDrew, SecondRoundBegan, OpenersShown,
    CardsShown, PotAwarded, PointsScored, HandEnded, OpenersSplit, FalseOpenersFound,
    CardsMucked, ShowAsked)}


# ----------------------------------------------------------------------- visibility

def visible_event(event: Event, viewer_seat: int | None, role: str) -> Event:
    """The event as this viewer may see it: hidden fields set to None.

    `role`: "floor" sees everything; "player" (with `viewer_seat`) sees their own cards;
    "spectator" (viewer_seat None) sees only public fields.
    """
    if role not in ROLES:
        raise Violation("illegal_action", f"role must be one of {', '.join(ROLES)}, not {role!r}")
    if role == FLOOR:
        return event
    kind: type = type(event)
    declared = secrecy.secrets_of(kind)
    hidden = declared.sealed
    private = declared.owner_only
    # An event with owner-only fields names its owner (`position`); mypy sees the union of all.
    if private and not (role == PLAYER and viewer_seat == event.position):  # type: ignore[union-attr]
        hidden += private
    if not hidden:
        return event
    # mypy types replace() over the union of every event class as taking no field at all;
    # the names hidden are this event's own (secrecy reads them from its class).
    return dataclasses.replace(event, **{name: None for name in hidden})  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- state


@dataclass(frozen=True)
class HandState:
    """Everything views need. `hands[i]` are seat i's cards now (empty once folded);
    `dealt[i]` as dealt before the draw; `drawn[i]` how many seat i drew (None: not yet).
    `stub` the cards left to draw from; `muck` the discards and folded hands a reshuffle
    may use. `betting` is None in no-betting mode."""
    settings: DrawSettings
    players: tuple[str, ...]
    button: int
    phase: str
    betting: BettingState | None
    deck: tuple[str, ...]
    commitment: str | None
    reshuffle_order: tuple[str, ...] | None
    hands: tuple[tuple[int, ...], ...]
    dealt: tuple[tuple[int, ...], ...]
    drawn: tuple[int | None, ...]
    stub: tuple[int, ...]
    muck: tuple[int, ...]
    opener: int | None
    redeals: int
    awards: tuple[PotAward, ...]
    points: tuple[int, ...]
    showdown: bool
    acted_after_open: bool = False
    """Someone other than the opener has acted since the open (false openers, RRP draw)."""
    folded_at_open: tuple[bool, ...] | None = None
    """Who had folded when the opening bet was made (a carried pot deals the rest again)."""
    shown: tuple[bool, ...] = ()
    """Per seat: the hand was tabled at the showdown (CardsShown)."""
    mucked: tuple[bool, ...] = ()
    """Per seat: the hand was mucked at the showdown (CardsMucked): it stays hidden."""
    aggressor: int | None = None
    """The last player to bet or raise in the second round (TDA 2024 17: shows first)."""

    @property
    def seat_count(self) -> int:
        return len(self.players)

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def contenders(self) -> tuple[int, ...]:
        """Seats still in the hand (every seat in no-betting mode)."""
        if self.betting is None:
            return tuple(range(self.seat_count))
        return self.betting.contenders

    @property
    def stacks(self) -> tuple[Amount, ...]:
        return self.betting.stacks if self.betting is not None else (0,) * self.seat_count

    @property
    def wagers(self) -> BettingState:
        """`betting`, where only a betting-mode hand gets to (antes, bets, the pots)."""
        if self.betting is None:
            raise TypeError("a no-betting hand has no betting round")
        return self.betting

    @property
    def draw_to_act(self) -> int | None:
        """During the draw: the next seat from the left of the dealer still to draw."""
        if self.phase != DRAW:
            return None
        contenders = set(self.contenders)
        for step in range(1, self.seat_count + 1):
            seat = (self.button + step) % self.seat_count
            if seat in contenders and self.drawn[seat] is None:
                return seat
        return None

    @property
    def to_act(self) -> int | None:
        """Whose turn it is: to bet, to draw, or (declared showdown) to show or muck."""
        if self.phase == DRAW:
            return self.draw_to_act
        if self.at_showdown and self.settings.showdown == showdown_order.DECLARED:
            return self.to_show
        if self.phase in (FIRST_ROUND, SECOND_ROUND):
            return self.wagers.to_act
        return None

    @property
    def awaiting(self) -> str | None:
        """"action", "draw", "redeal", "showdown", or None once the hand is over."""
        if self.phase == DRAW:
            return "draw"
        if self.phase == REDEAL:
            return "redeal"
        if self.phase == OVER:
            return None
        if self.at_showdown:
            return SHOWDOWN
        return "action"

    @property
    def at_showdown(self) -> bool:
        """The second round is over with two or more hands left: they are shown or mucked."""
        b = self.betting
        return self.phase == SECOND_ROUND and b is not None and b.to_act is None and not b.hand_decided

    @property
    def show_order(self) -> tuple[int, ...]:
        """The contenders in the order of show (TDA 2024 17)."""
        return showdown_order.order_of_show(self.contenders, self.seat_count, self.button, self.aggressor)

    @property
    def to_show(self) -> int | None:
        """The seat to show or muck now, at the showdown."""
        if not self.at_showdown:
            return None
        return showdown_order.next_to_show(self.show_order, self.shown, self.mucked)

    @property
    def pots(self) -> tuple[Pot, ...]:
        """Main pot then side pots, this round's bets included (none in no-betting mode)."""
        if self.betting is None or self.over:
            return ()
        b = self.betting
        return build_pots(b.committed, b.folded, tuple(stack == 0 for stack in b.stacks), b.dead)


def has_openers(cards: Sequence[int], joker: str | None) -> bool:
    """A pair of jacks or better (the joker counting by the table's joker rule)."""
    return evaluate_high(cards, joker).strength >= _JACKS_STRENGTH


def draw_limit(settings: DrawSettings, kept: Iterable[int]) -> int:
    """The most cards a player keeping `kept` may exchange."""
    if settings.draw_limit == THREE_OR_FOUR_WITH_ACE:
        keeps_ace = any(card == JOKER or card >> 2 == ACE_RANK_INDEX for card in kept)
        return 4 if keeps_ace else 3
    return int(settings.draw_limit)


@dataclass(frozen=True)
class DrawOptions:
    """The drawing player's choice: throw away 0..`most` of their cards, but more than
    `most_keeping_no_ace` only while keeping an ace or the joker."""
    position: int
    most: int
    most_keeping_no_ace: int


def legal_draw(state: HandState) -> DrawOptions | None:
    """What the player to draw may do; None outside the draw."""
    seat = state.draw_to_act
    if seat is None:
        return None
    hand = state.hands[seat]
    plain = draw_limit(state.settings, ())
    best = max(draw_limit(state.settings, (card,)) for card in hand)
    return DrawOptions(seat, min(best, HAND_SIZE), plain)


def legal_actions(state: HandState) -> LegalActions | None:
    """What the player to bet may do; None when nobody is to bet (also during the draw).
    Under jacks or better a player without openers may not make the first bet."""
    if state.phase not in (FIRST_ROUND, SECOND_ROUND) or state.betting is None:
        return None
    legal = bet.legal_actions(state.betting)
    to_act = state.betting.to_act
    if legal is not None and legal.bet is not None and to_act is not None and _needs_openers(state) \
            and not has_openers(state.hands[to_act], state.settings.joker):
        return with_changes(legal, bet=None)
    return legal


def _needs_openers(state: HandState) -> bool:
    return (state.settings.opening == JACKS_OR_BETTER and state.phase == FIRST_ROUND
            and state.opener is None)


# ------------------------------------------------------------------------- evolve


def evolve(state: HandState | None, event: Event) -> HandState:
    if isinstance(event, HandStarted):
        return _initial(event)
    if state is None:
        raise TypeError(f"a five-card draw hand begins with HandStarted, not {event!r}")
    step = _EVOLVERS.get(type(event))
    if step is None:
        raise TypeError(f"not a five-card draw event: {event!r}")
    return step(state, event)


def _hole_cards_dealt(state: HandState, event: HoleCardsDealt) -> HandState:
    cards = _cards(_unsealed(event.cards))
    dealt_set = set(cards)
    return with_changes(state, hands=_put(state.hands, event.position, cards),
                        dealt=_put(state.dealt, event.position, cards),
                        stub=tuple(c for c in state.stub if c not in dealt_set))


def _antes_posted(state: HandState, event: AntesPosted) -> HandState:
    b = state.wagers
    stacks = tuple(s - a for s, a in zip(b.stacks, event.amounts))
    committed = tuple(c + a for c, a in zip(b.committed, event.amounts))
    posted = with_changes(b, stacks=stacks, committed=committed)
    return with_changes(state, betting=bet.start_round(posted, late=False))


def _action_taken(state: HandState, event: ActionTaken) -> HandState:
    changes: dict[str, Any] = {
        "betting": bet.apply_action(state.wagers, event.position, event.action, event.to)}
    if event.action == "fold":
        changes.update(hands=_put(state.hands, event.position, ()),
                       muck=state.muck + state.hands[event.position])
    elif event.action == "bet" and state.phase == FIRST_ROUND and state.opener is None:
        changes.update(opener=event.position, folded_at_open=state.wagers.folded)
    if event.action in ("bet", "raise") and state.phase == SECOND_ROUND:
        changes["aggressor"] = event.position
    if state.opener is not None and event.position != state.opener:
        changes["acted_after_open"] = True
    return with_changes(state, **changes)


def _uncalled_returned(state: HandState, event: UncalledReturned) -> HandState:
    return with_changes(state, betting=bet.apply_return(state.wagers, event.position, event.amount))


def _redeal_required(state: HandState, event: RedealRequired) -> HandState:
    return with_changes(state, phase=REDEAL)


def _redealt(state: HandState, event: Redealt) -> HandState:
    n = state.seat_count
    return with_changes(state, phase=FIRST_ROUND, deck=event.deck, commitment=event.commitment,
                        reshuffle_order=event.reshuffle_order, hands=((),) * n,
                        dealt=((),) * n, drawn=(None,) * n, stub=_cards("".join(_unsealed(event.deck))),
                        muck=(), opener=None, redeals=state.redeals + 1, acted_after_open=False,
                        folded_at_open=None, aggressor=None)


def _draw_began(state: HandState, event: DrawBegan) -> HandState:
    return with_changes(state, phase=DRAW)


def _stub_reshuffled(state: HandState, event: StubReshuffled) -> HandState:
    return with_changes(state, stub=state.stub + _cards("".join(_unsealed(event.cards))), muck=())


def _player_drew(state: HandState, event: PlayerDrew) -> HandState:
    discarded = _cards(_unsealed(event.discarded))
    kept = tuple(c for c in state.hands[event.position] if c not in discarded)
    return with_changes(state, hands=_put(state.hands, event.position, kept + _cards(_unsealed(event.received))),
                        drawn=_put(state.drawn, event.position, event.count),
                        stub=state.stub[event.count:], muck=state.muck + discarded)


def _second_round_began(state: HandState, event: SecondRoundBegan) -> HandState:
    opened = bet.start_round(state.wagers, late=True)
    return with_changes(state, phase=SECOND_ROUND,
                        betting=with_changes(opened, to_act=event.first_to_act))


def _pot_awarded(state: HandState, event: PotAwarded) -> HandState:
    betting, award = credit_award(state.wagers, event)
    return with_changes(state, betting=betting, awards=state.awards + (award,))


def _points_scored(state: HandState, event: PointsScored) -> HandState:
    return with_changes(state, points=tuple(int(s in event.winners) for s in range(state.seat_count)))


def _hand_ended(state: HandState, event: HandEnded) -> HandState:
    return with_changes(state, phase=OVER, showdown=event.showdown)


def _openers_split(state: HandState, event: OpenersSplit) -> HandState:
    aside = set(_cards(event.cards)) if event.cards else set()
    return with_changes(state, muck=tuple(c for c in state.muck if c not in aside))


def _cards_shown(state: HandState, event: CardsShown) -> HandState:
    return with_changes(state, shown=_put(state.shown, event.position, True))


def _cards_mucked(state: HandState, event: CardsMucked) -> HandState:
    return with_changes(state, mucked=_put(state.mucked, event.position, True))


def _unchanged(state: HandState, event: OpenersShown | ShowAsked) -> HandState:
    return state


def _false_openers_found(state: HandState, event: FalseOpenersFound) -> HandState:
    b = state.wagers
    seat = event.position
    if event.outcome == "carried":
        # The next deal: everyone still in when the bet was made is dealt again, the false
        # opener included (their hand was dead for this deal only).
        folded = _put(state.folded_at_open or b.folded, seat, False)
        return with_changes(state, phase=REDEAL, betting=with_changes(b, folded=folded, to_act=None))
    folded = _put(b.folded, seat, True)
    to_act = b.to_act
    if sum(not f for f in folded) <= 1:
        to_act = None
    elif to_act == seat:
        to_act = bet.next_to_act(with_changes(b, folded=folded), seat)
    return with_changes(state, betting=with_changes(b, folded=folded, to_act=to_act),
                        hands=_put(state.hands, seat, ()), muck=state.muck + state.hands[seat])


# One small function per event type: the event's type picks it (each takes its own type).
_EVOLVERS: dict[type, Callable[[HandState, Any], HandState]] = {
    HoleCardsDealt: _hole_cards_dealt, AntesPosted: _antes_posted, ActionTaken: _action_taken,
    UncalledReturned: _uncalled_returned, RedealRequired: _redeal_required, Redealt: _redealt,
    DrawBegan: _draw_began, StubReshuffled: _stub_reshuffled, PlayerDrew: _player_drew,
    SecondRoundBegan: _second_round_began, PotAwarded: _pot_awarded, PointsScored: _points_scored,
    HandEnded: _hand_ended, OpenersSplit: _openers_split, FalseOpenersFound: _false_openers_found,
    CardsShown: _cards_shown, CardsMucked: _cards_mucked, OpenersShown: _unchanged, ShowAsked: _unchanged,
}


def _initial(event: HandStarted) -> HandState:
    n = len(event.players)
    settings = event.settings
    betting = None
    if settings.betting:
        betting = bet.open_hand(settings.betting_structure(), event.players, event.stacks,
                                event.button)
    return HandState(
        settings=settings, players=event.players, button=event.button,
        phase=FIRST_ROUND if settings.betting else DRAW, betting=betting, deck=_unsealed(event.deck),
        commitment=event.commitment, reshuffle_order=event.reshuffle_order,
        hands=((),) * n, dealt=((),) * n, drawn=(None,) * n,
        stub=_cards("".join(_unsealed(event.deck))), muck=(), opener=None, redeals=0, awards=(),
        points=(0,) * n, showdown=False, shown=(False,) * n, mucked=(False,) * n)


def replay(events: Iterable[Event]) -> HandState:
    state = reduce(evolve, events, None)
    if state is None:
        raise TypeError("a five-card draw hand is replayed from its HandStarted: no events given")
    return state


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1:]


Known = TypeVar("Known")


def _unsealed(value: Known | None) -> Known:
    """A field a viewer's copy of an event leaves None (visible_event): only the full
    events are replayed."""
    if value is None:
        raise TypeError("a redacted event cannot be replayed")
    return value


def _cards(text: str) -> tuple[int, ...]:
    return tuple(_CARD_BY_TEXT[text[i:i + 2]] for i in range(0, len(text), 2))


def _text(cards: Iterable[int]) -> str:
    return "".join(format_card(c) for c in cards)


# ------------------------------------------------------------------------- decide


def decide(state: HandState | None, command: Command) -> list[Event]:
    """The events a command causes, automatic follow-ups included (round closing, uncalled
    chips, the draw opening, settlement). Raises Violation when the command breaks a rule."""
    return handle(state, command)[0]


def handle(state: HandState | None, command: Command) -> tuple[list[Event], HandState]:
    """`decide` plus the state after its events."""
    if isinstance(command, StartHand):
        if state is not None:
            raise Violation("illegal_action", "this hand has already started")
        events = _start(command)
    else:
        if state is None:
            raise Violation("illegal_action", "the hand has not started")
        if state.over:
            raise Violation("hand_over", "the hand is over")
        events = _decide_in_hand(state, command)
    current = state
    for event in events:
        current = evolve(current, event)
    assert current is not None  # a hand in play, or StartHand's events: they begin with HandStarted
    while follow := _follow_up(current):
        for event in follow:
            events.append(event)
            current = evolve(current, event)
    return events, current


def _start(command: StartHand) -> list[Event]:
    settings = command.settings
    if not isinstance(settings, DrawSettings):
        raise Violation("invalid_settings", "StartHand needs DrawSettings")
    settings.validate()
    players = tuple(command.players)
    n = len(players)
    wanted = f"exactly {settings.players}" if settings.players else f"{MIN_PLAYERS} to {MAX_PLAYERS}"
    if not MIN_PLAYERS <= n <= MAX_PLAYERS or (settings.players and n != settings.players) \
            or len(set(players)) != n:
        raise Violation("illegal_action", f"five-card draw seats {wanted} distinct players, not {n}",
                        numbers={"players": n})
    if isinstance(command.button, bool) or not isinstance(command.button, int) \
            or not 0 <= command.button < n:
        raise Violation("illegal_action", f"button must be a seat 0..{n - 1}")
    stacks = tuple(command.stacks)
    whole: tuple[int, ...] = (0,) * n  # no-betting mode: no chips
    if settings.betting:
        whole = tuple(s for s in stacks if isinstance(s, int) and not isinstance(s, bool) and s > 0)
        if len(stacks) != n or len(whole) != n:
            raise Violation("illegal_action", "every seated player needs a positive whole stack",
                            numbers={"stacks": stacks})
    elif stacks:
        raise Violation("illegal_action", "no-betting mode plays without chips: send no stacks")
    deck = _check_deck(settings, command.deck, "deck")
    reshuffle = _check_deck(settings, command.reshuffle_order, "reshuffle_order") \
        if command.reshuffle_order is not None else None
    events: list[Event] = [HandStarted(players, whole,
                                       command.button, settings, deck, command.commitment,
                                       reshuffle, command.derived_redeals)]
    seats = _from_left_of_dealer(range(n), command.button, n)
    if settings.betting:
        events.append(AntesPosted(tuple(min(settings.ante, s) for s in whole)))
    events.extend(_deal(deck, seats))
    return events


def _check_deck(settings: DrawSettings, order: Any, name: str) -> tuple[str, ...]:
    """A full deck (with the joker when the table plays one) in the caller's order."""
    expected = set(new_deck(with_joker=settings.joker is not None))
    if isinstance(order, str):
        raise Violation("invalid_card", f"{name} must be a list of card strings")
    cards = _parse_card_list(order, name)
    if set(cards) != expected:
        raise Violation("invalid_card", f"{name} must hold each of the {len(expected)} cards of "
                        f"this table's deck exactly once, not {len(cards)} cards",
                        numbers={"cards": len(cards), "expected": len(expected)})
    return tuple(format_card(c) for c in cards)


def _parse_card_list(cards: Any, name: str) -> tuple[int, ...]:
    """Card strings ("As", ...) or one string ("AsKd"); anything else is invalid_card."""
    if isinstance(cards, str):
        return parse_cards(cards)
    if not isinstance(cards, (tuple, list)) or not all(isinstance(c, str) for c in cards):
        raise Violation("invalid_card", f"{name} must be a list of card strings like 'As'")
    return parse_cards(tuple(cards))


def _from_left_of_dealer(seats: Iterable[int], button: int, n: int) -> tuple[int, ...]:
    return tuple(sorted(seats, key=lambda seat: (seat - button - 1) % n))


def _deal(deck: tuple[str, ...], seats: tuple[int, ...]) -> list[Event]:
    """Five each, one card at a time round the table from the first seat in `seats`."""
    k = len(seats)
    return [HoleCardsDealt(seat, "".join(deck[j + k * r] for r in range(HAND_SIZE)))
            for j, seat in enumerate(seats)]


def _decide_in_hand(state: HandState, command: Command) -> list[Event]:
    if isinstance(command, PostAction):
        return [_action(state, command)]
    if isinstance(command, Discard):
        return _draw(state, command)
    if isinstance(command, Redeal):
        return _redeal(state, command)
    if isinstance(command, OpenWithoutProof):
        return [_open_without_proof(state, command)]
    if isinstance(command, FalseOpeners):
        return [_false_openers(state, command)]
    if isinstance(command, (ShowCards, Muck)):
        return [_show_or_muck(state, command)]
    if isinstance(command, AskToSee):
        return _ask_to_see(state, command)
    raise Violation("illegal_action", f"unknown command {command!r}")


def _show_or_muck(state: HandState, command: ShowCards | Muck) -> Event:
    seat = command.position
    _check_seat(state, seat)
    if not state.at_showdown:
        raise Violation("illegal_action", f"hands are shown at the showdown: the hand awaits the "
                        f"{state.awaiting}", cite("order_of_show"), {"seat": seat})
    if state.shown[seat] and not state.wagers.folded[seat]:
        raise Violation("already_shown", f"{state.players[seat]}'s hand is already face up",
                        cite("order_of_show"), {"seat": seat})
    showdown_order.check_turn_to_show(state.show_order, state.shown, state.mucked, seat, state.players[seat])
    return _shown(state, seat) if isinstance(command, ShowCards) else CardsMucked(seat)


def _ask_to_see(state: HandState, command: AskToSee) -> list[Event]:
    _check_seat(state, command.position)
    if not state.at_showdown:
        raise Violation("illegal_action", f"a hand is asked to see at the showdown: the hand awaits the "
                        f"{state.awaiting}", cite("no_right_to_see"), {"seat": command.position})
    target = showdown_order.ask_to_see(state.show_order, state.shown, state.mucked, command.position,
                                       state.aggressor, state.players[command.position])
    return [ShowAsked(command.position, target), _shown(state, target)]


def _shown(state: HandState, seat: int) -> CardsShown:
    cards = state.hands[seat]
    return CardsShown(seat, _text(cards), evaluate_high(cards, state.settings.joker).category)


def shows_at_showdown(state: HandState, seat: int) -> bool:
    """What the computer does for `seat` when it is next to show: show if it is first, or
    beats or ties every hand shown; else muck (domain.rules.showdown_order.computer_shows)."""
    return showdown_order.computer_shows(_strengths(state), state.show_order, state.shown, state.mucked, seat)


def _strengths(state: HandState) -> dict[int, int]:
    """The hands that count: every contender's hand not mucked."""
    return {seat: evaluate_high(state.hands[seat], state.settings.joker).strength
            for seat in state.contenders if not state.mucked[seat]}


def _open_without_proof(state: HandState, command: OpenWithoutProof) -> Event:
    if not _needs_openers(state) or state.phase != FIRST_ROUND:
        raise Violation("illegal_action", "only the opening bet under jacks or better is made without proof",
                        cite("false_openers"))
    _check_seat(state, command.position)
    to = bet.check_action(state.wagers, command.position, "bet", command.to)
    return ActionTaken(command.position, "bet", to, to - state.wagers.bets[command.position])


def _false_openers(state: HandState, command: FalseOpeners) -> Event:
    seat = command.position
    _check_seat(state, seat)
    if state.settings.opening != JACKS_OR_BETTER or state.opener != seat:
        raise Violation("illegal_action", f"{state.players[seat]} did not open this deal under jacks or better",
                        cite("false_openers"), {"seat": seat})
    if has_openers(state.dealt[seat], state.settings.joker):
        raise Violation("openers_proven", f"{state.players[seat]} was dealt openers: "
                        f"{opening_cards(state.dealt[seat], state.settings.joker)}", cite("false_openers"),
                        {"seat": seat})
    if state.wagers.folded[seat]:
        raise Violation("illegal_action", f"{state.players[seat]}'s hand is already dead", cite("false_openers"),
                        {"seat": seat})
    return FalseOpenersFound(seat, _false_openers_outcome(state, seat))


def _false_openers_outcome(state: HandState, seat: int) -> str:
    others_live = any(other != seat for other in state.wagers.contenders)
    return "pot_plays" if state.acted_after_open and others_live else "carried"


def _check_seat(state: HandState, seat: Any) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seat_count:
        raise Violation("illegal_action", f"no seat {seat!r} at this table", numbers={"seat": seat})


def _action(state: HandState, command: PostAction) -> Event:
    if state.phase not in (FIRST_ROUND, SECOND_ROUND):
        raise Violation("not_your_turn", f"nobody is to bet: the hand awaits the {state.awaiting}",
                        numbers={"seat": command.position})
    _check_seat(state, command.position)
    b = state.wagers
    to = bet.check_action(b, command.position, command.action, command.to)
    if command.action == "bet" and _needs_openers(state) \
            and not has_openers(state.hands[command.position], state.settings.joker):
        raise Violation("no_openers",
                        f"{state.players[command.position]} cannot open: the first bet needs a pair "
                        f"of jacks or better (opening requirement 'jacks or better'); check or fold",
                        cite("five_card_draw"), {"seat": command.position})
    return ActionTaken(command.position, command.action, to, to - b.bets[command.position])


def _draw(state: HandState, command: Discard) -> list[Event]:
    if state.phase != DRAW:
        raise Violation("not_your_turn", f"no draw now: the hand awaits the {state.awaiting}",
                        numbers={"seat": command.position})
    _check_seat(state, command.position)
    seat = command.position
    to_draw = state.draw_to_act
    if seat != to_draw:
        assert to_draw is not None  # the draw goes on while someone is still to draw
        raise Violation("not_your_turn",
                        f"it is {state.players[to_draw]}'s turn to draw, not "
                        f"{state.players[seat]}'s", numbers={"seat": seat, "to_act": to_draw})
    discarded = _parse_card_list(command.cards, "cards to discard")
    held = state.hands[seat]
    foreign = [c for c in discarded if c not in held]
    if foreign:
        raise Violation("invalid_discard",
                        f"{_text(foreign)} not in {state.players[seat]}'s hand {_text(held)}",
                        numbers={"cards": _text(foreign)})
    kept = [c for c in held if c not in discarded]
    limit = draw_limit(state.settings, kept)
    if len(discarded) > limit:
        why = ("; 4 only when keeping an ace or the joker"
               if state.settings.draw_limit == THREE_OR_FOUR_WITH_ACE else "")
        raise Violation("draw_limit_exceeded",
                        f"cannot exchange {len(discarded)} cards: the limit is {limit}{why}",
                        cite("five_card_draw"), {"count": len(discarded), "limit": limit})
    split = _split_openers(state, command, discarded)
    events: list[Event] = []
    stub = state.stub
    if len(stub) < len(discarded):
        pile = _reshuffled(state.muck, state.reshuffle_order)
        events.append(StubReshuffled(len(pile), tuple(format_card(c) for c in pile)))
        stub = stub + pile
    received = stub[:len(discarded)]
    events.append(PlayerDrew(seat, len(discarded), _text(discarded), _text(received)))
    if split:
        events.append(OpenersSplit(seat, _text(discarded)))
    return events


def breaks_openers(state: HandState, seat: int, discard: Sequence[str]) -> bool:
    """Whether throwing `discard` away breaks the opener's openers (the draw must then say so:
    the computer player declares the split)."""
    if state.settings.opening != JACKS_OR_BETTER or seat != state.opener \
            or not has_openers(state.dealt[seat], state.settings.joker):
        return False
    return not _openers_kept(state.dealt[seat], state.settings.joker, _cards("".join(discard)))


def _opener_proofs(cards: Sequence[int], joker: str | None) -> list[set[int]]:
    """Each set of cards that proves openers on its own: the openers themselves and, in a
    straight or flush, a pair of jacks or better it also holds (only with the joker, which
    pairs any card when wild and an ace as the bug): keeping that pair is not splitting
    openers (RRP draw, jacks or better)."""
    proofs = [set(_cards(opening_cards(cards, joker)))]
    if JOKER in cards and evaluate_high(cards, joker).category in ("straight", "flush", "straight_flush"):
        lowest_paired = _JACK_RANK_INDEX if joker == "wild" else ACE_RANK_INDEX
        proofs += [{card, JOKER} for card in cards if card != JOKER and card >> 2 >= lowest_paired]
    return proofs


def _openers_kept(cards: Sequence[int], joker: str | None, discarded: Iterable[int]) -> bool:
    thrown = set(discarded)
    return any(not proof & thrown for proof in _opener_proofs(cards, joker))


def _split_openers(state: HandState, command: Discard, discarded: Sequence[int]) -> bool:
    """Whether this draw splits the openers; an opener who throws away part of them must
    say so (RRP draw), and only the opener can."""
    seat = command.position
    opener = state.settings.opening == JACKS_OR_BETTER and seat == state.opener
    if command.split_openers and not opener:
        why = ("did not open: only the opener splits openers" if state.settings.opening == JACKS_OR_BETTER
               else "has no openers to split: this table plays without an opening requirement (jacks or better)")
        raise Violation("illegal_action", f"{state.players[seat]} {why}", cite("split_openers"), {"seat": seat})
    if not opener or not has_openers(state.dealt[seat], state.settings.joker):
        return command.split_openers
    openers = set(_cards(opening_cards(state.dealt[seat], state.settings.joker)))
    if not _openers_kept(state.dealt[seat], state.settings.joker, discarded) and not command.split_openers:
        raise Violation("split_openers_undeclared",
                        f"discarding {_text(sorted(openers & set(discarded)))} breaks the openers "
                        f"{_text(sorted(openers))}: the opener must declare splitting openers and keep the "
                        "discards aside", cite("split_openers"), {"seat": seat})
    return command.split_openers


def _reshuffled(pile: tuple[int, ...], order: tuple[str, ...] | None) -> tuple[int, ...]:
    """The discards in the caller's random order (positions in `reshuffle_order`), else in
    the order they were thrown in."""
    if order is None:
        return pile
    position = {_CARD_BY_TEXT[text]: k for k, text in enumerate(order)}
    return tuple(sorted(pile, key=position.__getitem__))


def _redeal(state: HandState, command: Redeal) -> list[Event]:
    if state.phase != REDEAL:
        raise Violation("illegal_action", f"no redeal is due: the hand awaits the {state.awaiting}")
    deck = _check_deck(state.settings, command.deck, "deck")
    reshuffle = _check_deck(state.settings, command.reshuffle_order, "reshuffle_order") \
        if command.reshuffle_order is not None else None
    b = state.wagers
    contenders = set(b.contenders)
    ante = state.settings.ante
    amounts = tuple(min(ante, stack) if seat in contenders else 0
                    for seat, stack in enumerate(b.stacks))
    seats = _from_left_of_dealer(contenders, state.button, state.seat_count)
    return [Redealt(deck, command.commitment, reshuffle), AntesPosted(amounts), *_deal(deck, seats)]


# ---------------------------------------------------------------- automatic follow-ups


def _follow_up(state: HandState) -> list[Event]:
    """The events that happen by themselves next; empty when the hand waits for a command."""
    if state.phase in (OVER, REDEAL):
        return []
    if state.phase == DRAW:
        if state.betting is not None and state.betting.hand_decided:
            # False openers found during the draw left one live hand: it takes the pot.
            return _settlement(state)
        if state.draw_to_act is not None:
            return []
        if state.betting is None:
            return _no_betting_showdown(state)
        return [SecondRoundBegan(_second_round_first(state))]
    b = state.wagers
    if b.to_act is not None:
        return []
    opener = state.opener
    if (b.hand_decided or state.phase == SECOND_ROUND) and opener is not None and _unproven_opener(state):
        # The opener must prove the openers at the end of the hand and cannot.
        return [FalseOpenersFound(opener, _false_openers_outcome(state, opener))]
    _, seat, amount = bet.return_uncalled(b)
    if seat is not None and amount:  # no seat: nothing goes back (amount 0)
        return [UncalledReturned(seat, amount)]
    if b.hand_decided:
        return _settlement(state)
    if state.phase == SECOND_ROUND:
        return _showdown_step(state)
    reason = _redeal_reason(state)
    return [RedealRequired(reason)] if reason else [DrawBegan()]


def _unproven_opener(state: HandState) -> bool:
    opener = state.opener
    return opener is not None and state.settings.opening == JACKS_OR_BETTER \
        and not state.wagers.folded[opener] and not has_openers(state.dealt[opener], state.settings.joker)


def _redeal_reason(state: HandState) -> str | None:
    """Why an unopened first round is dealt again (None: it goes on to the draw)."""
    b = state.wagers
    if state.opener is not None or not b.can_still_bet:
        return None
    if state.settings.opening == JACKS_OR_BETTER and not any(
            has_openers(state.hands[seat], state.settings.joker) for seat in b.contenders):
        return NO_OPENERS
    if state.settings.second_round_start == LEFT_OF_DEALER:
        return None
    return ALL_CHECKED


def _second_round_first(state: HandState) -> int | None:
    """The opener, or the next player still in with chips to the opener's left; or the
    first such player left of the dealer (setting, or when nobody opened)."""
    opened = bet.start_round(state.wagers, late=True)
    if opened.to_act is None:
        return None
    if state.settings.second_round_start == LEFT_OF_DEALER or state.opener is None:
        return opened.to_act
    n = state.seat_count
    for step in range(n):
        seat = (state.opener + step) % n
        if not opened.folded[seat] and opened.stacks[seat] > 0:
            return seat
    return None


def _showdown_step(state: HandState) -> list[Event]:
    """The showdown's next events: every hand tabled when one is all in (TDA 2024 16); else
    the computer's show or muck for the seat next in the order (automatic showdowns), or
    nothing while that player is to answer (declared); the settlement once every hand is
    shown or mucked, or one live hand is left (17-B)."""
    order = state.show_order
    if showdown_order.all_in_face_up(order, state.stacks):
        face_up: list[Event] = [_shown(state, seat) for seat in order if not state.shown[seat]]
        if face_up:
            return face_up
    due = showdown_order.next_to_show(order, state.shown, state.mucked)
    if due is None:
        return _settlement(state)
    if state.settings.showdown == showdown_order.AUTOMATIC:
        return [_shown(state, due) if shows_at_showdown(state, due) else CardsMucked(due)]
    return []


def _settlement(state: HandState) -> list[Event]:
    """Openers proven, every pot awarded among the hands not mucked, hand over."""
    b = state.wagers
    n = state.seat_count
    pots = build_pots(b.committed, b.folded, tuple(stack == 0 for stack in b.stacks), b.dead)
    at_showdown = not b.hand_decided
    events: list[Event] = []
    if state.opener is not None and state.settings.opening == JACKS_OR_BETTER \
            and has_openers(state.dealt[state.opener], state.settings.joker):
        events.append(OpenersShown(state.opener, opening_cards(state.dealt[state.opener], state.settings.joker)))
    strengths = _strengths(state) if at_showdown else {}
    stacks = list(b.stacks)
    for award in award_pots(pots, strengths, b.button, n, LEFT_OF_BUTTON):
        events.append(PotAwarded(award.amount, award.eligible, award.winners, award.shares))
        for seat, share in zip(award.winners, award.shares):
            stacks[seat] += share
    events.append(HandEnded(tuple(stacks), (0,) * n, at_showdown))
    return events


def opening_cards(cards: Sequence[int], joker: str | None) -> str:
    """The cards that make a hand's openers (the pair, two pair, trips...; all five for a
    straight or better), as text."""
    value = evaluate_high(cards, joker)
    return _text(value.best[:_CATEGORY_CARDS.get(value.category, HAND_SIZE)])


def _no_betting_showdown(state: HandState) -> list[Event]:
    n = state.seat_count
    events: list[Event] = []
    strengths = {}
    for seat in _from_left_of_dealer(range(n), state.button, n):
        value = evaluate_high(state.hands[seat], state.settings.joker)
        events.append(CardsShown(seat, _text(state.hands[seat]), value.category))
        strengths[seat] = value.strength
    best = max(strengths.values())
    winners = tuple(seat for seat in range(n) if strengths[seat] == best)
    events.append(PointsScored(winners))
    events.append(HandEnded((0,) * n, tuple(int(seat in winners) for seat in range(n)), True))
    return events


# ------------------------------------------------------------------ computer player


def advised_discard(hand: Sequence[str] | str, settings: DrawSettings) -> tuple[str, ...]:
    """The seeds' draw advice, for the computer player: which cards to throw away.

    Straight or better: stand pat. Three of a kind: draw 2. Two pair: draw 1. Four to a
    flush: draw 1 (ours: preferred to a lone pair, the seeds give no order). One pair: keep
    the pair, draw 3. Nothing: keep the highest card and draw as many as the limit allows
    (with "3, or 4 keeping an ace" that is 4 only when the card kept is an ace or joker;
    otherwise keep the two highest). The joker is never thrown away.
    """
    cards = parse_cards(hand)
    if len(cards) != HAND_SIZE:
        raise Violation("invalid_hand", f"a draw hand has {HAND_SIZE} cards, not {len(cards)}")
    value = evaluate_high(cards, settings.joker)
    real = sorted((c for c in cards if c != JOKER), key=lambda c: -(c >> 2))
    jokers = [c for c in cards if c == JOKER]
    if value.category in ("straight", "flush", "full_house", "four_of_a_kind", "straight_flush",
                          "royal_flush", "five_of_a_kind"):
        return ()
    by_rank: dict[int, list[int]] = {}
    for card in real:
        by_rank.setdefault(card >> 2, []).append(card)
    groups = [group for group in by_rank.values() if len(group) >= 2]
    if value.category in ("three_of_a_kind", "two_pair"):
        keep = [c for group in groups for c in group] + jokers
        return _discarding(cards, keep)
    by_suit: dict[int, list[int]] = {}
    for card in real:
        by_suit.setdefault(card & 3, []).append(card)
    flush_draw = next((s for s in by_suit.values() if len(s) + len(jokers) >= 4), None)
    if flush_draw is not None:
        return _discarding(cards, flush_draw + jokers)
    if value.category == "one_pair":
        # A joker pair is the joker with the card it matches: the highest card ("wild"),
        # an ace ("bug", counted as an ace only).
        pair = groups[0] if groups else [real[0]]
        return _discarding(cards, pair + jokers)
    keep = real[:1] + jokers
    if draw_limit(settings, keep) < HAND_SIZE - len(keep):
        keep = real[:HAND_SIZE - draw_limit(settings, real[:2] + jokers)] + jokers
    return _discarding(cards, keep)


def _discarding(cards: tuple[int, ...], keep: Sequence[int]) -> tuple[str, ...]:
    kept = set(keep)
    return tuple(format_card(c) for c in cards if c not in kept)


def auto_action(state: HandState, seat: int, timed_out: bool = False) -> PostAction | Discard | ShowCards | Muck:
    """The command played for `seat` when it is their turn and they do not act.

    `timed_out` (the turn time limit ran out): check if possible, else fold; on the draw
    keep all five cards (both seeds); at the showdown the cards speak, whoever is to show
    (`shows_at_showdown`: a house decision, as at hold'em tables). Otherwise the computer player standing in for an
    absent player: check when possible, call a bet of at most one unit with a pair or
    better, else fold; on the draw follow `advised_discard`.
    """
    if seat != state.to_act:
        raise Violation("not_your_turn", f"it is not {state.players[seat]}'s turn",
                        numbers={"seat": seat, "to_act": state.to_act})
    if state.at_showdown:
        return ShowCards(seat) if shows_at_showdown(state, seat) else Muck(seat)
    if state.phase == DRAW:
        if timed_out:
            return Discard(seat, ())
        advised = advised_discard(_text(state.hands[seat]), state.settings)
        return Discard(seat, advised, split_openers=breaks_openers(state, seat, advised))
    legal = legal_actions(state)
    assert legal is not None  # the seat to act, neither drawing nor at the showdown, is to bet
    if legal.check:
        return PostAction(seat, "check")
    small = legal.call is not None and legal.call.adds <= state.settings.unit
    if not timed_out and small and \
            evaluate_high(state.hands[seat], state.settings.joker).category != "high_card":
        return PostAction(seat, "call")
    return PostAction(seat, "fold")
