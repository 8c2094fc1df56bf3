"""Palace Poker's deal committed card by card (service.md "Provably fair deals, without
exposing mucked cards"): after the hand each player gets the openings of the cards they
saw, each checked against the root in HandOpened, and never a palace that stayed face
down for them; the floor gets every order and recomputes the root. Every order the hand
deals from is fixed before its first action, however often the draw deck is reshuffled."""
from __future__ import annotations

import hashlib
import hmac
import random

from domain.games import palace
from domain.games.palace_interpretations import in_shuffled_order
from domain.live import table, table_commands, table_events, table_state
from domain.live.games.common import DECK_HASH, DealSeal, Viewing
from domain.live.games.palace import PALACE_DECK, RESHUFFLE_KEYS, PalaceDeckCut, PalaceGame, PalaceReshuffleCommitted, PalaceTableHand
from domain.records import from_record
from domain.rules import deal_commitment
from domain.rules.betting import BettingStructure
from domain.rules.cards import deck_commitment, deck_texts, parse_cards
from service.adapters.store.memory import InMemoryEventStore
from service.application import commands
from service.application.sealing import REVEAL_CLOSED_HANDS
from service.application.views import Viewer, deal_view, legal_actions_view
from tests import applications
from tests.unit.test_table_games import SeededDraws, _create, _deal

PLAYERS = ("p0", "p1", "p2")


def _opened_hand(seed: int) -> tuple[table_state.TableState, SeededDraws]:
    draws = SeededDraws(seed)
    state = _create("palace", {"small_bet": 10, "big_bet": 20}, (1000, 1000, 1000))
    return table.handle(state, _deal(draws), 0, draws)[1], draws


def _act(state: table_state.TableState, draws: SeededDraws, action: str, **given: object) -> table_state.TableState:
    return _acted(state, draws, action, **given)[1]


def _acted(state: table_state.TableState, draws: SeededDraws, action: str,
           **given: object) -> tuple[list, table_state.TableState]:
    player = legal_actions_view(state)["to_act"]
    return table.handle(state, table_commands.Act(player, action, **given), 0, draws)  # type: ignore[arg-type]


def _fold_to_the_end(state: table_state.TableState, draws: SeededDraws) -> table_state.TableState:
    """Whoever is to act folds (a winner first discards nothing), until the hand is over."""
    while state.hand_in_progress:
        phase = legal_actions_view(state)["round"]
        state = _act(state, draws, "discard", discard=()) if phase == "discarding" else _act(state, draws, "fold")
    return state


def _battle(seed: int) -> tuple[table_state.TableState, str, str, str]:
    """The first to act attacks a player of another banner suit, who calls; then the others
    fold. (attacker, defender, the player who saw no battle)."""
    state, draws = _opened_hand(seed)
    legal = legal_actions_view(state)
    attacker, defender = legal["to_act"], legal["legal"]["attack"]["options"][0]["defender"]
    state = _act(state, draws, "attack", defender=defender)
    state = _act(state, draws, "call")
    onlooker = next(p for p in PLAYERS if p not in (attacker, defender))
    return _fold_to_the_end(state, draws), attacker, defender, onlooker


def _openings(state: table_state.TableState, player: str) -> dict:
    return deal_view(state, Viewer("player", player), True)


def _palace_of(state: table_state.TableState, player: str) -> set[int]:
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
    # Then one key per card, the canonical deck's cards in turn.
    assert floor["reshuffle_keys_at"] == RESHUFFLE_KEYS == 4 * 52
    assert tuple(card for order in orders for card in _cards(order)) + deck_texts() == hand.cut.committed
    tampered = DealSeal(deal_commitment.deal_root(hand.cut.committed[::-1], bytes.fromhex(state.salt)),
                        deal_commitment.SCHEME, state.salt)
    assert PalaceGame.deal_view(hand, list(PLAYERS), tampered, True, Viewing(lambda _: True, True))["verified"] is False


def _cards(text: str) -> list[str]:
    return [text[i:i + 2] for i in range(0, len(text), 2)]


class NoDraws:
    """Randomness refused: a hand must not draw any after its deal."""

    def shuffled(self, cards: tuple[str, ...]) -> tuple[str, ...]:
        raise AssertionError("an order was drawn mid-hand")

    def salt(self) -> str:
        raise AssertionError("a salt was drawn mid-hand")

    def die(self) -> int:
        raise AssertionError("a die was rolled in a card game")


def _reshuffle_often(state: table_state.TableState, reshuffles: int) -> tuple[list, table_state.TableState]:
    """Everyone buys, keeping up to five soldiers, and throws every soldier away once the
    draw deck is dry, so that after the first the draw deck is reshuffled every few buys;
    until `reshuffles` reshuffles, then everyone folds. Every action is taken with
    randomness refused. The events after the deal."""
    events: list = []
    while state.hand.reshuffled < reshuffles:
        more, state = _acted(state, NoDraws(), "buy")  # type: ignore[arg-type]
        events += more
        game = state.hand.game
        soldiers = game.seats[game.to_act].soldiers
        throw = soldiers if not game.draw_deck else soldiers[:max(0, len(soldiers) - 5)]
        more, state = _acted(state, NoDraws(), "discard", discard=throw)  # type: ignore[arg-type]
        events += more
    while state.hand_in_progress:
        phase = legal_actions_view(state)["round"]
        more, state = (_acted(state, NoDraws(), "discard", discard=()) if phase == "discarding"  # type: ignore[arg-type]
                       else _acted(state, NoDraws(), "fold"))  # type: ignore[arg-type]
        events += more
    return events, state


def _rank(secret: bytes, number: int, card: str) -> str:
    """A card's rank in the draw deck's `number`th reshuffle, from the canonical text in
    domain/rules/deal_commitment.py: its key is the leaf of `card` at RESHUFFLE_KEYS + its
    index in the canonical deck."""
    salt = hmac.digest(secret, f"cardroom-card-salt|{RESHUFFLE_KEYS + deck_texts().index(card)}".encode(), "sha256").hex()
    return hashlib.sha256(f"cardroom-rank|palace-reshuffle-{number}|{card}|{salt}".encode()).hexdigest()


def test_however_often_the_draw_deck_is_reshuffled_every_order_was_fixed_before_the_first_action():
    state, _ = _opened_hand(3)
    secret = bytes.fromhex(state.salt)
    cut = state.hand.cut
    piles = []
    before = state
    events, state = _reshuffle_often(state, 6)
    # No order was drawn after the deal (NoDraws) and none was committed after HandOpened.
    assert not [e for e in events if isinstance(e, (PalaceReshuffleCommitted, table_events.HandOpened))]
    replayed = before.hand
    for event in events:
        if isinstance(event, palace.DrawDeckReshuffled):
            piles.append(replayed.game.discard_pile)
            number = len(piles)
            permutation = cut.reshuffle_order if number == 1 else \
                tuple(sorted(deck_texts(), key=lambda card, n=number: _rank(secret, n, card)))
            assert event.order == in_shuffled_order(replayed.game.discard_pile, permutation)
        if type(event) in PalaceGame.EVENT_TYPES.values():
            replayed = PalaceGame.evolve(replayed, event)
    assert len(piles) == 6 and all(len(pile) > 1 for pile in piles)
    bought = [(e.card, n) for e, n in _with_reshuffle_number(events) if isinstance(e, palace.SoldierBought)]
    for viewer in [Viewer("player", p) for p in PLAYERS] + [Viewer("spectator")]:
        shown = deal_view(state, viewer, True)
        assert shown["verified"] is True and shown["salt"] is None
        # Every card opened against the one root HandOpened published.
        opened = {}
        for opening in shown["openings"]:
            proof = deal_commitment.Opening(opening["position"], opening["card"], opening["salt"],
                                            tuple(tuple(step) for step in opening["path"]))  # type: ignore[misc]
            assert deal_commitment.verify_opening(proof, state.commitment)
            opened[opening["position"]] = opening
        keys = {o["card"]: o for position, o in opened.items() if position >= RESHUFFLE_KEYS}
        for card, number in bought:
            if number >= 2:  # bought from a ranked reshuffle: opened at its card's key
                assert keys[card]["position"] == RESHUFFLE_KEYS + deck_texts().index(card)
        # Each ranked reshuffle's soldiers came off its top in rising rank.
        ranked = shown["reshuffles"]
        assert [r["reshuffle"] for r in ranked] == [2, 3, 4, 5, 6] and all(r["verified"] for r in ranked)
        for entry in ranked:
            dealt = _cards(entry["dealt"])
            assert dealt == [card for card, n in bought if n == entry["reshuffle"]]
            ranks = [hashlib.sha256(f"cardroom-rank|{entry['label']}|{card}|{keys[card]['salt']}".encode()).hexdigest()
                     for card in dealt]
            assert ranks == entry["ranks"] == sorted(ranks) and entry["order"] is None
    floor = deal_view(state, Viewer("floor"), True)
    assert floor["verified"] is True and all(r["verified"] for r in floor["reshuffles"])
    for entry in floor["reshuffles"]:
        assert tuple(_cards(entry["order"])) == tuple(sorted(
            deck_texts(), key=lambda card, n=entry["reshuffle"]: _rank(secret, n, card)))


def _with_reshuffle_number(events: list) -> list[tuple[object, int]]:
    """Each event with the number of draw deck reshuffles before it (its own included)."""
    number, numbered = 0, []
    for event in events:
        number += isinstance(event, palace.DrawDeckReshuffled)
        numbered.append((event, number))
    return numbered


def test_a_ranked_reshuffle_dealt_out_of_its_order_fails_the_check():
    state, _ = _opened_hand(3)
    _, state = _reshuffle_often(state, 3)
    hand = state.hand
    assert isinstance(hand, PalaceTableHand)
    number, first = next((n, card) for n, card in hand.ranked if sum(m == n for m, _ in hand.ranked) > 1)
    second = next(card for n, card in hand.ranked if n == number and card != first)
    swapped = tuple((n, second if card == first else first if card == second else card) for n, card in hand.ranked)
    seal = DealSeal(state.commitment, deal_commitment.SCHEME, state.salt)
    for everything in (True, False):
        viewing = Viewing(lambda _, sees=everything: sees, everything)
        assert PalaceGame.deal_view(hand, list(PLAYERS), seal, True, viewing)["verified"] is True
        tampered = PalaceGame.deal_view(PalaceTableHand(hand.game, hand.cut, hand.seen, hand.dealing_from,
                                                        reshuffled=hand.reshuffled, ranked=swapped),
                                        list(PLAYERS), seal, True, viewing)
        assert tampered["verified"] is False


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


def _random_move(state: table_state.TableState, draws: SeededDraws, rng: random.Random) -> tuple[list, table_state.TableState]:
    shown = legal_actions_view(state)
    legal, phase = shown["legal"], shown["round"]
    if phase == "discarding":
        soldiers = list(legal["discard"]["from"])
        count = rng.randint(legal["discard"]["min_cards"], len(soldiers))
        return _acted(state, draws, "discard", discard=tuple(rng.sample(soldiers, count)))
    if phase in ("defending", "answering_raise"):
        return _acted(state, draws, rng.choice(["call", "fold", "call"]))
    options = [name for name in ("buy", "attack", "stay") if legal.get(name)]
    choice = rng.choice(options) if options else "fold"
    if choice == "attack":
        return _acted(state, draws, "attack", **rng.choice(legal["attack"]["options"]))
    return _acted(state, draws, choice)



def test_a_stored_hand_that_reshuffles_again_and_again_reads_back_with_one_root():
    # Through the application layer on the memory store, shuffled by `secrets`: the events
    # as stored and read back (sealed orders revealed once the hand is closed).
    store = InMemoryEventStore()
    app = applications.of(store)
    table_id = "palace-reshuffles"
    commands.create_table(app, table_commands.CreateTable(table_id, "palace", {"small_bet": 10, "big_bet": 20},
                                                          BettingStructure(), tuple(table_commands.TableSeat(p, 1000) for p in PLAYERS)))
    commands.start_next_hand(app, table_id, None)
    while commands.load_table(app, table_id).state.hand.reshuffled < 4:
        for action in ("buy", "discard"):
            state = commands.load_table(app, table_id).state
            game = state.hand.game
            soldiers = game.seats[game.to_act].soldiers
            throw = soldiers if not game.draw_deck else soldiers[:max(0, len(soldiers) - 5)]
            commands.execute(app, table_id, None, table_commands.Act(state.to_act, action,
                                                             discard=throw if action == "discard" else None))
    while (state := commands.load_table(app, table_id).state).hand_in_progress:
        phase = legal_actions_view(state)["round"]
        move = ("discard", ()) if phase == "discarding" else ("fold", None)
        commands.execute(app, table_id, None, table_commands.Act(state.to_act, move[0], discard=move[1]))
    records = store.read_stream(commands.table_stream(table_id), reveal=REVEAL_CLOSED_HANDS)
    types = [r.type for r in records]
    assert types.count("HandOpened") == 1 and types.count("DrawDeckReshuffled") == 4
    assert "PalaceReshuffleCommitted" not in types
    cut = next(r for r in records if r.type == "PalaceDeckCut")
    assert cut.data["reshuffle_keys"] is True and cut.data["palace_order"] is None  # sealed, floor-only
    state = commands.load_table(app, table_id).state
    for player in PLAYERS:
        shown = deal_view(state, Viewer("player", player), True)
        assert shown["verified"] is True and [r["reshuffle"] for r in shown["reshuffles"]] == [2, 3, 4]
        assert all(deal_commitment.verify_opening(deal_commitment.Opening(
            o["position"], o["card"], o["salt"], tuple(tuple(step) for step in o["path"])), state.commitment)
            for o in shown["openings"])
    assert deal_view(state, Viewer("floor"), True)["verified"] is True
