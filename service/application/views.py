"""Redaction: what each role may see of a table, its event log, hand histories and states.

- floor staff and admins see every player's cards;
- a player sees their own hole cards (draw: their discards and draws; Palace Poker: their
  palace, and the two fighters' palaces in a battle showdown), nobody else's;
- spectators see no hidden card;
- everyone sees cards shown at the showdown and the board;
- the deck orders, reshuffle orders, the shuffle's salt and the values behind a pending
  dice roll commitment stay hidden from EVERY role, floor and admin included (api.md: never
  visible before the hand ends), until the hand (a dice game) is over;
- then a hold'em, Omaha or five-card draw hand, committed card by card
  (domain.rules.deal_commitment), shows its deck (draw: every deck, reshuffle order and
  reshuffled stub) and secret to the floor and admin only (metadata `floor_only`); everyone
  gets the openings of the board and of the hands shown, each player those of their own
  cards (draw: every card they were dealt or drew), so nobody learns a mucked card or one
  nobody saw. The other games' decks, committed whole (and draw hands dealt before the
  per-card scheme), are shown to everyone once the hand is over, so anyone can check the deal.

Events are redacted one at a time with the metadata the application layer wrote on them
(`hand_id`, and `visible_to` for private cards), so a slice of the log needs no context
beyond which hand is still being played.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from domain.live import table
from domain.rules import deal_commitment
from domain.rules.betting import LegalActions, legal_actions
from domain.rules.cards import format_card, parse_cards, verify_deck_commitment
from domain.games import dice, draw, palace
from domain.games.draw_settings import JACKS_OR_BETTER
from domain.live.games import DiceTableHand, DrawTableHand, PalaceTableHand
from domain.live.mixed import PRIVATE_EVENTS as PARTLY_PUBLIC_EVENTS, event_view
from service.application.sealing import hidden
from service.adapters.store.base import RecordedEvent, format_recorded_at

SEES_EVERYTHING = ("admin", "floor")
# Fields of a private event (metadata `visible_to`) others may not see; default ("cards",).
PRIVATE_FIELDS = {
    "PlayerDrew": ("discarded", "received"),
    "BattleCardsShown": ("attacker_palace", "defender_palace", "attacker_hand", "defender_hand"),
}


@dataclass(frozen=True)
class Viewer:
    role: str
    player_id: str | None = None

    @property
    def sees_everything(self) -> bool:
        return self.role in SEES_EVERYTHING

    def sees_cards_of(self, player_id: str | list[str] | tuple[str, ...] | None) -> bool:
        """`player_id`: the owner of the cards, or the players allowed to see them."""
        if self.sees_everything:
            return True
        if isinstance(player_id, (list, tuple)):
            return self.player_id is not None and self.player_id in player_id
        return self.player_id is not None and self.player_id == player_id


def redact_event(event: Mapping[str, Any], viewer: Viewer) -> dict[str, Any]:
    """`event`: {"version", "type", "data", "metadata", ["recorded_at"], ["revealed"]} ->
    what the viewer may see. The sealed fields show only where the event says `revealed`
    (the store read them because the hand is closed, service.application.sealing); otherwise they read
    as null."""
    metadata = event.get("metadata") or {}
    data = dict(event["data"]) if event.get("revealed") else hidden(event["type"], event["data"])
    if "visible_to" in metadata and not viewer.sees_cards_of(metadata["visible_to"]):
        if event["type"] in PARTLY_PUBLIC_EVENTS:  # stud's up cards, how many were drawn
            data = event_view(event["type"], data)
        else:
            for name in PRIVATE_FIELDS.get(event["type"], ("cards",)):
                data[name] = None
    if not viewer.sees_everything:
        for name in metadata.get("floor_only", ()):
            data[name] = None
    shown: dict[str, Any] = {"version": event["version"], "type": event["type"], "data": data}
    hand_id = metadata.get("hand_id")
    if hand_id is not None:
        shown["hand_id"] = hand_id
    if "recorded_at" in event:
        shown["recorded_at"] = event["recorded_at"]
    return shown


def redact_events(events: Iterable[Mapping[str, Any]], viewer: Viewer) -> list[dict[str, Any]]:
    return [redact_event(e, viewer) for e in events]


def redact_records(records: Iterable[RecordedEvent], viewer: Viewer) -> list[dict[str, Any]]:
    """Stored events as the viewer may see them; their sealed fields show only if the read
    revealed them."""
    return [redact_event({"version": r.version, "type": r.type,
                          "data": r.full_data() if r.revealed else r.data,
                          "metadata": r.metadata, "revealed": r.revealed,
                          "recorded_at": format_recorded_at(r.recorded_at)}, viewer)
            for r in records]


def tournament_records(records: Iterable[RecordedEvent]) -> list[dict[str, Any]]:
    """A tournament's events as anyone may see them: they hold no hidden cards; who wrote
    them (the metadata) is left out."""
    return [{"version": r.version, "type": r.type, "data": r.data,
             "recorded_at": format_recorded_at(r.recorded_at)} for r in records]


def legal_view(legal: LegalActions | None) -> dict[str, Any] | None:
    """The `legal` shape of the betting ruling (api.md)."""
    if legal is None:
        return None
    shape: dict[str, Any] = {
        "fold": legal.fold,
        "check": legal.check,
        "call": {"to": legal.call.to, "adds": legal.call.adds} if legal.call else None,
        "bet": {"min_to": legal.bet.min_to, "max_to": legal.bet.max_to} if legal.bet else None,
        "raise": {"min_to": legal.raise_.min_to, "max_to": legal.raise_.max_to} if legal.raise_ else None,
    }
    if legal.raise_closed_reason is not None and legal.bet is None:
        shape["raise_closed_reason"] = legal.raise_closed_reason
    return shape


def legal_actions_view(state: table.TableState, viewer: Viewer | None = None) -> dict[str, Any]:
    """Who is to act and what they may do. Derived from public information (stacks, bets,
    the round) for anyone who may not see the acting player's cards (`viewer` None: staff):
    under jacks or better, whether the player to act may open depends on their cards, so
    others see the bet as the betting allows it, marked `bet_needs_openers`."""
    if not state.hand_in_progress:
        return {"to_act": None, "legal": None}
    hand = state.hand
    module = table.game_rules(state.game).module
    if isinstance(hand, DrawTableHand):
        return {"to_act": state.to_act, "legal": _draw_legal(hand, module, state.to_act, viewer)}
    if isinstance(hand, (PalaceTableHand, DiceTableHand)) or _owns_views(state):
        return {"to_act": state.to_act, "legal": module.legal_actions(hand)}
    if getattr(hand, "to_show", None) is not None:
        return {"to_act": state.to_act, "legal": _showdown_legal(hand)}
    return {"to_act": state.to_act, "legal": legal_view(module.legal_actions(hand))}


def _showdown_legal(hand: Any) -> dict[str, Any]:
    """At a declared showdown the player to show may show or muck (TDA 2024 17); a caller
    may ask to see the last aggressor's hand (TDA 2024 18-B), named here when that right
    is open."""
    aggressor = hand.aggressor
    open_right = aggressor is not None and not hand.shown[aggressor] and aggressor in hand.show_order
    return {"fold": False, "check": False, "call": None, "bet": None, "raise": None,
            "show": True, "muck": True,
            "ask_to_see": hand.players[aggressor] if open_right else None}


def _draw_legal(hand: DrawTableHand, module: Any, to_act: str | None,
                viewer: Viewer | None) -> dict[str, Any] | None:
    game = hand.game
    needs_openers = (game.settings.opening == JACKS_OR_BETTER and game.opener is None
                     and game.phase == draw.FIRST_ROUND and game.betting is not None)
    if needs_openers and viewer is not None and not viewer.sees_cards_of(to_act):
        shape = legal_view(legal_actions(game.betting)) or {}
        if shape.get("bet") is not None:
            shape["bet_needs_openers"] = True
        return {**shape, "discard": None}
    legal = module.legal_actions(hand)
    if legal is not None and "betting" in legal:
        legal = {**(legal_view(legal["betting"]) or {}), "discard": None}
    return legal


def next_view(state: table.TableState, viewer: Viewer) -> dict[str, Any]:
    """What a client needs after a write to act next without another read: who is to act,
    what they may do, and the hand's public summary. Public information only: no hole card,
    no deck, whoever asks."""
    shown = legal_actions_view(state, viewer)
    shown["hand"] = hand_summary(state) if state.hand is not None else None
    return shown


def _owns_views(state: table.TableState) -> Any:
    """The game's adapter when it says itself what each viewer sees of its hand (the mixed
    games: domain.live.mixed), else None."""
    module = table.game_rules(state.game).module
    return module if getattr(module, "owns_views", False) else None


def hand_summary(state: table.TableState) -> dict[str, Any]:
    """The current (or last) hand's public state: round, board, pots, stacks, over."""
    hand = state.hand
    names = [state.players[s] for s in state.hand_seats]
    if (adapter := _owns_views(state)) is not None:
        return {"id": state.hand_id, "number": state.hands_played, "over": hand.over,
                **adapter.summary(hand, names), "stacks": dict(zip(names, hand.stacks))}
    if isinstance(hand, DrawTableHand):
        board, pots = "", hand.game.pots
    elif isinstance(hand, PalaceTableHand):
        board, pots = "", ()
    elif isinstance(hand, DiceTableHand):
        board, pots = "", ()
    else:
        board, pots = _text(hand.board), hand.pots
    summary: dict[str, Any] = {
        "id": state.hand_id,
        "number": state.hands_played,
        "round": hand.round,
        "over": hand.over,
        "board": board,
        "pots": [{"amount": pot.amount, "eligible": [names[s] for s in pot.eligible]} for pot in pots],
        "stacks": dict(zip(names, hand.stacks)),
    }
    if isinstance(hand, PalaceTableHand):
        summary["pots"] = [{"amount": hand.game.pot,
                            "eligible": [s.player for s in hand.game.seats if s.in_hand]}]
    return summary


def table_view(state: table.TableState, version: int, viewer: Viewer) -> dict[str, Any]:
    hand = state.hand
    in_hand = {table_seat: hand_seat for hand_seat, table_seat in enumerate(state.hand_seats)} if hand else {}
    stacks = state.live_stacks
    seats = []
    for seat, player in enumerate(state.players):
        hand_seat = in_hand.get(seat)
        seats.append({
            "seat": seat,
            "player_id": player,
            "stack": stacks[seat],
            "status": _seat_status(state, seat, hand_seat),
            "bet": _bet(state, hand_seat),
            "cards": _visible_hole(state, hand_seat, viewer) if hand_seat is not None else None,
            "sitting_out": state.sitting_out[seat],
        })
    return {
        "id": state.table_id,
        "version": version,
        "game": state.game,
        "settings": state.settings,
        "ranked": state.ranked,
        "action_clock_s": state.action_clock_s,
        "auto_deal": state.auto_deal,
        "clock": _clock_view(state.clock),
        "button": state.button,
        "hands_played": state.hands_played,
        "finished": state.finished,
        "cash": {"min_buy_in": state.min_buy_in, "max_buy_in": state.max_buy_in} if state.cash else None,
        "closing": state.closing,
        "seats": seats,
        "hand": hand_view(state, viewer) if hand is not None else None,
        "standings": _standings(state) if state.finished else None,
        "points": dict(zip(state.players, state.points)) if state.points and any(state.points) else None,
        "results": [{"player_id": r.player_id, "place": r.place, "outcome": r.outcome}
                    for r in state.results] if state.finished else None,
        "rotation": _rotation(state),
    }


def _rotation(state: table.TableState) -> dict[str, Any] | None:
    """A rotation table's current (or last) game and the next one; None at other tables."""
    adapter = _owns_views(state)
    if adapter is None or not hasattr(adapter, "rotation_view"):
        return None
    return adapter.rotation_view(state.hand, len(table.seats_dealt_in(state)))


def _bet(state: table.TableState, hand_seat: int | None) -> int:
    if hand_seat is None or not state.hand_in_progress:
        return 0
    betting = getattr(state.hand, "betting", None)
    if isinstance(state.hand, DrawTableHand) or _owns_views(state):
        betting = state.hand.game.betting
    return int(betting.bets[hand_seat]) if betting is not None else 0


def _clock_view(clock: table.ClockStarted | None) -> dict[str, Any] | None:
    """The running action clock: who must act by when (ms since the epoch)."""
    if clock is None:
        return None
    return {"player_id": clock.player_id, "seat": clock.seat, "deadline_at_ms": clock.deadline_at_ms}


def _seat_status(state: table.TableState, seat: int, hand_seat: int | None) -> str:
    if hand_seat is None or not state.hand_in_progress:
        return "out" if state.stacks[seat] == 0 and state.hand_seats else "waiting"
    hand = state.hand
    if (adapter := _owns_views(state)) is not None:
        return adapter.seat_status(hand, hand_seat)
    if isinstance(hand, PalaceTableHand):
        return "active" if hand.game.seats[hand_seat].in_hand else "folded"
    if isinstance(hand, DiceTableHand):
        return "active"
    betting = hand.game.betting if isinstance(hand, DrawTableHand) else hand.betting
    if betting is None:
        return "active"
    if betting.folded[hand_seat]:
        return "folded"
    if betting.stacks[hand_seat] == 0:
        return "all_in"
    return "active"


def _visible_hole(state: table.TableState, hand_seat: int, viewer: Viewer) -> str | None:
    hand = state.hand
    player = state.players[state.hand_seats[hand_seat]]
    if (adapter := _owns_views(state)) is not None:
        return adapter.hole_view(hand, hand_seat, player, viewer.sees_cards_of)
    if isinstance(hand, DrawTableHand):
        game = hand.game
        cards = game.hands[hand_seat]
        return _text(cards) if cards and (game.shown[hand_seat] or viewer.sees_cards_of(player)) else None
    if isinstance(hand, PalaceTableHand):
        palace_cards = hand.game.seats[hand_seat].palace
        return "".join(palace_cards) if palace_cards and viewer.sees_cards_of(player) else None
    if isinstance(hand, DiceTableHand):
        return None
    cards = hand.hole[hand_seat]
    if cards is None:
        return None
    player = state.players[state.hand_seats[hand_seat]]
    if hand.shown[hand_seat] or viewer.sees_cards_of(player):
        return _text(cards)
    return None


def hand_view(state: table.TableState, viewer: Viewer, *, secrets_revealed: bool | None = None) -> dict[str, Any]:
    """The hand as the viewer may see it. `secrets_revealed`: whether the hand is over now
    (defaults to this state's own view; a replay to an earlier version passes the truth)."""
    hand = state.hand
    names = [state.players[s] for s in state.hand_seats]
    over = hand.over
    to_act = hand.to_act
    revealed = over if secrets_revealed is None else secrets_revealed
    if (adapter := _owns_views(state)) is not None:
        return {"id": state.hand_id, "number": state.hands_played, "button": state.button,
                "players": names, "over": over, "to_act": names[to_act] if to_act is not None else None,
                **adapter.summary(hand, names),
                "hole": {names[s]: _visible_hole(state, s, viewer) for s in range(len(names))},
                "stacks": dict(zip(names, hand.stacks)), "deal": deal_view(state, viewer, revealed)}
    if isinstance(hand, (DrawTableHand, PalaceTableHand, DiceTableHand)):
        view = {"id": state.hand_id, "number": state.hands_played, "button": state.button,
                "players": names, "round": hand.round, "over": over,
                "to_act": names[to_act] if to_act is not None else None,
                "hole": {names[s]: _visible_hole(state, s, viewer) for s in range(len(names))},
                "stacks": dict(zip(names, hand.stacks))}
        if isinstance(hand, DrawTableHand):
            view.update(_draw_view(hand, names))
            if hand.game.settings.betting:
                view["showdown"] = _showdown_view(hand.game, names)
        elif isinstance(hand, PalaceTableHand):
            view.update(_palace_view(hand, names, viewer))
        else:
            view.update(_dice_view(hand, names))
        view["deal"] = deal_view(state, viewer, revealed)
        return view
    view = {
        "id": state.hand_id,
        "number": state.hands_played,
        "button": state.button,
        "players": names,
        "round": hand.round,
        "over": over,
        "to_act": names[to_act] if to_act is not None else None,
        "board": _text(hand.board),
        "pots": [{"amount": pot.amount, "eligible": [names[s] for s in pot.eligible]} for pot in hand.pots],
        "awards": [{"amount": a.amount, "winners": [names[s] for s in a.winners],
                    "shares": dict(zip((names[s] for s in a.winners), a.shares))} for a in hand.awards],
        "hole": {names[s]: _visible_hole(state, s, viewer) for s in range(len(names))},
        "stacks": dict(zip(names, hand.stacks)),
        "showdown": _showdown_view(hand, names),
        "deal": deal_view(state, viewer, over if secrets_revealed is None else secrets_revealed),
    }
    return view


def _showdown_view(hand: Any, names: list[str]) -> dict[str, Any]:
    """Who has shown and who mucked (public facts), and at a live showdown the order of show
    and who is next (TDA 2024 17)."""
    if isinstance(hand, draw.HandState):
        at_showdown, mode = hand.at_showdown or hand.showdown, hand.settings.showdown
    else:
        at_showdown, mode = hand.live and (hand.awaiting == "showdown" or hand.showdown), hand.showdown_mode
    to_show = hand.to_show
    return {"mode": mode,
            "order": [names[s] for s in hand.show_order] if at_showdown else None,
            "to_show": names[to_show] if to_show is not None else None,
            "shown": [names[s] for s, shown in enumerate(hand.shown) if shown],
            "mucked": [names[s] for s, mucked in enumerate(hand.mucked) if mucked]}


def deal_view(state: table.TableState, viewer: Viewer, revealed: bool) -> dict[str, Any]:
    """The provably fair deal: the commitment always; deck and salt once the hand is over
    (floor and admin at any time), with the check anyone can redo."""
    # Nobody, floor and admin included, sees the deck or the salt while the hand is live.
    hand = state.hand
    salt = state.salt if revealed else None
    if isinstance(hand, DrawTableHand):
        if state.deal_scheme == deal_commitment.SCHEME:
            return _per_card_draw_deal_view(state, hand, viewer, salt)
        return _draw_deal_view(state, hand, salt)
    if isinstance(hand, DiceTableHand):
        return {"commitment": state.commitment, "scheme": "sha256(<salt>:<five dice>) per roll",
                "roll_commitment": hand.game.commitment, "salt": salt, "deck": None, "verified": None}
    deck = (hand.deck if revealed else None) if hand is not None else None
    if deck == ():
        deck = None
    if state.deal_scheme == deal_commitment.SCHEME:
        return _per_card_deal_view(state, viewer, deck, salt)
    verified = None
    if deck is not None and salt is not None and state.commitment is not None:
        verified = verify_deck_commitment(parse_cards(deck), bytes.fromhex(salt), state.commitment)
    return {
        "commitment": state.commitment,
        "scheme": "sha256(<deck cards concatenated>|<salt hex>)",
        "deck": "".join(deck) if deck is not None else None,
        "salt": salt,
        "verified": verified,
    }


def _per_card_deal_view(state: table.TableState, viewer: Viewer, deck: tuple[str, ...] | None,
                        salt: str | None) -> dict[str, Any]:
    """A hand committed card by card: the root always; once the hand is over, the floor
    gets the deck and the secret (and the root recomputed), the others the openings of the
    cards they may see (the board, hands shown, their own), each checked against the root."""
    view: dict[str, Any] = {"commitment": state.commitment, "scheme": deal_commitment.SCHEME,
                            "deck": None, "salt": None, "openings": None, "verified": None}
    if deck is None or salt is None or state.commitment is None:
        return view
    secret = bytes.fromhex(salt)
    if viewer.sees_everything:
        return {**view, "deck": "".join(deck), "salt": salt,
                "verified": deal_commitment.deal_root(deck, secret) == state.commitment}
    position = {card: index for index, card in enumerate(deck)}
    hand = state.hand
    seen = [format_card(card) for card in hand.board]
    for hand_seat, cards in enumerate(hand.hole):
        player = state.players[state.hand_seats[hand_seat]]
        if cards is not None and (hand.shown[hand_seat] or viewer.sees_cards_of(player)):
            seen.extend(format_card(card) for card in cards)
    opened = deal_commitment.openings(deck, secret, sorted(position[card] for card in seen))
    return {**view, "openings": [{"position": o.position, "card": o.card, "salt": o.salt,
                                  "path": [list(step) for step in o.path]} for o in opened],
            "verified": all(deal_commitment.verify_opening(o, state.commitment) for o in opened)}


def _per_card_draw_deal_view(state: table.TableState, hand: DrawTableHand, viewer: Viewer,
                             salt: str | None) -> dict[str, Any]:
    """A draw hand committed card by card, one root per deal (each covering its deck, then
    its reshuffle order): once the hand is over, the floor gets every deck, reshuffle order
    and the secret, each root recomputed; the others the openings of the cards they were
    given (their own seat's) and of the cards tabled, each checked against its deal's root.
    `redeals` lists the later deals the same way."""
    deals = []
    secret = bytes.fromhex(salt) if salt is not None else None
    own = [position for seat, held in enumerate(hand.held)
           if viewer.sees_cards_of(state.players[state.hand_seats[seat]]) for _, position in held]
    seen = set(hand.tabled) | {position for position in own if position is not None}
    for deal in hand.deals:
        shown: dict[str, Any] = {"commitment": deal.commitment, "deck": None, "reshuffle_order": None,
                                 "openings": None, "verified": None}
        if secret is not None and deal.deck is not None and deal.commitment is not None:
            committed = deal.committed
            if viewer.sees_everything:
                shown.update(deck="".join(deal.deck), reshuffle_order="".join(deal.reshuffle_order or ()),
                             verified=deal_commitment.deal_root(committed, secret, deal.first) == deal.commitment)
            else:
                mine = sorted(p for p in seen if deal.first <= p < deal.first + len(committed))
                opened = deal_commitment.openings(committed, secret, mine, deal.first)
                shown.update(openings=[{"position": o.position, "card": o.card, "salt": o.salt,
                                        "path": [list(step) for step in o.path]} for o in opened],
                             verified=all(deal_commitment.verify_opening(o, deal.commitment) for o in opened))
        deals.append(shown)
    first = deals[0]
    return {**first, "commitment": state.commitment, "scheme": deal_commitment.SCHEME,
            "salt": salt if viewer.sees_everything else None, "redeals": deals[1:]}


def _draw_deal_view(state: table.TableState, hand: DrawTableHand, salt: str | None) -> dict[str, Any]:
    """Every deck of the hand (a redeal brings a new one, committed to with the same salt):
    draw hands dealt before the per-card commitment, whose decks were published whole."""
    decks = []
    for deal in hand.deals:
        deck, commitment = deal.deck, deal.commitment
        shown = deck if salt is not None else None
        verified = None
        if shown is not None and commitment is not None:
            verified = verify_deck_commitment(parse_cards(shown), bytes.fromhex(salt), commitment)  # type: ignore[arg-type]
        decks.append({"commitment": commitment, "deck": "".join(shown) if shown else None, "verified": verified})
    first = decks[0]
    return {"commitment": state.commitment, "scheme": "sha256(<deck cards concatenated>|<salt hex>)",
            "deck": first["deck"], "salt": salt, "verified": first["verified"], "redeals": decks[1:]}


def _draw_view(hand: DrawTableHand, names: list[str]) -> dict[str, Any]:
    game = hand.game
    return {
        "board": "",
        "pots": [{"amount": pot.amount, "eligible": [names[s] for s in pot.eligible]} for pot in game.pots],
        "awards": [{"amount": a.amount, "winners": [names[s] for s in a.winners],
                    "shares": dict(zip((names[s] for s in a.winners), a.shares))} for a in game.awards],
        "drawn": {names[s]: n for s, n in enumerate(game.drawn) if n is not None},
        "opener": names[game.opener] if game.opener is not None else None,
        "redeals": game.redeals,
        "points": dict(zip(names, game.points)) if not game.settings.betting else None,
    }


def _palace_view(hand: PalaceTableHand, names: list[str], viewer: Viewer) -> dict[str, Any]:
    game = hand.game
    battle = game.battle
    return {
        "pot": game.pot,
        "pots": [{"amount": game.pot, "eligible": [s.player for s in game.seats if s.in_hand]}],
        "seats": [{"player_id": seat.player, "in_hand": seat.in_hand, "stack": seat.stack,
                   "banner": seat.banner, "soldiers": list(seat.soldiers),
                   "palace": list(seat.palace) if viewer.sees_cards_of(seat.player) else
                   [palace.UNKNOWN_CARD] * len(seat.palace)} for seat in game.seats],
        "battle": None if battle is None else {"attacker": names[battle.attacker],
                                               "defender": names[battle.defender]},
        "draw_deck": len(game.draw_deck),
        "discard_pile": list(game.discard_pile),
    }


def _dice_view(hand: DiceTableHand, names: list[str]) -> dict[str, Any]:
    game = hand.game
    return {
        "dice": list(game.dice) if game.dice is not None else None,
        "rolls": game.rolls,
        "scorecards": {p: {line: card.score(line) for line in dice.LINES if not card.is_free(line)}
                       for p, card in zip(game.players, game.cards)},
        "totals": dict(zip(names, hand.points)),
        "results": [{"player_id": r.player, "grand_total": r.grand_total, "place": r.place,
                     "outcome": r.result} for r in game.results],
    }


def _standings(state: table.TableState) -> list[dict[str, Any]]:
    return [{"player_id": s.player_id, "place": s.place, "stack": s.stack}
            for s in table.standings(state)]


def _text(cards: Iterable[int]) -> str:
    return "".join(format_card(c) for c in cards)
