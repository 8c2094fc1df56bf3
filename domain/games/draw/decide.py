"""One hand of five-card draw as a decider: `decide(state, command) -> events` and
`handle(state, command) -> (events, state)`, the automatic follow-ups included; the
commands that start and deal a hand (StartHand, Redeal) and the betting's (PostAction,
OpenWithoutProof, FalseOpeners) are decided here, the draw's in domain.games.draw.drawing,
the showdown's in domain.games.draw.showdown (the rulings we chose: domain.games.draw).
"""
from __future__ import annotations

from domain.games.draw.commands import AskToSee, Command, Discard, FalseOpeners, Muck, OpenWithoutProof, Redeal, ShowCards, StartHand, check_deck
from domain.games.draw.drawing import draw
from domain.games.draw.events import AntesPosted, Event, FalseOpenersFound, HandStarted, HoleCardsDealt, Redealt
from domain.games.draw.follow_up import follow_up
from domain.games.draw.openers import false_openers_outcome, has_openers, needs_openers, opening_cards
from domain.games.draw.showdown import ask_to_see, show_or_muck
from domain.games.draw.state import FIRST_ROUND, HAND_SIZE, REDEAL, SECOND_ROUND, Hand, HandState, check_seat
from domain.games.draw.stream import evolve
from domain.games.draw_settings import JACKS_OR_BETTER, MAX_PLAYERS, MIN_PLAYERS, DrawSettings
from domain.games.draw_stub import dealt_round
from domain.games.hand_events import ActionTaken, PostAction
from domain.rules import betting as bet
from domain.rules.citations import cite
from domain.rules.pots import seats_from_left_of_button
from domain.rules.violations import Violation


def decide(state: HandState | None, command: Command) -> list[Event]:
    """The events a command causes, automatic follow-ups included (round closing, uncalled
    chips, the draw opening, settlement). Raises Violation when the command breaks a rule."""
    return handle(state, command)[0]


def handle(state: HandState | None, command: Command) -> tuple[list[Event], HandState]:
    """`decide` plus the state after its events."""
    if isinstance(command, StartHand):
        if state is not None:
            raise Violation("illegal_action", "this hand has already started")
        events = starting_events(command)
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
    while follow := follow_up(current):
        for event in follow:
            events.append(event)
            current = evolve(current, event)
    return events, current


def _decide_in_hand(state: HandState, command: Command) -> list[Event]:
    if isinstance(command, PostAction):
        return [_action(state, command)]
    if isinstance(command, Discard):
        return draw(state, command)
    if isinstance(command, Redeal):
        return redeal_events(state, command)
    if isinstance(command, OpenWithoutProof):
        return [_open_without_proof(state, command)]
    if isinstance(command, FalseOpeners):
        return [_false_openers(state, command)]
    if isinstance(command, (ShowCards, Muck)):
        return [show_or_muck(state, command)]
    if isinstance(command, AskToSee):
        return ask_to_see(state, command)
    raise Violation("illegal_action", f"unknown command {command!r}")


def starting_events(command: StartHand) -> list[Event]:
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
    deck = check_deck(settings, command.deck, "deck")
    reshuffle = check_deck(settings, command.reshuffle_order, "reshuffle_order") \
        if command.reshuffle_order is not None else None
    events: list[Event] = [HandStarted(players, whole,
                                       command.button, settings, deck, command.commitment,
                                       reshuffle, command.derived_redeals)]
    seats = seats_from_left_of_button(range(n), command.button, n)
    if settings.betting:
        events.append(AntesPosted(tuple(min(settings.ante, s) for s in whole)))
    events.extend(_deal(deck, seats))
    return events


def _deal(deck: tuple[str, ...], seats: tuple[int, ...]) -> list[Event]:
    """Five each, one card at a time round the table from the first seat in `seats`."""
    return [HoleCardsDealt(seat, cards) for seat, cards in dealt_round(deck, seats, HAND_SIZE)]


def redeal_events(state: Hand, command: Redeal) -> list[Event]:
    if state.phase != REDEAL:
        raise Violation("illegal_action", f"no redeal is due: the hand awaits the {state.awaiting}")
    deck = check_deck(state.settings, command.deck, "deck")
    reshuffle = check_deck(state.settings, command.reshuffle_order, "reshuffle_order") \
        if command.reshuffle_order is not None else None
    b = state.wagers
    contenders = set(b.contenders)
    ante = state.settings.ante
    amounts = tuple(min(ante, stack) if seat in contenders else 0
                    for seat, stack in enumerate(b.stacks))
    seats = seats_from_left_of_button(b.contenders, state.button, state.seat_count)
    return [Redealt(deck, command.commitment, reshuffle), AntesPosted(amounts), *_deal(deck, seats)]


def _action(state: HandState, command: PostAction) -> Event:
    if state.phase not in (FIRST_ROUND, SECOND_ROUND):
        raise Violation("not_your_turn", f"nobody is to bet: the hand awaits the {state.awaiting}",
                        numbers={"seat": command.position})
    check_seat(state, command.position)
    b = state.wagers
    to = bet.check_action(b, command.position, command.action, command.to)
    if command.action == "bet" and needs_openers(state) \
            and not has_openers(state.hands[command.position], state.settings.joker):
        raise Violation("no_openers",
                        f"{state.players[command.position]} cannot open: the first bet needs a pair "
                        f"of jacks or better (opening requirement 'jacks or better'); check or fold",
                        cite("five_card_draw"), {"seat": command.position})
    return ActionTaken(command.position, command.action, to, to - b.bets[command.position])


def _open_without_proof(state: HandState, command: OpenWithoutProof) -> Event:
    if not needs_openers(state) or state.phase != FIRST_ROUND:
        raise Violation("illegal_action", "only the opening bet under jacks or better is made without proof",
                        cite("false_openers"))
    check_seat(state, command.position)
    to = bet.check_action(state.wagers, command.position, "bet", command.to)
    return ActionTaken(command.position, "bet", to, to - state.wagers.bets[command.position])


def _false_openers(state: HandState, command: FalseOpeners) -> Event:
    seat = command.position
    check_seat(state, seat)
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
    return FalseOpenersFound(seat, false_openers_outcome(state.wagers, seat, state.acted_after_open))
