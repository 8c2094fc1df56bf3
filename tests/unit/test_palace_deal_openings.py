"""Palace Poker's deal committed card by card (service.md "Provably fair deals, without
exposing mucked cards"): after the hand each player gets the openings of the cards they
saw, each checked against the root in HandOpened, and never a palace that stayed face
down for them; the floor gets every order and recomputes the root."""
from __future__ import annotations

import random

from domain.games import palace
from domain.games.palace_interpretations import in_shuffled_order
from domain.live import table
from domain.live.games import (
    DECK_HASH, FIRST_RESHUFFLE, PALACE_DECK, DealSeal, PalaceDeckCut, PalaceGame, PalaceReshuffleCommitted,
    PalaceTableHand, Viewing,
)
from domain.records import from_record
from domain.rules import deal_commitment
from domain.rules.cards import deck_commitment, deck_texts, parse_cards
from service.application.views import Viewer, deal_view, legal_actions_view
from tests.unit.test_table_games import SeededDraws, _create, _deal

PLAYERS = ("p0", "p1", "p2")


def _opened_hand(seed: int) -> tuple[table.TableState, SeededDraws]:
    draws = SeededDraws(seed)
    state = _create("palace", {"small_bet": 10, "big_bet": 20}, (1000, 1000, 1000))
    return table.handle(state, _deal(draws), 0, draws)[1], draws


def _act(state: table.TableState, draws: SeededDraws, action: str, **given: object) -> table.TableState:
    return _acted(state, draws, action, **given)[1]


def _acted(state: table.TableState, draws: SeededDraws, action: str,
           **given: object) -> tuple[list, table.TableState]:
    player = legal_actions_view(state)["to_act"]
    return table.handle(state, table.Act(player, action, **given), 0, draws)  # type: ignore[arg-type]


def _fold_to_the_end(state: table.TableState, draws: SeededDraws) -> table.TableState:
    """Whoever is to act folds (a winner first discards nothing), until the hand is over."""
    while state.hand_in_progress:
        legal = legal_actions_view(state)["legal"]
        state = _act(state, draws, "discard", discard=()) if legal["phase"] == "discarding" else _act(state, draws, "fold")
    return state


def _battle(seed: int) -> tuple[table.TableState, str, str, str]:
    """The first to act attacks a player of another banner suit, who calls; then the others
    fold. (attacker, defender, the player who saw no battle)."""
    state, draws = _opened_hand(seed)
    legal = legal_actions_view(state)
    attacker, defender = legal["to_act"], legal["legal"]["attack"]["targets"][0]
    state = _act(state, draws, "attack", defender=defender)
    state = _act(state, draws, "call")
    onlooker = next(p for p in PLAYERS if p not in (attacker, defender))
    return _fold_to_the_end(state, draws), attacker, defender, onlooker


def _openings(state: table.TableState, player: str) -> dict:
    return deal_view(state, Viewer("player", player), True)


def _palace_of(state: table.TableState, player: str) -> set[int]:
    """The committed positions of `player`'s palace cards. Positions, not cards: a banner
    set aside face up may come back in a palace, and its opening as a set-aside banner is
    no secret."""
    hand = state.hand
    assert isinstance(hand, PalaceTableHand)
    return {position for position, audience in hand.seen if audience == (player,)}


def _positions(shown: dict) -> set[int]:
    return {opening["position"] for opening in shown["openings"]}


def test_palace_hands_are_committed_card_by_card_before_the_first_action():
    state, _ = _opened_hand(1)
    hand = state.hand
    assert isinstance(hand, PalaceTableHand)
    assert state.deal_scheme == deal_commitment.SCHEME
    assert state.commitment == deal_commitment.deal_root(hand.cut.committed, bytes.fromhex(state.salt))
    # Nothing is opened while the hand is played, not even to its own player.
    assert deal_view(state, Viewer("player", "p0"), False)["openings"] is None


def test_each_player_gets_their_own_cards_and_the_public_ones_each_proven_against_the_root():
    for seed in range(6):
        state, attacker, defender, onlooker = _battle(seed)
        hand = state.hand
        assert isinstance(hand, PalaceTableHand)
        public = _public(hand)  # banners, soldiers bought
        for player in PLAYERS:
            shown = _openings(state, player)
            assert shown["verified"] is True and shown["deck"] is None and shown["salt"] is None
            for opening in shown["openings"]:
                proof = deal_commitment.Opening(opening["position"], opening["card"], opening["salt"],
                                                tuple(tuple(step) for step in opening["path"]))  # type: ignore[misc]
                assert deal_commitment.verify_opening(proof, state.commitment)
            assert _palace_of(state, player) | public <= _positions(shown)
        # Attacker and defender saw each other's palace in the battle; the third player saw
        # neither, whoever lost.
        assert _palace_of(state, defender) <= _positions(_openings(state, attacker))
        assert _palace_of(state, attacker) <= _positions(_openings(state, defender))
        onlooker = _positions(_openings(state, onlooker))
        assert not onlooker & (_palace_of(state, attacker) | _palace_of(state, defender)), seed


def _public(hand: PalaceTableHand) -> set[int]:
    return {position for position, audience in hand.seen if audience is None}


def test_a_folded_palace_is_opened_to_nobody_but_its_owner():
    state, draws = _opened_hand(7)
    folder = legal_actions_view(state)["to_act"]
    state = _fold_to_the_end(_act(state, draws, "fold"), draws)
    folded = _palace_of(state, folder)
    assert len(folded) == 3
    for player in PLAYERS:
        opened = _positions(_openings(state, player))
        assert (folded <= opened) if player == folder else not (folded & opened)
    spectator = deal_view(state, Viewer("spectator"), True)
    assert spectator["verified"] is True and not _positions(spectator) & folded


def test_the_floor_gets_every_order_and_the_root_recomputed():
    state, *_ = _battle(2)
    floor = deal_view(state, Viewer("floor"), True)
    hand = state.hand
    assert isinstance(hand, PalaceTableHand)
    assert floor["verified"] is True and floor["salt"] == state.salt and floor["openings"] is None
    orders = [floor[name] for name in ("deck", "banner_reshuffle_order", "palace_order", "reshuffle_order")]
    assert tuple(card for order in orders for card in _cards(order)) == hand.cut.committed
    tampered = DealSeal(deal_commitment.deal_root(hand.cut.committed[::-1], bytes.fromhex(state.salt)),
                        deal_commitment.SCHEME, state.salt)
    assert PalaceGame.deal_view(hand, list(PLAYERS), tampered, True, Viewing(lambda _: True, True))["verified"] is False


def _cards(text: str) -> list[str]:
    return [text[i:i + 2] for i in range(0, len(text), 2)]


def _buy_until_the_draw_deck_runs_dry(state: table.TableState, draws: SeededDraws) -> table.TableState:
    """Everyone buys and throws every soldier away, until the draw deck is empty."""
    while state.hand.game.draw_deck:
        state = _act(state, draws, "buy")
        game = state.hand.game
        state = _act(state, draws, "discard", discard=game.seats[game.to_act].soldiers)
    return state


def test_every_reshuffle_takes_an_order_committed_before_and_its_soldiers_are_opened():
    state, draws = _opened_hand(3)
    bought, piles = [], []
    for reshuffle in range(2):
        state = _buy_until_the_draw_deck_runs_dry(state, draws)
        hand = state.hand
        assert isinstance(hand, PalaceTableHand)
        committed = hand.order_at(hand.next_reshuffle)  # the first before the deal, the next at the first
        assert committed and len(hand.reshuffles) == reshuffle
        pile = hand.game.discard_pile
        piles.append(len(pile))
        events, state = _acted(state, draws, "buy")
        assert [e.order for e in events if isinstance(e, palace.DrawDeckReshuffled)] == [
            in_shuffled_order(pile, committed)]
        soldier = next(e.card for e in events if isinstance(e, palace.SoldierBought))
        bought.append((state.hand.position(hand.next_reshuffle, soldier), soldier))
        # Using an order commits to the next one at once, numbered on.
        assert [e.first for e in events if isinstance(e, PalaceReshuffleCommitted)] == [
            hand.next_reshuffle + 52]
        game = state.hand.game
        state = _act(state, draws, "discard", discard=game.seats[game.to_act].soldiers)
    state = _fold_to_the_end(state, draws)
    assert bought[0][0] >= FIRST_RESHUFFLE and bought[1][0] >= FIRST_RESHUFFLE + 52
    for player in PLAYERS:
        shown = _openings(state, player)
        # Each bought soldier is opened where its reshuffle put it, under that order's root
        # (the first pile was bought whole before the second reshuffle); the rest of the
        # second pile, never dealt, is opened to nobody.
        assert shown["verified"] is True
        first = [(o["position"], o["card"]) for o in shown["openings"] if o["position"] >= FIRST_RESHUFFLE]
        assert bought[0] in first and len(first) == piles[0]
        later = shown["reshuffles"]
        assert [r["verified"] for r in later] == [True, True]
        assert [(o["position"], o["card"]) for o in later[0]["openings"]] == [bought[1]] and later[1]["openings"] == []
    floor = deal_view(state, Viewer("floor"), True)
    assert floor["verified"] is True and all(r["order"] and r["verified"] for r in floor["reshuffles"])


def test_a_hand_committed_whole_is_still_shown_and_checked_as_before():
    # A Palace hand stored before the card-by-card scheme: its cut holds the banner deck only.
    deck = SeededDraws(5).shuffled(deck_texts())
    salt = "ab" * 32
    cut = from_record(PalaceGame.EVENT_TYPES, "PalaceDeckCut", {"deck": list(deck)})
    assert cut == PalaceDeckCut(deck) and cut.committed == ()
    hand = PalaceTableHand(palace.INITIAL, cut)
    seal = DealSeal(deck_commitment(parse_cards(deck), bytes.fromhex(salt)), DECK_HASH, salt)
    shown = PalaceGame.deal_view(hand, list(PLAYERS), seal, True, Viewing(lambda _: False, False))
    assert shown["scheme"] == DECK_HASH and shown["deck"] == "".join(deck) and shown["verified"] is True


def test_random_hands_never_open_a_palace_to_a_player_it_was_not_shown_to():
    rng = random.Random(11)
    for seed in range(20):
        state, draws = _opened_hand(100 + seed)
        palaces = {seat.player: {state.hand.position(PALACE_DECK, card) for card in seat.palace}
                   for seat in state.hand.game.seats}
        saw: dict[str, set[int]] = {p: set(palaces[p]) for p in PLAYERS}  # palace positions each player saw
        for _ in range(300):
            if not state.hand_in_progress:
                break
            events, state = _random_move(state, draws, rng)
            for event in events:
                if isinstance(event, palace.BattleCardsShown):
                    for player in (event.attacker, event.defender):
                        saw[player] |= palaces[event.attacker] | palaces[event.defender]
                if isinstance(event, palace.PalaceCardsShown):  # the final showdown is public
                    for player in PLAYERS:
                        saw[player] |= palaces[event.player]
        state = _fold_to_the_end(state, draws)
        every_palace = set().union(*palaces.values())
        for player in PLAYERS:
            opened = _positions(_openings(state, player))
            assert (opened & every_palace) == saw[player], (seed, player)


def _random_move(state: table.TableState, draws: SeededDraws, rng: random.Random) -> tuple[list, table.TableState]:
    legal = legal_actions_view(state)["legal"]
    phase = legal["phase"]
    if phase == "discarding":
        soldiers = list(legal["discard"]["from"])
        count = rng.randint(legal["discard"]["min_cards"], len(soldiers))
        return _acted(state, draws, "discard", discard=tuple(rng.sample(soldiers, count)))
    if phase in ("defending", "answering_raise"):
        return _acted(state, draws, rng.choice(["call", "fold", "call"]))
    options = [name for name in ("buy", "attack", "stay") if legal.get(name)]
    choice = rng.choice(options) if options else "fold"
    if choice == "attack":
        return _acted(state, draws, "attack", defender=rng.choice(legal["attack"]["targets"]))
    return _acted(state, draws, choice)

