"""Five-card draw in PHH: Cardroom's documented extension (docs/phh-five-card-draw.md),
replayed through five-card draw in the draw family's engine (domain.games.draw.engine) and exported from its events.

The phh-std has draw notation (`pN sd [cards]`, then `d dh pN <cards>` for the cards
received) but no code for five-card draw high with antes, so we add `N5CD`, `P5CD` and
`F5CD` (no-limit, pot-limit, fixed-limit) and carry the game's settings in user-defined
fields (`_draw_limit`, `_opening`, `_second_round_start`, `_joker`, `_raise_cap`,
`_heads_up_uncapped`), which the standard reserves for exactly this.

Our decider deals from a full deck order fixed at the start of a deal; a record gives the
cards each player got instead. So the replay builds, for every deal of the hand (the first
one, and each redeal after an unopened first round), the deck order that deals exactly the
recorded cards: the five-card hands interleaved one card at a time from the left of the
dealer, then the cards received on the draw in drawing order, then every card the record
never names. Should the stub run out, the draw is served from the reshuffled discards:
cards dealt earlier in the deal may be named again there, and the reshuffle order puts
them first (recorded_deck); the decider rules whether they were among the discards.
Unknown cards (`??`) are stood in for by unnamed cards; a showdown that would need them
cannot be settled and is refused (`unknown_cards`).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.games.draw import engine
from domain.games.draw import events as draw_events
from domain.games.draw.commands import Discard, Redeal, StartHand
from domain.games.draw.events import CardsShown, Event, HandEnded, HandStarted, PlayerDrew
from domain.games.draw.state import HAND_SIZE, REDEAL, HandState
from domain.games.draw_settings import DrawSettings
from domain.games.hand_events import ActionTaken, CardsMucked, PostAction
from domain.history.phh import (
    UNKNOWN_CARD,
    Amount,
    BetOrRaisedTo,
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
    player_names,
)
from domain.rules.betting import FIXED_LIMIT, NO_LIMIT, POT_LIMIT
from domain.rules.cards import deck_texts, format_card, parse_card
from domain.rules.violations import Violation

# Our variant codes: betting structure letter (as phh-std's NT/FT/PO) + 5CD, five-card draw.
VARIANTS = {"N5CD": NO_LIMIT, "P5CD": POT_LIMIT, "F5CD": FIXED_LIMIT}
_VARIANT_OF_STRUCTURE = {structure: code for code, structure in VARIANTS.items()}
# User-defined PHH fields (leading underscore) -> DrawSettings field.
SETTING_FIELDS = {
    "_draw_limit": "draw_limit", "_opening": "opening",
    "_second_round_start": "second_round_start", "_joker": "joker",
    "_raise_cap": "raise_cap", "_heads_up_uncapped": "heads_up_uncapped",
}


def _refuse(code: str, detail: str, **numbers: Any) -> Violation:
    return Violation(code, detail, numbers=numbers)


# ---------------------------------------------------------------- the table a record describes


def settings_of(record: HandHistory) -> DrawSettings:
    """The draw settings a record describes, or `unsupported_forced_bets` /
    `invalid_settings` naming the field that does not fit our game."""
    structure = VARIANTS[record.variant]
    antes = record.antes
    if len(set(antes)) != 1 or not _whole(antes[0]) or antes[0] < 1:
        raise _refuse("unsupported_forced_bets",
                      f"five-card draw antes are one whole amount for every player, not {list(antes)}")
    if any(record.blinds_or_straddles or ()):
        raise _refuse("unsupported_forced_bets",
                      f"five-card draw has no blinds: blinds_or_straddles {list(record.blinds_or_straddles or ())}")
    ante = int(antes[0])
    unit = 2 * ante
    wanted = {"small_bet": unit, "big_bet": 2 * unit} if structure == FIXED_LIMIT else {"min_bet": unit}
    for name, amount in wanted.items():
        stated = getattr(record, name)
        if stated is not None and stated != amount:
            raise _refuse("unsupported_forced_bets",
                          f"{name} is {stated}, but the five-card draw unit is twice the ante "
                          f"({ante}): {name} must be {amount}", **{name: stated, "ante": ante})
    metadata = dict(record.metadata)
    chosen: dict[str, Any] = {"ante": ante, "structure": structure}
    for phh_name, setting in SETTING_FIELDS.items():
        if phh_name in metadata:
            chosen[setting] = metadata[phh_name]
    if chosen.get("raise_cap") == "none":
        chosen["raise_cap"] = None  # TOML has no null: an uncapped fixed-limit table
    try:
        return DrawSettings.from_dict(chosen)
    except TypeError as error:
        raise _refuse("invalid_settings", f"bad five-card draw setting: {error}") from None


def start_command(record: HandHistory, deck: Sequence[str] | None = None,
                  reshuffle_order: Sequence[str] | None = None) -> StartHand:
    """Our StartHand for the record: p1 in seat 0, the button last (the dealer)."""
    settings = settings_of(record)
    stacks = record.starting_stacks
    if not all(_whole(s) and s > 0 for s in stacks):
        raise _refuse("unsupported_amounts",
                      f"five-card draw plays whole chips: starting_stacks {list(map(str, stacks))}")
    return StartHand(
        players=player_names(record), button=record.player_count - 1, settings=settings,
        deck=tuple(deck) if deck is not None else new_deck_text(settings),
        stacks=tuple(int(s) for s in stacks),
        reshuffle_order=tuple(reshuffle_order) if reshuffle_order is not None else None)


def new_deck_text(settings: DrawSettings) -> tuple[str, ...]:
    return deck_texts(with_joker=settings.joker is not None)


def _whole(amount: Amount) -> bool:
    return isinstance(amount, int) or amount.denominator == 1


# ---------------------------------------------------------------- the deck orders of a record


@dataclass
class _Deal:
    """One deal of the hand as recorded: each player's five cards (in record order), the
    cards received on the draw (in drawing order), and the action index of each."""
    hands: dict[int, list[str]] = field(default_factory=dict)
    hand_actions: dict[int, int] = field(default_factory=dict)
    receipts: list[list[str]] = field(default_factory=list)
    # The receipts with every `??` stood in for: what the decider must deal on each draw.
    received: tuple[str, ...] = ()
    deck: tuple[str, ...] = ()
    reshuffle_order: tuple[str, ...] | None = None
    fillers: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Plan:
    deals: tuple[_Deal, ...]
    # action index -> ("deal", k) for a five-card hand of deal k, ("draw", k, slot) for a
    # discard and ("receipt", k, slot) for the cards it brought (slot: in drawing order).
    roles: dict[int, tuple[Any, ...]]


def _plan(record: HandHistory, settings: DrawSettings) -> _Plan:
    """Split the record's `d dh` actions into deals and draw receipts and build each deal's
    deck order (see the module docstring)."""
    deals: list[_Deal] = []
    roles: dict[int, tuple[Any, ...]] = {}
    owed: dict[int, list[int]] = {}  # player -> receipt slots still to be dealt, oldest first
    for index, action in enumerate(record.actions):
        if type(action) is StoodPatOrDiscarded and action.cards:
            if not deals:
                raise _at(index, action, _refuse("illegal_action", "a draw before the deal"))
            deal = deals[-1]
            # Unknown until the record deals them (a record may stop before it does).
            deal.receipts.append([UNKNOWN_CARD] * len(action.cards))
            owed.setdefault(action.player, []).append(len(deal.receipts) - 1)
            roles[index] = ("draw", len(deals) - 1, len(deal.receipts) - 1)
        elif type(action) is HoleCardsDealt:
            if owed.get(action.player):
                slot = owed[action.player].pop(0)
                wanted = len(deals[-1].receipts[slot])
                if len(action.cards) != wanted:
                    raise _at(index, action, _refuse(
                        "invalid_card", f"p{action.player + 1} discarded {wanted} and must be "
                        f"dealt {wanted}, not {len(action.cards)}"))
                deals[-1].receipts[slot] = list(action.cards)
                roles[index] = ("receipt", len(deals) - 1, slot)
                continue
            if len(action.cards) != HAND_SIZE:
                raise _at(index, action, _refuse(
                    "invalid_card", f"a five-card draw hand is {HAND_SIZE} cards, not "
                    f"{len(action.cards)} (cards received on a draw follow the player's `sd`)"))
            if not deals or deals[-1].receipts or action.player in deals[-1].hands:
                deals.append(_Deal())
            deals[-1].hands[action.player] = list(action.cards)
            deals[-1].hand_actions[action.player] = index
            roles[index] = ("deal", len(deals) - 1)
    for deal in deals:
        _order_deck(deal, settings, record)
    return _Plan(tuple(deals), roles)


def _order_deck(deal: _Deal, settings: DrawSettings, record: HandHistory) -> None:
    players = sorted(deal.hands)
    try:
        built = recorded_deck(settings, [deal.hands[p] for p in players], deal.receipts)
    except Violation as violation:
        card = violation.numbers.get("card")
        # Name the last action that mentions the card: the first one that cannot be.
        mentions = [deal.hand_actions[p] for p in players if card in deal.hands[p]]
        raise _at_index(record, max(mentions, default=-1), violation) from None
    deal.deck, deal.reshuffle_order = built.deck, built.reshuffle_order
    deal.received, deal.fillers = built.received, built.fillers


@dataclass(frozen=True)
class RecordedDeck:
    """A deck order that deals given cards. `received[k]`: the k-th draw's cards as dealt
    (unknown ones stood in for); `fillers`: the cards standing in for unknown ones."""
    deck: tuple[str, ...]
    reshuffle_order: tuple[str, ...] | None
    hands: tuple[tuple[str, ...], ...]
    received: tuple[str, ...]
    fillers: frozenset[str]


def recorded_deck(settings: DrawSettings, hands: Sequence[Sequence[str]],
                  receipts: Sequence[Sequence[str]] = ()) -> RecordedDeck:
    """The deck order under which our decider deals `hands` (five cards each, in dealing
    order from the left of the dealer) and then, on the draw, `receipts` (in drawing
    order). `??` is an unknown card: an unnamed card stands in for it, and a hand with
    unknown cards gets an ace first (when one is free) and then the highest free cards,
    so a ruling never refuses openers or an ace-kept draw for want of cards nobody named.
    Once the stub is dealt out, the draws come from the reshuffled discards and folded
    hands (domain.games.draw.drawing): those cards were dealt before in this deal, so
    they may be named again, and `reshuffle_order` puts them first in the order they are
    dealt. Whether each was really in the discards then is the decider's to rule on the
    draw (the replay compares what it deals with the record).
    Raises Violation `invalid_card` / `duplicate_card` with numbers["card"]."""
    full = new_deck_text(settings)
    if len(hands) * HAND_SIZE > len(full):
        raise _refuse("illegal_action", f"{len(hands)} hands of {HAND_SIZE} need more than "
                      f"the {len(full)} cards of the deck", hands=len(hands))
    stub_room = len(full) - len(hands) * HAND_SIZE
    drawn_cards = [card for cards in receipts for card in cards]
    from_stub = [c for cards in hands for c in cards] + drawn_cards[:stub_room]
    seen: set[str] = set()
    for k, card in enumerate(from_stub + drawn_cards[stub_room:]):
        if card == UNKNOWN_CARD:
            continue
        _check_card_text(card, full)
        if card in seen and k < len(from_stub):
            raise _refuse("duplicate_card", f"{card} is dealt twice in one deal", card=card)
        seen.add(card)
    # Highest first: an unknown hand stands in as a strong one (see above).
    free = sorted((c for c in full if c not in seen), key=lambda c: -parse_card(c))
    fillers: list[str] = []

    def take(wanted: Any = None) -> str:
        if not free:
            return UNKNOWN_CARD
        card = next((c for c in free if wanted is None or wanted(c)), free[0])
        free.remove(card)
        fillers.append(card)
        return card

    partly_known = [list(cards) for cards in hands]
    for cards in partly_known:  # an ace for every hand first, then the other cards
        if UNKNOWN_CARD in cards and not any(c[0] == "A" or c == "Jk" for c in cards):
            cards[cards.index(UNKNOWN_CARD)] = take(lambda c: c[0] == "A")
    resolved_hands = [tuple(take() if c == UNKNOWN_CARD else c for c in cards)
                      for cards in partly_known]
    # Unknown cards from the stub get fillers; unknown cards from the reshuffled discards
    # stay unknown: the decider deals whatever the reshuffle gives.
    received: list[tuple[str, ...]] = []
    for receipt in receipts:
        first = sum(map(len, received))  # this draw's first card: from the stub while < stub_room
        received.append(tuple(take() if c == UNKNOWN_CARD and first + k < stub_room else c
                              for k, c in enumerate(receipt)))
    # One card at a time from the left of the dealer: the first hand first.
    count = len(resolved_hands)
    dealt = [resolved_hands[j][r] for r in range(HAND_SIZE) for j in range(count)]
    resolved = [card for cards in received for card in cards]
    stub = [card for card in resolved[:stub_room] if card != UNKNOWN_CARD]
    used = set(dealt) | set(stub)
    deck = tuple(dealt + stub + [c for c in full if c not in used])
    reshuffle_order = None
    if len(resolved) > stub_room:
        # The stub runs out: the discards are reshuffled, the cards still owed first.
        owed = list(dict.fromkeys(c for c in resolved[stub_room:] if c != UNKNOWN_CARD))
        reshuffle_order = tuple(owed + [c for c in full if c not in owed])
    return RecordedDeck(deck, reshuffle_order, tuple(resolved_hands),
                        tuple("".join(cards) for cards in received), frozenset(fillers))


def _check_card_text(card: str, full: Sequence[str]) -> None:
    try:
        text = format_card(parse_card(card))
    except Violation:
        text = None
    if text != card or text not in full:
        raise _refuse("invalid_card", f"{card!r} is not a card of this table's deck "
                      "(rank 23456789TJQKA + suit shdc, Jk with a joker)", card=card)


def _at(index: int, action: PhhAction, violation: Violation) -> Violation:
    return Violation(violation.code, f"action {index} ({format_action(action)!r}): {violation.detail}",
                     violation.rule, {**violation.numbers, "action_index": index,
                                      "action": format_action(action)})


def _at_index(record: HandHistory, index: int, violation: Violation) -> Violation:
    if index < 0:
        return violation
    return _at(index, record.actions[index], violation)


# ---------------------------------------------------------------- replay


def replay(record: HandHistory) -> ReplayResult:
    """Replay a five-card draw record through our draw decider (same contract as
    domain.history.phh.replay: `action_index` names the first illegal action)."""
    settings = settings_of(record)
    plan = _plan(record, settings)
    if not plan.deals:
        raise _refuse("hand_incomplete", "the record deals no cards", action_index=0)
    first = plan.deals[0]
    if len(first.hands) != record.player_count:
        raise _refuse("invalid_card", f"the first deal gives {len(first.hands)} of "
                      f"{record.player_count} players their five cards",
                      action_index=min(first.hand_actions.values()))
    log, state = engine.handle(None, start_command(record, first.deck, first.reshuffle_order))
    for index, action in enumerate(record.actions):
        try:
            events, state = _step(state, plan, index, action)
        except Violation as violation:
            raise _at(index, action, violation) from None
        log += events
    if not state.over:
        raise _refuse("hand_incomplete", f"the record ends while the hand awaits the {state.awaiting}",
                      action_index=len(record.actions))
    _check_known_showdown(state, plan, log)
    winners = sorted({seat for award in state.awards for seat in award.winners})
    return ReplayResult(tuple(state.stacks), state.awards, tuple(winners), tuple(log))


def _step(state: HandState, plan: _Plan, index: int,
          action: PhhAction) -> tuple[list[Event], HandState]:
    if isinstance(action, HoleCardsDealt):
        return _dealt(state, plan, index, action)
    if isinstance(action, ShownOrMucked):
        _check_shown(state, action)
        return [], state
    if state.over:
        raise Violation("hand_over", "the hand is over")
    if isinstance(action, Folded):
        return engine.handle(state, PostAction(action.player, "fold"))
    if isinstance(action, CheckedOrCalled):
        betting = state.betting
        owes = betting is not None and betting.highest > betting.bets[action.player]
        return engine.handle(state, PostAction(action.player, "call" if owes else "check"))
    if isinstance(action, BetOrRaisedTo):
        opened = state.betting is not None and state.betting.highest > 0
        return engine.handle(state, PostAction(action.player, "raise" if opened else "bet",
                                                  action.amount))
    if isinstance(action, StoodPatOrDiscarded):
        events, after = engine.handle(state, Discard(action.player, _discards(state, plan, action)))
        _check_received(plan, plan.roles.get(index), events)
        return events, after
    raise Violation("unsupported_variant",
                    f"{format_action(action)!r} belongs to another variant")


def _dealt(state: HandState, plan: _Plan, index: int,
           action: HoleCardsDealt) -> tuple[list[Event], HandState]:
    role = plan.roles[index]
    deal = plan.deals[role[1]]
    if role[0] == "receipt":
        return [], state  # checked on the draw itself (_check_received), which dealt them
    if role[1] == state.redeals:
        return [], state  # one of the five-card hands this deal's deck order dealt
    if state.phase != REDEAL or role[1] != state.redeals + 1:
        raise Violation("illegal_action", "a new deal only follows a first round that ended "
                        f"unopened; the hand awaits the {state.awaiting}")
    if sorted(deal.hands) != sorted(state.contenders):
        raise Violation("invalid_card", "a redeal gives five cards to every player still in: "
                        f"{', '.join(f'p{s + 1}' for s in state.contenders)}")
    return engine.handle(state, Redeal(deal.deck, reshuffle_order=deal.reshuffle_order))


def _check_received(plan: _Plan, role: tuple[Any, ...] | None, events: list[Event]) -> None:
    if role is None:
        return  # standing pat
    wanted = plan.deals[role[1]].received[role[2]]
    drew = next(e for e in events if type(e) is PlayerDrew)
    if UNKNOWN_CARD not in wanted and drew.received != wanted:
        raise Violation("invalid_card", f"the record deals {wanted}, but the stub and the "
                        f"reshuffled discards give {drew.received}: a card cannot be dealt twice")


def _discards(state: HandState, plan: _Plan, action: StoodPatOrDiscarded) -> tuple[str, ...]:
    """The named discards; each `??` stands for one of the player's unknown cards."""
    fillers = plan.deals[state.redeals].fillers
    held = [format_card(c) for c in state.hands[action.player]]
    unknown = iter(c for c in held if c in fillers and c not in action.cards)
    try:
        return tuple(next(unknown) if card == UNKNOWN_CARD else card for card in action.cards)
    except StopIteration:
        raise Violation("invalid_discard", f"p{action.player + 1} discards more unknown cards "
                        "than they hold") from None


def _check_shown(state: HandState, action: ShownOrMucked) -> None:
    """Our replay's showdown is automatic (the computer shows or mucks in the order of show);
    a record's `sm` must name the cards the player holds."""
    if not state.over:
        raise Violation("illegal_action", f"no showdown yet: the hand awaits the {state.awaiting}")
    if not action.cards or UNKNOWN_CARD in action.cards:
        return
    held = {format_card(c) for c in state.hands[action.player]}
    if set(action.cards) != held:
        raise Violation("invalid_card", f"p{action.player + 1} shows {''.join(action.cards)} but "
                        f"holds {''.join(sorted(held))}")


def _check_known_showdown(state: HandState, plan: _Plan, log: Iterable[Event]) -> None:
    fillers = plan.deals[state.redeals].fillers
    # A hand the computer mucked was weighed too: filler cards must not decide that either.
    for event in log:
        if isinstance(event, CardsShown) and fillers & set(_split(event.cards)) or \
                isinstance(event, CardsMucked) and fillers & {format_card(c) for c in state.hands[event.position]}:
            raise _refuse("unknown_cards", f"the showdown needs p{event.position + 1}'s cards, which "
                          "the record gives as unknown (??)", seat=event.position)


def _split(text: str) -> list[str]:
    return [text[i:i + 2] for i in range(0, len(text), 2)]


# ---------------------------------------------------------------- export of our hands


def phh_from_events(events: Iterable[Event]) -> HandHistory:
    """A finished five-card draw hand (its events) as a record of our extension. Cards an
    event hides (None) are written `??`, as many as the public count says."""
    events = list(events)
    started = events[0]
    if not isinstance(started, HandStarted):
        raise ValueError("a hand's events begin with HandStarted")
    settings = started.settings
    if not settings.betting:
        raise ValueError("a no-betting five-card draw hand has no PHH form")
    count = len(started.players)
    order = [(started.button + 1 + k) % count for k in range(count)]
    phh = {seat: k for k, seat in enumerate(order)}
    actions: list[PhhAction] = []
    finishing: tuple[Amount, ...] | None = None
    for event in events[1:]:
        if isinstance(event, draw_events.HoleCardsDealt):
            cards = _split(event.cards) if event.cards else [UNKNOWN_CARD] * HAND_SIZE
            actions.append(HoleCardsDealt(phh[event.position], tuple(cards)))
        elif isinstance(event, ActionTaken):
            actions.append(betting_action(phh[event.position], event))
        elif isinstance(event, PlayerDrew):
            player = phh[event.position]
            hidden = (UNKNOWN_CARD,) * event.count
            actions.append(StoodPatOrDiscarded(
                player, tuple(_split(event.discarded)) if event.discarded is not None else hidden))
            if event.count:
                actions.append(HoleCardsDealt(
                    player, tuple(_split(event.received)) if event.received is not None else hidden))
        elif isinstance(event, CardsShown):
            actions.append(ShownOrMucked(phh[event.position], tuple(_split(event.cards))))
        elif isinstance(event, CardsMucked):
            actions.append(ShownOrMucked(phh[event.position], None))
        elif isinstance(event, HandEnded):
            finishing = tuple(event.stacks[seat] for seat in order)
    unit = settings.unit
    fixed = settings.structure == FIXED_LIMIT
    metadata = tuple((phh_name, _phh_setting(getattr(settings, setting)))
                     for phh_name, setting in SETTING_FIELDS.items()
                     if phh_name != "_raise_cap" or fixed)
    return HandHistory(
        variant=_VARIANT_OF_STRUCTURE[settings.structure],
        ante_trimming_status=True,
        antes=(settings.ante,) * count,
        small_bet=unit if fixed else None,
        big_bet=2 * unit if fixed else None,
        min_bet=None if fixed else unit,
        starting_stacks=tuple(started.stacks[seat] for seat in order),
        actions=tuple(actions),
        players=tuple(started.players[seat] for seat in order),
        finishing_stacks=finishing,
        metadata=metadata,
    )


def _phh_setting(value: Any) -> Any:
    # TOML has no null: "none" is the settings' own spelling of "no requirement / no joker"
    # and, for `_raise_cap`, of an uncapped fixed-limit table (settings_of reads it back).
    return "none" if value is None else value
