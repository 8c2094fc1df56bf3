"""Palace Poker's decider: `decide(state, command) -> list[Event]` (raises Violation), the
first dealer's draw, and the amounts and legal actions of the player to act (domain.games.palace).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.games.palace import (
    ANSWERING_RAISE,
    ATTACKER_WON,
    DEALING,
    DECK_SIZE,
    DEFENDER_WON,
    DEFENDING,
    DISCARDING,
    DOUBLE_KNOCKOUT,
    NOT_STARTED,
    OVER,
    RULE,
    SPLIT,
    TURN,
    AntesPosted,
    Attack,
    AttackerCalled,
    AttackerFolded,
    BannerDealt,
    BannerSetAside,
    BattleCardsShown,
    BattleDecided,
    BattleDeclared,
    Buy,
    Call,
    CardsCaptured,
    Command,
    DefenderCalled,
    DefenderFolded,
    DefenderRaised,
    Discard,
    DrawDeckReshuffled,
    Event,
    Fold,
    HandEnded,
    HandStarted,
    PalaceCardsDealt,
    PalaceCardsShown,
    PalaceDeckShuffled,
    PalaceHand,
    PlayerFolded,
    Raise,
    Seat,
    SetAsideBannersReshuffled,
    SoldierBought,
    SoldiersDiscarded,
    StartHand,
    Stay,
    Stayed,
    evolve,
)
from domain.games.palace_battles import HandStrength, Holding, hand_value, judge_battle
from domain.games.palace_interpretations import (
    ATTACK_ABOVE_MINIMUM,
    FIXED_LIMIT,
    FORCED_BATTLE_ALLOWS_FOLD,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PALACE_CARDS,
    SOLDIER_LIMIT,
    STRUCTURES,
    all_in_amount,
    ante_for,
    attack_minimum,
    attacker_call_amount,
    banner_group,
    defender_call_amount,
    fixed_limit_raise,
    forced_battle_applies,
    in_shuffled_order,
    no_limit_minimum_raise,
    odd_chip_order,
)
from domain.rules.betting import chips
from domain.rules.cards import JOKER, card_rank, format_card, parse_cards
from domain.rules.violations import Violation

# ---------------------------------------------------------------- the first dealer

def first_dealer(draws: Sequence[dict[str, str]]) -> str:
    """Seed: "The initial dealer is chosen by drawing cards. The player with the highest
    ranking card deals first. Since suits are not ranked, if two or more players tie they
    keep drawing until a dealer is determined."

    `draws` holds the rounds of the draw, each mapping player -> card drawn; after the
    first round only the players tied for the highest card draw. Raises
    Violation("draw_again") naming the tied players when the rounds given do not settle it.
    """
    contenders: set[str] | None = None
    for round_ in draws:
        if contenders is not None and set(round_) != contenders:
            raise Violation("illegal_action", f"only the tied players ({', '.join(sorted(contenders))}) "
                            "draw again", RULE, {"tied": sorted(contenders)})
        ranks = {player: card_rank(card) for player, card in zip(round_, parse_cards(list(round_.values())))}
        top = max(ranks.values())
        contenders = {player for player, rank in ranks.items() if rank == top}
        if len(contenders) == 1:
            return contenders.pop()
    if contenders is None:
        raise Violation("validation_error", "no cards were drawn for the first dealer")
    raise Violation("draw_again", f"{', '.join(sorted(contenders))} tie for the highest card: "
                    "they draw again", numbers={"tied": sorted(contenders)})


# ---------------------------------------------------------------- decide

def holding_of(seat: Seat) -> Holding:
    return Holding(seat.banner or "", seat.palace, seat.soldiers)


class _Story:
    """The events decided so far and the state they lead to, so that later rules in the
    same decision see the earlier facts."""

    def __init__(self, state: PalaceHand) -> None:
        self.state = state
        self.events: list[Event] = []

    def add(self, event: Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def decide(state: PalaceHand, command: Command) -> list[Event]:
    if isinstance(command, StartHand):
        if state.phase not in (NOT_STARTED, OVER):
            raise Violation("illegal_action", "a hand is already in progress", RULE)
        story = _Story(state)
        _deal(story, command)
        return story.events
    if state.phase in (NOT_STARTED, DEALING):
        raise Violation("illegal_action", "no hand is in progress: start one first", RULE)
    if state.phase == OVER:
        raise Violation("hand_over", "the hand is over", RULE)
    index = state.seat_of(command.player)
    if state.to_act != index:
        waiting = state.seats[state.to_act].player if state.to_act is not None else "nobody"
        raise Violation("not_your_turn", f"{command.player} may not act: {waiting} is to "
                        f"{_PHASE_WORDS[state.phase]}", RULE,
                        {"player": command.player, "to_act": waiting})
    story = _Story(state)
    _PHASE_RULES[state.phase](story, index, command)
    _settle(story)
    return story.events


_PHASE_WORDS = {
    TURN: "take a turn",
    DISCARDING: "discard down to five soldiers",
    DEFENDING: "answer the attack (fold, call or raise)",
    ANSWERING_RAISE: "answer the raise (call or fold)",
}


def _deal(story: _Story, command: StartHand) -> None:
    count = len(command.players)
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise Violation("illegal_action", f"Palace Poker takes {MIN_PLAYERS} to {MAX_PLAYERS} "
                        f"players, not {count}", RULE, {"players": count})
    if len(set(command.players)) != count:
        raise Violation("illegal_action", "a player may hold only one seat", RULE)
    if len(command.stacks) != count or any(stack < 0 for stack in command.stacks):
        raise Violation("illegal_action", "give one stack of zero or more chips per player", RULE)
    if not 0 <= command.dealer < count:
        raise Violation("illegal_action", f"the dealer must be a seat 0..{count - 1}", RULE)
    if command.structure not in STRUCTURES:
        raise Violation("illegal_action", f"structure must be one of {', '.join(STRUCTURES)}", RULE)
    if command.small_bet <= 0 or command.big_bet < command.small_bet:
        raise Violation("illegal_action", f"the small bet ({chips(command.small_bet)}) must be positive "
                        f"and the big bet ({chips(command.big_bet)}) at least as large", RULE)
    deck = _full_deck(command.deck, "deck")
    palace_order = _full_deck(command.palace_order, "palace_order")

    ante = ante_for(command.small_bet)
    story.add(HandStarted(tuple(command.players), tuple(command.stacks), command.dealer,
                          command.small_bet, command.big_bet, command.structure, ante))
    deal_order = story.state.left
    players = tuple(story.state.seats[i].player for i in deal_order)
    antes = tuple(all_in_amount(ante, story.state.seats[i].stack) for i in deal_order)
    story.add(AntesPosted(players, antes))

    remaining = list(deck)
    set_aside: list[str] = []
    banners: list[str] = []
    for position, player in enumerate(players):
        group_suits = {banners[p][1] for p in range(position) if banner_group(p) == banner_group(position)}
        while True:
            if not remaining:
                reshuffle = _full_deck(command.banner_reshuffle_order, "banner_reshuffle_order",
                                       needed_for="the deck ran out while dealing banners")
                order = in_shuffled_order(set_aside, reshuffle)
                story.add(SetAsideBannersReshuffled(len(order), order))
                remaining, set_aside = list(order), []
            card = remaining.pop(0)
            if card[1] in group_suits:
                set_aside.append(card)
                story.add(BannerSetAside(player, card))
                continue
            banners.append(card)
            story.add(BannerDealt(player, card))
            break

    gathered = in_shuffled_order(remaining + set_aside, palace_order)
    story.add(PalaceDeckShuffled(len(gathered), gathered))
    for position, player in enumerate(players):
        cards = tuple(gathered[position + round_ * count] for round_ in range(PALACE_CARDS))
        story.add(PalaceCardsDealt(player, cards, visible_to=(player,)))


def _full_deck(cards: Sequence[str], name: str, needed_for: str = "") -> tuple[str, ...]:
    if not cards and needed_for:
        raise Violation("shuffle_order_required", f"{needed_for}: pass {name}, a random "
                        f"permutation of the 52 cards", numbers={"missing": name})
    parsed = parse_cards(cards)
    if len(parsed) != DECK_SIZE or JOKER in parsed:
        raise Violation("invalid_card", f"{name} must hold each of the 52 cards once, "
                        f"not {len(parsed)} cards", numbers={"field": name, "cards": len(parsed)})
    return tuple(format_card(card) for card in parsed)


def canonical_cards(cards: Sequence[str] | str) -> tuple[str, ...]:
    return tuple(format_card(card) for card in parse_cards(cards))


def _battle_forced(state: PalaceHand) -> bool:
    left = state.left
    return (forced_battle_applies(state.players_at_start, len(left))
            and len({state.seats[i].suit for i in left}) == 2)


def _turn(story: _Story, index: int, command: Command) -> None:
    state = story.state
    seat = state.seats[index]
    if isinstance(command, Attack):
        _attack(story, index, command)
        return
    if isinstance(command, (Call, Raise)):
        raise Violation("illegal_action", f"{seat.player} has no attack to answer: on a turn, "
                        "buy, discard, bet, stay or fold", RULE)
    if isinstance(command, Fold) and (FORCED_BATTLE_ALLOWS_FOLD or not _battle_forced(state)):
        story.add(PlayerFolded(seat.player))
        return
    if _battle_forced(state):
        other = next(state.seats[i].player for i in state.left if i != index)
        concede = " (or fold)" if FORCED_BATTLE_ALLOWS_FOLD else ""
        raise Violation("battle_required", f"only {seat.player} and {other} are left and their "
                        f"banners differ: {seat.player} must bet against {other}{concede}", RULE)
    if isinstance(command, Stay):
        story.add(Stayed(seat.player))
    elif isinstance(command, Discard):
        cards = canonical_cards(command.cards)
        if not cards:
            raise Violation("invalid_discard", "a discard turn discards one or more soldiers", RULE)
        _check_own_soldiers(seat, cards)
        story.add(SoldiersDiscarded(seat.player, cards))
    elif isinstance(command, Buy):
        _buy(story, index, command)
    else:
        raise TypeError(f"not a Palace Poker command: {command!r}")


def _buy(story: _Story, index: int, command: Buy) -> None:
    state = story.state
    seat = state.seats[index]
    if seat.stack < state.small_bet:
        raise Violation("exceeds_stack", f"buying costs one small bet ({chips(state.small_bet)}) and "
                        f"{seat.player} has {chips(seat.stack)}", RULE,
                        {"cost": state.small_bet, "stack": seat.stack})
    if not state.draw_deck:
        if not state.discard_pile:
            raise Violation("no_cards_to_buy", "the draw deck and the discard pile are both "
                            "empty: buying is no longer possible", RULE)
        permutation = _full_deck(command.reshuffle_order, "reshuffle_order",
                                 needed_for="the draw deck is empty and the discard pile must be shuffled")
        order = in_shuffled_order(state.discard_pile, permutation)
        story.add(DrawDeckReshuffled(len(order), order))
    story.add(SoldierBought(seat.player, state.small_bet, story.state.draw_deck[0]))


def _attack(story: _Story, index: int, command: Attack) -> None:
    state = story.state
    seat = state.seats[index]
    target = state.seat_of(command.defender)
    defender = state.seats[target]
    if target == index or not defender.in_hand:
        raise Violation("illegal_action", f"{seat.player} may attack only another player still "
                        f"in the hand, not {command.defender}", RULE)
    if defender.suit == seat.suit:
        raise Violation("same_banner_suit", f"{seat.player} ({seat.banner}) may not attack "
                        f"{defender.player} ({defender.banner}): their banners have the same suit",
                        RULE, {"attacker_banner": seat.banner, "defender_banner": defender.banner})
    minimum, required, most = attack_range(state, index)
    amount = required if command.to is None else command.to
    formula = f"({len(seat.soldiers)} soldiers + 1) x {chips(state.small_bet)}"
    numbers = {"to": amount, "minimum": minimum, "stack": seat.stack}
    if not ATTACK_ABOVE_MINIMUM[state.structure] and amount != required:
        raise Violation("wrong_fixed_amount", f"fixed-limit: the bet is {formula} = {chips(required)}, "
                        f"not {chips(amount)}", RULE, numbers)
    if amount < required:
        raise Violation("bet_below_minimum", f"a bet of {chips(amount)} is below the minimum {formula} "
                        f"= {chips(required)}", RULE, numbers)
    if amount > most:
        raise Violation("exceeds_stack", f"a bet of {chips(amount)} exceeds {seat.player}'s stack of "
                        f"{chips(seat.stack)}", RULE, numbers)
    story.add(BattleDeclared(seat.player, defender.player, amount, minimum))


def _check_own_soldiers(seat: Seat, cards: tuple[str, ...]) -> None:
    foreign = [card for card in cards if card not in seat.soldiers]
    if foreign:
        raise Violation("invalid_discard", f"{seat.player} can discard only their own soldiers "
                        f"({' '.join(seat.soldiers) or 'none'}), not {' '.join(foreign)}", RULE,
                        {"cards": foreign})


def _discarding(story: _Story, index: int, command: Command) -> None:
    seat = story.state.seats[index]
    if not isinstance(command, Discard):
        raise Violation("illegal_action", f"{seat.player} must first discard (any number, "
                        f"leaving at most {SOLDIER_LIMIT} soldiers)", RULE)
    cards = canonical_cards(command.cards)
    _check_own_soldiers(seat, cards)
    keeps = len(seat.soldiers) - len(cards)
    if keeps > SOLDIER_LIMIT:
        raise Violation("invalid_discard", f"{seat.player} holds {len(seat.soldiers)} soldiers "
                        f"and may keep at most {SOLDIER_LIMIT}: discard {keeps - SOLDIER_LIMIT} more",
                        RULE, {"soldiers": len(seat.soldiers), "discarding": len(cards)})
    story.add(SoldiersDiscarded(seat.player, cards))


def _defending(story: _Story, index: int, command: Command) -> None:
    state = story.state
    battle = state.battle
    assert battle is not None
    seat = state.seats[index]
    attacker = state.seats[battle.attacker]
    if isinstance(command, Fold):
        story.add(DefenderFolded(seat.player))
        story.add(CardsCaptured(attacker.player, seat.player, (seat.banner or "",) + seat.soldiers))
        return
    due, call, raise_range = defence_amounts(state)
    if isinstance(command, Call):
        story.add(DefenderCalled(seat.player, call))
        _fight(story)
        return
    if not isinstance(command, Raise):
        raise Violation("illegal_action", f"{seat.player} is attacked by {attacker.player}: "
                        "fold, call or raise", RULE)
    if raise_range is None:
        raise Violation("exceeds_stack", f"calling takes {seat.player}'s whole stack "
                        f"({chips(seat.stack)}): no chips are left to raise", RULE,
                        {"call": due, "stack": seat.stack})
    smallest, largest = raise_range
    to = smallest if command.to is None else command.to
    if state.structure == FIXED_LIMIT and to != smallest:
        raise Violation("wrong_fixed_amount", f"fixed-limit: the raise is to {chips(smallest)} "
                        f"(the call of {chips(due)} plus the fixed raise), not {chips(to)}", RULE,
                        {"to": to, "required": smallest})
    if to < smallest:
        raise Violation("raise_below_minimum", f"a raise to {chips(to)} is below the minimum "
                        f"{chips(smallest)}: the call of {chips(due)} plus one big bet ({chips(state.big_bet)})",
                        RULE, {"to": to, "minimum": smallest})
    if to > largest:
        raise Violation("exceeds_stack", f"a raise to {chips(to)} exceeds {seat.player}'s stack "
                        f"of {chips(seat.stack)}", RULE, {"to": to, "stack": seat.stack})
    story.add(DefenderRaised(seat.player, due, to - due))


def _answering_raise(story: _Story, index: int, command: Command) -> None:
    state = story.state
    battle = state.battle
    assert battle is not None
    seat = state.seats[index]
    defender = state.seats[battle.defender]
    if isinstance(command, Fold):
        story.add(AttackerFolded(seat.player))
        story.add(CardsCaptured(defender.player, seat.player, (seat.banner or "",) + seat.soldiers))
    elif isinstance(command, Call):
        story.add(AttackerCalled(seat.player, answering_raise_call(state)))
        _fight(story)
    else:
        raise Violation("illegal_action", f"{defender.player} raised: {seat.player} may only "
                        "call or fold", RULE)


_PHASE_RULES = {
    TURN: _turn,
    DISCARDING: _discarding,
    DEFENDING: _defending,
    ANSWERING_RAISE: _answering_raise,
}


def _fight(story: _Story) -> None:
    """Both sides are in: compare the hands and settle the battle."""
    state = story.state
    battle = state.battle
    assert battle is not None
    attacker, defender = state.seats[battle.attacker], state.seats[battle.defender]
    last_two = len(state.left) == 2
    judgement = judge_battle(holding_of(attacker), holding_of(defender))
    story.add(BattleCardsShown(attacker.player, defender.player, attacker.palace, defender.palace,
                               judgement.attacker, judgement.defender,
                               visible_to=(attacker.player, defender.player)))
    if judgement.winner == "attacker":
        winner, loser, outcome = attacker, defender, ATTACKER_WON
    elif judgement.winner == "defender":
        winner, loser, outcome = defender, attacker, DEFENDER_WON
    else:
        outcome = SPLIT if last_two else DOUBLE_KNOCKOUT
        story.add(BattleDecided(attacker.player, defender.player, outcome, None, judgement.reason))
        if outcome == SPLIT:
            _award(story, (battle.attacker, battle.defender), "battle_split")
        return
    story.add(BattleDecided(attacker.player, defender.player, outcome, winner.player,
                            judgement.reason))
    story.add(CardsCaptured(winner.player, loser.player, (loser.banner or "",) + loser.soldiers))


def _settle(story: _Story) -> None:
    """After every action: the hand ends with one player left, with only one banner suit
    left, or after a full round of quiet turns."""
    state = story.state
    if state.phase == OVER:
        return
    left = state.left
    if len(left) == 1:
        _award(story, left, "last_player")
    elif len({state.seats[i].suit for i in left}) == 1:
        _award(story, left, "same_banner_suit")
    elif state.phase == TURN and set(left) <= state.quiet:
        _showdown(story)


def _showdown(story: _Story) -> None:
    state = story.state
    values: dict[int, HandStrength] = {}
    for index in state.left:
        seat = state.seats[index]
        value = hand_value(seat.cards)
        values[index] = value
        story.add(PalaceCardsShown(seat.player, seat.palace, value.category, value.best))
    top = max(value.strength for value in values.values())
    _award(story, tuple(i for i, value in values.items() if value.strength == top), "showdown")


def _award(story: _Story, winner_seats: Sequence[int], reason: str) -> None:
    state = story.state
    order = odd_chip_order(winner_seats, state.dealer, len(state.seats))
    share, odd = divmod(state.pot, len(order))
    amounts = tuple(share + (1 if position < odd else 0) for position in range(len(order)))
    stacks = [seat.stack for seat in state.seats]
    for index, amount in zip(order, amounts):
        stacks[index] += amount
    story.add(HandEnded(reason, tuple(state.seats[i].player for i in order), amounts, tuple(stacks)))


# ---------------------------------------------------------------- amounts and legal actions

def attack_range(state: PalaceHand, index: int) -> tuple[int, int, int]:
    """(the formula minimum, the least the attacker may put in, the most): a short stack
    attacks all in; fixed-limit bets exactly the minimum."""
    seat = state.seats[index]
    minimum = attack_minimum(len(seat.soldiers), state.small_bet)
    required = all_in_amount(minimum, seat.stack)
    most = seat.stack if ATTACK_ABOVE_MINIMUM[state.structure] else required
    return minimum, required, most


def defence_amounts(state: PalaceHand) -> tuple[int, int, tuple[int, int] | None]:
    """For the defender of the current battle: (what the rules ask to call, what they
    actually put in to call, (least, most) total for a raise or None when they cannot)."""
    battle = state.battle
    assert battle is not None
    seat = state.seats[battle.defender]
    due = defender_call_amount(len(seat.soldiers), state.small_bet, battle.attacker_excess)
    call = all_in_amount(due, seat.stack)
    if seat.stack <= due:
        return due, call, None
    if state.structure == FIXED_LIMIT:
        fixed = due + fixed_limit_raise(len(seat.soldiers), state.small_bet, state.big_bet)
        return due, call, (all_in_amount(fixed, seat.stack), all_in_amount(fixed, seat.stack))
    smallest = due + no_limit_minimum_raise(state.big_bet)
    return due, call, (all_in_amount(smallest, seat.stack), seat.stack)


def answering_raise_call(state: PalaceHand) -> int:
    """What the attacker adds to call the defender's raise."""
    assert state.battle is not None
    seat = state.seats[state.battle.attacker]
    return all_in_amount(attacker_call_amount(state.battle.raise_by), seat.stack)


def legal_actions(state: PalaceHand) -> dict[str, Any]:
    """What the player to act may do now, as the API's `legal` shape for Palace Poker:
    each action maps to its amounts, or None when it is not allowed."""
    if state.to_act is None or state.phase not in _PHASE_RULES:
        return {"to_act": None, "phase": state.phase, "legal": {}}
    index = state.to_act
    seat = state.seats[index]
    legal: dict[str, Any]
    if state.phase == TURN:
        forced = _battle_forced(state)
        targets = [state.seats[i].player for i in state.left
                   if i != index and state.seats[i].suit != seat.suit]
        _, least, most = attack_range(state, index)
        can_buy = seat.stack >= state.small_bet and bool(state.draw_deck or state.discard_pile)
        legal = {
            "buy": None if forced or not can_buy else
            {"cost": state.small_bet, "needs_reshuffle": not state.draw_deck},
            "discard": None if forced or not seat.soldiers else
            {"min_cards": 1, "from": seat.soldiers},
            "attack": {"targets": targets, "min_to": least, "max_to": most} if targets else None,
            "stay": not forced,
            "fold": FORCED_BATTLE_ALLOWS_FOLD or not forced,
        }
    elif state.phase == DISCARDING:
        legal = {"discard": {"min_cards": max(0, len(seat.soldiers) - SOLDIER_LIMIT),
                             "from": seat.soldiers}}
    elif state.phase == DEFENDING:
        _, call, raise_range = defence_amounts(state)
        legal = {"fold": True, "call": {"adds": call},
                 "raise": None if raise_range is None else
                 {"min_to": raise_range[0], "max_to": raise_range[1]}}
    else:
        assert state.battle is not None
        legal = {"fold": True, "call": {"adds": answering_raise_call(state)}}
    return {"to_act": seat.player, "phase": state.phase, "legal": legal}


