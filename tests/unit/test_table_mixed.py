"""Stud, razz, stud hi-lo, Omaha hi-lo and 2-7 triple draw at a live table (domain.live.table
with domain.live.mixed): the dealer deals from a stacked deck, the rule books' stud and
draw rules hold at the table, and each role sees what it may."""
from __future__ import annotations

import random

import pytest

from domain import secrecy
from domain.games import draw_family, mixed
from domain.live import table, table_commands, table_state
from domain.live.games.common import DECK_HASH, DealSeal, Viewing
from domain.live.mixed import DiscardsReshuffled, MixedDeckCut, MixedTableGame, legal, reshuffle_label
from domain.rules import deal_commitment
from domain.rules.betting import BettingStructure
from domain.rules.cards import deck_commitment, deck_texts, format_card, parse_cards
from domain.rules.violations import Violation
from service.application import views
from tests.unit.test_table_games import SeededDraws

SALT = "ab" * 32
STUD = {"small_bet": 10, "big_bet": 20, "ante": 1, "bring_in": 3}
FLOP = {"small_bet": 10}


def stacked(*cards: str) -> tuple[str, ...]:
    """A deck whose top cards are `cards` (in dealing order), the rest after them."""
    top = [group[i:i + 2] for group in cards for i in range(0, len(group), 2)]
    rest = [c for c in deck_texts() if c not in top]
    assert len(set(top)) == len(top)
    return tuple(top + rest)


def create(game: str, settings: dict, players: int = 3, stack: int = 500) -> table_state.TableState:
    seats = tuple(table_commands.TableSeat(f"p{i}", stack) for i in range(players))
    return table.handle(None, table_commands.CreateTable("t", game, settings, BettingStructure(), seats))[1]


def deal(state: table_state.TableState, deck: tuple[str, ...], draws: SeededDraws | None = None):
    draws = draws or SeededDraws(0)
    return table.handle(state, table_commands.StartNextHand(deck, SALT), 0, draws)


def act(state: table_state.TableState, action: str, to: int | None = None, discard=None, draws=None):
    return table.handle(state, table_commands.Act(state.to_act, action, to, discard), 0, draws or SeededDraws(0))


def passive(state: table_state.TableState, draws: SeededDraws | None = None) -> tuple[list, table_state.TableState]:
    """Everyone posts the bring-in, checks or calls, and stands pat, to the end."""
    events: list = []
    while state.hand_in_progress:
        options = legal(state.hand)
        if options.get("discard"):
            more, state = act(state, "discard", discard=(), draws=draws)
        elif options.get("bring_in"):
            more, state = act(state, "bring_in", draws=draws)
        else:
            more, state = act(state, "check" if options["check"] else "call", draws=draws)
        events += more
    return events, state


# ------------------------------------------------------------------------- stud


def test_stud_the_lowest_up_card_brings_it_in_clubs_below_diamonds() -> None:
    # Button seat 0: seat 1 is dealt first. Up cards: p1 2d, p2 2c, p0 Ks.
    state = create("stud", STUD)
    _, state = deal(state, stacked("AhAd2d", "KhKd2c", "QhQdKs"))
    assert state.to_act == "p2"
    assert legal(state.hand)["bring_in"] == {"to": 3} and legal(state.hand)["check"] is False


def test_razz_the_highest_up_card_brings_it_in_the_king_highest() -> None:
    state = create("razz", STUD)
    _, state = deal(state, stacked("Ah2h3d", "4h5hKs", "6h7dKc"))
    assert state.to_act == "p2"  # spades above clubs on equal kings


def test_razz_later_streets_are_opened_by_the_lowest_hand_showing() -> None:
    state = create("razz", STUD)
    # Up cards after fourth street: p1 3d-4c, p2 Ks-2c, p0 Kc-Qd; p2 (the king) brings it in.
    _, state = deal(state, stacked("Ah2h3d", "4h5hKs", "6h7dKc", "4c", "2c", "Qd"))
    assert state.to_act == "p2"
    state = _call_round(state)
    assert state.hand.round == "fourth_street" and state.to_act == "p1"  # 4-3 low showing


def test_stud_completing_the_bring_in_is_a_raise_to_the_small_bet() -> None:
    state = create("stud", STUD)
    _, state = deal(state, stacked("AhAd2d", "KhKd2c", "QhQdKs"))
    _, state = act(state, "bring_in")
    assert legal(state.hand)["raise"] == {"min_to": 10, "max_to": 10}
    _, state = act(state, "raise", 10)
    assert state.hand.game.betting.highest == 10


def test_stud_fourth_street_is_opened_by_the_best_hand_showing_and_an_open_pair_may_bet_big() -> None:
    # Robert's Rules of Poker, seven-card stud 4: the open pair's option of the big bet.
    state = create("stud", STUD)
    _, state = deal(state, stacked("AhAd2d", "KhKd2c", "QhQd9s", "3c", "4d", "9c"))
    state = _call_round(state)
    assert state.hand.round == "fourth_street" and state.to_act == "p0"  # nines showing
    assert legal(state.hand)["bet"] == {"min_to": 10, "max_to": 10, "open_pair_to": 20}
    _, state = act(state, "bet", 20)
    assert legal(state.hand)["raise"]["min_to"] == 40


def test_stud_the_big_bet_from_fifth_street() -> None:
    state = create("stud", STUD)
    _, state = deal(state, stacked("AhAd2d", "KhKd2c", "QhQd9s", "3c", "4d", "8c", "5c", "6d", "Tc"))
    state = _call_round(state)
    state = _call_round(state)
    assert state.hand.round == "fifth_street"
    assert legal(state.hand)["bet"] == {"min_to": 20, "max_to": 20}


def _call_round(state: table_state.TableState) -> table_state.TableState:
    street = state.hand.game.street
    while state.hand_in_progress and state.hand.game.street == street:
        options = legal(state.hand)
        action = "bring_in" if options.get("bring_in") else "check" if options["check"] else "call"
        _, state = act(state, action)
    return state


def test_stud_eight_players_to_seventh_street_share_a_common_card() -> None:
    # Robert's Rules of Poker, seven-card stud: with too few cards for everyone's
    # seventh, one common card is turned face up in the middle.
    state = create("stud", STUD, players=8)
    events, state = deal(state, tuple(deck_texts()))
    more, state = passive(state)
    events += more
    common = [e for e in events if isinstance(e, mixed.BoardDealt)]
    assert len(common) == 1 and len(common[0].cards) == 2
    assert all(len(hole) == 6 for hole in state.hand.game.hole)  # six each, the seventh shared
    assert state.hand.game.showdown and sum(state.stacks) == 8 * 500


def test_stud_hi_lo_splits_the_pot_between_the_high_and_the_eight_low() -> None:
    state = create("stud_hi_lo", STUD, players=2)
    # Heads-up, button seat 0: seat 1 first. p1: a wheel-ish low; p0: trip kings.
    deck = stacked("Ah2d3c", "KhKdKc", "4d", "Qs", "6s", "Js", "9h", "Ts", "Jd", "2s")
    _, state = deal(state, deck)
    _, state = passive(state)
    awards = state.hand.game.awards
    assert [a.winners for a in awards] == [(0,), (1,)]  # the high half, then the low half
    assert state.stacks[0] == state.stacks[1]


# ------------------------------------------------------------------- Omaha hi-lo


def test_omaha_hi_lo_posts_the_blinds_and_splits_high_and_low() -> None:
    state = create("omaha_hi_lo", FLOP, players=2)
    # Heads-up: the button (p0) posts the small blind and acts first before the flop.
    _, state = deal(state, stacked("As2dKcKd", "QsQdJc9c", "3h4c8s", "Qh", "Jd"))
    assert state.to_act == "p0" and state.hand.game.betting.bets == (5, 10)
    _, state = passive(state)
    assert [a.winners for a in state.hand.game.awards] == [(0,), (1,)]
    assert state.stacks == (500, 500)


# ------------------------------------------------------------------ 2-7 triple draw


def test_triple_draw_replacements_come_from_the_stub_and_a_short_stub_takes_the_discards() -> None:
    # Robert's Rules of Poker, draw poker: the discards (not the drawing player's own) are
    # shuffled and dealt from once the stub runs out.
    state = create("deuce_seven_triple_draw", FLOP, players=6)
    draws = SeededDraws(4)
    events, state = deal(state, tuple(deck_texts()), draws)
    while not any(isinstance(e, DiscardsReshuffled) for e in events):
        options = legal(state.hand)
        if options.get("discard"):
            seat = state.position_of(state.to_act)
            hole = tuple(format_card(c) for c in state.hand.game.hole[seat])
            more, state = act(state, "discard", discard=hole, draws=draws)
        else:
            more, state = act(state, "check" if options["check"] else "call", draws=draws)
        events += more
    reshuffle = next(e for e in events if isinstance(e, DiscardsReshuffled))
    last_thrown = [e for e in events if isinstance(e, draw_family.CardsDiscarded)][-1]
    assert len(reshuffle.order) == 20 and not set(reshuffle.order) & set(_pairs(last_thrown.cards))
    held = [c for hole in state.hand.game.hole for c in hole]
    assert len(held) == len(set(held)) == 30
    # The order is the one the hand's secret fixed, committed on its own root numbered on
    # from the deck, before a card of it is dealt.
    secret = bytes.fromhex(SALT)
    assert reshuffle.order == deal_commitment.derived_order(reshuffle.order, secret, reshuffle_label(1))
    assert reshuffle.commitment == deal_commitment.deal_root(reshuffle.order, secret, 52)
    _, state = passive(state, draws)
    assert sum(state.stacks) == 6 * 500
    audited = views.deal_view(state, views.Viewer("floor"), revealed=True)
    assert audited["verified"] is True and audited["reshuffles"][0]["verified"] is True
    assert audited["reshuffles"][0]["order"] == "".join(reshuffle.order)
    # The player who drew from it opens their cards against its root; nobody else gets its order.
    drawer = state.players[state.hand_seats[last_thrown.position]]
    given = [e for e in events if isinstance(e, mixed.CardsDealt) and e.position == last_thrown.position][-1]
    own = views.deal_view(state, views.Viewer("player", drawer), revealed=True)["reshuffles"][0]
    assert own["order"] is None and own["verified"] is True
    assert {o["card"] for o in own["openings"]} <= set(reshuffle.order)
    assert all(deal_commitment.verify_opening(_opening(o), own["commitment"]) for o in own["openings"])
    assert {o["card"] for o in own["openings"]} == set(_pairs(given.cards)) & set(reshuffle.order)


def _pairs(cards: str) -> list[str]:
    return [cards[i:i + 2] for i in range(0, len(cards), 2)]


def test_triple_draw_discarding_out_of_turn_or_in_stud_is_refused() -> None:
    state = create("stud", STUD)
    _, state = deal(state, tuple(deck_texts()))
    with pytest.raises(Violation) as refused:
        act(state, "discard", discard=())
    assert refused.value.code == "illegal_action"


def test_a_table_seats_at_most_eight_for_stud_and_six_for_triple_draw() -> None:
    for game, most in (("stud", 8), ("deuce_seven_triple_draw", 6)):
        with pytest.raises(Violation) as refused:
            create(game, STUD if game == "stud" else FLOP, players=most + 1)
        assert refused.value.numbers["max_seats"] == most


def test_stud_settings_refuse_blinds_and_a_bring_in_at_the_small_bet() -> None:
    for settings in ({"small_bet": 10, "big_blind": 10}, {"small_bet": 10, "bring_in": 10}):
        with pytest.raises(Violation) as refused:
            create("stud", settings)
        assert refused.value.code == "invalid_settings"
    with pytest.raises(Violation):
        create("omaha_hi_lo", {"small_bet": 10, "bring_in": 2})


# ----------------------------------------------------------------------- redaction


def test_each_role_sees_the_up_cards_and_only_its_own_down_cards() -> None:
    state = create("stud", STUD)
    events, state = deal(state, stacked("AhAd2d", "KhKd2c", "QhQdKs"))
    spectator = views.table_view(state, 1, views.Viewer("spectator"))
    player = views.table_view(state, 1, views.Viewer("player", "p1"))
    floor = views.table_view(state, 1, views.Viewer("floor"))
    assert [s["cards"] for s in spectator["seats"]] == ["????Ks", "????2d", "????2c"]
    assert [s["cards"] for s in player["seats"]] == ["????Ks", "AhAd2d", "????2c"]
    assert [s["cards"] for s in floor["seats"]] == ["QhQdKs", "AhAd2d", "KhKd2c"]
    assert spectator["hand"]["deal"]["deck"] is None and floor["hand"]["deal"]["deck"] is None


def test_a_private_event_shows_others_the_up_cards_and_the_count_of_a_draw() -> None:
    dealt = {"version": 3, "type": "CardsDealt", "data": {"seat": 0, "cards": "AhAd2d", "up": [False, False, True]},
             "metadata": {"hand_id": "t.1", "visible_to": "p1"}}
    thrown = {"version": 9, "type": "CardsDiscarded", "data": {"seat": 0, "cards": "AhAd"},
              "metadata": {"hand_id": "t.1", "visible_to": "p1"}}
    assert views.redact_event(dealt, views.Viewer("spectator"))["data"]["cards"] == "????2d"
    assert views.redact_event(dealt, views.Viewer("player", "p1"))["data"]["cards"] == "AhAd2d"
    assert views.redact_event(thrown, views.Viewer("player", "p2"))["data"]["cards"] == "????"


# -------------------------------------------------------------- computer and clock


def test_the_computer_posts_the_bring_in_for_an_absent_player_and_stands_pat_on_a_draw() -> None:
    state = create("stud", STUD)
    _, state = deal(state, stacked("AhAd2d", "KhKd2c", "QhQdKs"))
    events, state = table.handle(state, table_commands.SitOut("p2"), 0, SeededDraws(0))
    assert any(getattr(e, "action", None) == "bring_in" for e in events)
    state = create("deuce_seven_triple_draw", FLOP)
    _, state = deal(state, tuple(deck_texts()))
    state = _call_round(state)
    drawer = state.to_act
    events, state = table.handle(state, table_commands.SitOut(drawer), 0, SeededDraws(0))
    assert any(isinstance(e, draw_family.CardsDiscarded) and e.cards == "" for e in events)


def test_the_deck_of_a_closed_hand_is_the_committed_one() -> None:
    # Committed card by card: the floor gets the deck and the secret, the others openings.
    state = create("razz", STUD)
    events, state = deal(state, tuple(deck_texts()))
    more, state = passive(state)
    events += more
    cut = next(e for e in events if isinstance(e, MixedDeckCut))
    audited = views.deal_view(state, views.Viewer("floor"), revealed=True)
    assert audited["deck"] == "".join(cut.deck) and audited["salt"] == SALT and audited["verified"] is True
    assert audited["commitment"] == deal_commitment.deal_root(cut.deck, bytes.fromhex(SALT))
    shown = views.deal_view(state, views.Viewer("spectator"), revealed=True)
    assert shown["deck"] is None and shown["salt"] is None and shown["verified"] is True
    # Everyone still in was shown down: every card dealt is opened, each against the root.
    dealt = {c for e in events if isinstance(e, mixed.CardsDealt) for c in _pairs(e.cards)}
    assert {o["card"] for o in shown["openings"]} == dealt
    assert all(deal_commitment.verify_opening(_opening(o), shown["commitment"]) for o in shown["openings"])


def _opening(raw: dict) -> deal_commitment.Opening:
    return deal_commitment.Opening(raw["position"], raw["card"], raw["salt"], tuple(tuple(s) for s in raw["path"]))


def test_a_folded_stud_hand_s_down_cards_are_opened_to_its_owner_and_the_floor_only() -> None:
    state = create("stud", STUD)
    _, state = deal(state, stacked("AhAd2d", "KhKd2c", "QhQdKs"))  # p1 brings in (2c), p2 acts next
    _, state = act(state, "bring_in")
    folded = state.to_act
    _, state = act(state, "fold")
    _, state = passive(state)
    down = {"QhQd"[i:i + 2] for i in (0, 2)} if folded == "p0" else {"KhKd"[i:i + 2] for i in (0, 2)}
    for viewer in (views.Viewer("spectator"), views.Viewer("player", next(p for p in ("p0", "p1", "p2")
                                                                           if p != folded))):
        shown = views.deal_view(state, viewer, revealed=True)
        assert not {o["card"] for o in shown["openings"]} & down and shown["deck"] is None
        assert all(deal_commitment.verify_opening(_opening(o), shown["commitment"]) for o in shown["openings"])
    own = views.deal_view(state, views.Viewer("player", folded), revealed=True)
    assert down <= {o["card"] for o in own["openings"]}
    assert down <= set(_pairs(views.deal_view(state, views.Viewer("floor"), revealed=True)["deck"]))


def test_a_hand_committed_whole_keeps_its_old_view() -> None:
    state = create("stud", STUD)
    _, state = deal(state, tuple(deck_texts()))
    _, state = passive(state)
    deck = state.hand.deck
    seal = DealSeal(deck_commitment(parse_cards(deck), bytes.fromhex(SALT)), DECK_HASH, SALT)
    names = [state.players[s] for s in state.hand_seats]
    shown = MixedTableGame("stud").deal_view(state.hand, names, seal, True, Viewing(lambda _: False, False))
    assert shown["scheme"] == DECK_HASH and shown["deck"] == "".join(deck) and shown["verified"] is True


def test_the_mixed_games_deck_and_reshuffles_are_the_floors_alone_in_the_events() -> None:
    # Sealed, then the floor's alone in a hand committed card by card (every mixed hand).
    assert secrecy.secrets_named("MixedDeckCut").sealed == ("deck",)
    assert secrecy.secrets_named("DiscardsReshuffled").sealed == ("order",)


def test_hands_follow_one_another_with_the_button_moving() -> None:
    state = create("omaha_hi_lo", FLOP, players=3)
    draws = SeededDraws(9)
    buttons = []
    for _ in range(3):
        _, state = deal(state, draws.shuffled(deck_texts()), draws)
        buttons.append(state.button)
        _, state = passive(state, draws)
    assert buttons == [0, 1, 2] and sum(state.stacks) == 1500


def test_random_play_never_deals_a_card_twice() -> None:
    rng = random.Random(2)
    state = create("stud", STUD, players=8)
    draws = SeededDraws(2)
    for _ in range(5):
        _, state = deal(state, draws.shuffled(deck_texts()), draws)
        while state.hand_in_progress:
            options = legal(state.hand)
            choices = [a for a in ("check", "call", "fold", "bring_in") if options.get(a)]
            _, state = act(state, rng.choice(choices), draws=draws)
            seen = [c for hole in state.hand.game.hole for c in hole if c is not None]
            seen += [c for c in state.hand.game.board if c is not None]
            assert len(seen) == len(set(seen))
        if state.finished:
            break


def test_a_clock_run_out_on_the_bring_in_posts_it() -> None:
    # A timeout checks or folds (tournaments.md, Clocks); the bring-in can be neither, so it is posted.
    seats = tuple(table_commands.TableSeat(f"p{i}", 500) for i in range(3))
    _, state = table.handle(None, table_commands.CreateTable("t", "stud", STUD, BettingStructure(), seats, action_clock_s=30))
    _, state = table.handle(state, table_commands.StartNextHand(stacked("AhAd2d", "KhKd2c", "QhQdKs"), SALT), 1_000, SeededDraws(0))
    clock = state.clock
    assert clock.player_id == "p2"
    events, state = table.handle(state, table_commands.ExpireClock(clock.hand_id, clock.seat, clock.deadline_at_ms),
                                 clock.deadline_at_ms, SeededDraws(0))
    assert [e.action for e in events if type(e).__name__ == "ActionTaken"] == ["bring_in"]
    assert state.clock.player_id == "p0"
