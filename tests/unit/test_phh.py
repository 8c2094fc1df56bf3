"""PHH parsing and writing: the phh-std conventions, and write_phh(parse(t)) round trips."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.games.holdem import PostAction, StartHand, handle
from domain.history.phh import (
    BetOrRaisedTo,
    BoardDealt,
    BringInPosted,
    CheckedOrCalled,
    Folded,
    HandHistory,
    HoleCardsDealt,
    PhhSyntaxError,
    ShownOrMucked,
    StoodPatOrDiscarded,
    format_action,
    format_amount,
    parse,
    parse_action,
    write_phh,
)
from domain.history.phh_games import phh_from_events, replay
from domain.rules.betting import BettingStructure
from domain.rules.violations import Violation
from tests.corpus import PHH as CORPUS

PLURIBUS_HAND_0 = """\
variant = 'NT'
ante_trimming_status = true
antes = [0, 0, 0, 0, 0, 0]
blinds_or_straddles = [50, 100, 0, 0, 0, 0]
min_bet = 100
starting_stacks = [10000, 10000, 10000, 10000, 10000, 10000]
actions = ['d dh p1 TcQc', 'd dh p2 8s4c', 'd dh p3 9c3d', 'd dh p4 Ah4h', 'd dh p5 Th5s', \
'd dh p6 6c7s', 'p3 f', 'p4 cbr 210', 'p5 f', 'p6 f', 'p1 cc', 'p2 f', 'd db 7d5h9d', \
'p1 cc', 'p4 cc', 'd db 7c', 'p1 cc', 'p4 cc', 'd db Qh', 'p1 cbr 230', 'p4 f']
hand = 0
players = ['MrBlue', 'MrBlonde', 'MrWhite', 'MrPink', 'MrBrown', 'Pluribus']
finishing_stacks = [10310, 9900, 10000, 9790, 10000, 10000]
"""


def test_the_header_fields_are_typed() -> None:
    hand = parse(PLURIBUS_HAND_0)
    assert hand.variant == "NT"
    assert hand.ante_trimming_status is True
    assert hand.antes == (0, 0, 0, 0, 0, 0)
    assert hand.blinds_or_straddles == (50, 100, 0, 0, 0, 0)
    assert hand.min_bet == 100
    assert hand.starting_stacks == (10000,) * 6
    assert hand.players == ("MrBlue", "MrBlonde", "MrWhite", "MrPink", "MrBrown", "Pluribus")
    assert hand.finishing_stacks == (10310, 9900, 10000, 9790, 10000, 10000)
    assert hand.metadata == (("hand", 0),)
    assert hand.player_count == 6


def test_actions_are_typed_records_with_players_counted_from_zero() -> None:
    actions = parse(PLURIBUS_HAND_0).actions
    assert actions[0] == HoleCardsDealt(0, ("Tc", "Qc"))
    assert actions[6] == Folded(2)
    assert actions[7] == BetOrRaisedTo(3, 210)
    assert actions[10] == CheckedOrCalled(0)
    assert actions[12] == BoardDealt(("7d", "5h", "9d"))
    assert len(actions) == 21


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("d dh p2 ????", HoleCardsDealt(1, ("??", "??"))),
        ("d db Qh", BoardDealt(("Qh",))),
        ("p1 sm KsQs", ShownOrMucked(0, ("Ks", "Qs"))),
        ("p1 sm", ShownOrMucked(0, None)),
        ("p1 sm -", ShownOrMucked(0, ())),
        ("p4 sd AsQs", StoodPatOrDiscarded(3, ("As", "Qs"))),
        ("p1 sd", StoodPatOrDiscarded(0, ())),
        ("p3 pb", BringInPosted(2)),
        ("p5 cbr 1067100", BetOrRaisedTo(4, 1067100)),
        ("p2 cbr 12.5", BetOrRaisedTo(1, Fraction(25, 2))),
        ("p2 cc # Carol calls", CheckedOrCalled(1, "Carol calls")),
    ],
)
def test_each_action_form_parses_and_formats_back(text: str, action: object) -> None:
    assert parse_action(text) == action
    assert format_action(action) == text  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["p0 f", "x1 f", "p1 raise 300", "d dh p1 Tc Q", "p1 cbr lots"])
def test_malformed_actions_are_refused(text: str) -> None:
    with pytest.raises(PhhSyntaxError):
        parse_action(text)


def test_fractional_stacks_are_exact_fractions_and_whole_floats_become_ints() -> None:
    hand = parse((CORPUS / "antonius-blom-2009.phh").read_text())
    assert hand.starting_stacks == (Fraction(125945025, 100), Fraction(1356947, 2))
    odd_chip = parse((CORPUS / "pluribus/41b/204.phh").read_text())
    assert odd_chip.finishing_stacks == (
        Fraction(20325, 2), 9900, 10000, Fraction(20325, 2), 10000, 9775,
    )
    assert all(type(s) is int for s in odd_chip.finishing_stacks[1:3])


def test_fixed_limit_and_stud_amounts() -> None:
    fixed = parse(
        "variant = 'FT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\n"
        "big_bet = 4\nstarting_stacks = [200, 200]\nactions = []\n"
    )
    assert (fixed.small_bet, fixed.big_bet, fixed.min_bet) == (2, 4, None)
    stud = parse(
        "variant = 'F7S'\nantes = [1, 1, 1]\nbring_in = 2\nsmall_bet = 5\nbig_bet = 10\n"
        "starting_stacks = [50, 50, 50]\nactions = ['p3 pb']\n"
    )
    assert stud.bring_in == 2 and stud.blinds_or_straddles is None


def test_comments_and_multi_line_arrays_of_the_famous_hands_parse() -> None:
    hand = parse((CORPUS / "dwan-ivey-2009.phh").read_text())
    assert hand.antes == (500, 500, 500)
    assert hand.actions[1] == HoleCardsDealt(1, ("??", "??"))
    assert hand.actions[-1] == BoardDealt(("Jh",))
    assert dict(hand.metadata)["event"] == "Full Tilt Million Dollar Cash Game S4E12"


@pytest.mark.parametrize(
    "text",
    [
        "variant = 'NT'\nantes = [0, 0]\nstarting_stacks = [1, 1]\n",  # no actions
        "variant = 'NT'\nantes = [0]\nstarting_stacks = [1, 1]\nactions = []\n",
        "variant = 'NT'\nantes = [0, 0]\nstarting_stacks = [1, 1]\nactions = ['p3 f']\n",
        "variant = 'NT'\nantes = [0, 0\n",
    ],
)
def test_incomplete_or_inconsistent_hands_are_refused(text: str) -> None:
    with pytest.raises(PhhSyntaxError):
        parse(text)


def test_writing_then_parsing_gives_the_same_record() -> None:
    for path in [
        CORPUS / "pluribus/100/0.phh", CORPUS / "pluribus/41b/204.phh",
        CORPUS / "antonius-blom-2009.phh", CORPUS / "alice-carol-wikipedia.phh",
        CORPUS / "arieh-yockey-2019.phh", CORPUS / "wsop/2023/43/5/1.phh",
    ]:
        hand = parse(path.read_text())
        assert parse(write_phh(hand)) == hand, path


def test_written_text_follows_the_standard_field_order() -> None:
    text = write_phh(parse(PLURIBUS_HAND_0))
    keys = [line.split(" = ")[0] for line in text.splitlines()]
    assert keys == [
        "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "min_bet",
        "starting_stacks", "actions", "hand", "players", "finishing_stacks",
    ]
    assert "'p4 cbr 210'" in text.replace('"', "'")


@pytest.mark.parametrize(
    ("amount", "text"),
    [(9900, "9900"), (Fraction(20325, 2), "10162.5"), (Fraction(1, 8), "0.125"),
     (Fraction(-1, 4), "-0.25"), (Fraction(125945025, 100), "1259450.25")],
)
def test_amounts_are_written_as_exact_decimals(amount: Fraction, text: str) -> None:
    assert format_amount(amount) == text


def test_an_amount_without_a_finite_decimal_cannot_be_written() -> None:
    with pytest.raises(ValueError):
        format_amount(Fraction(1, 3))


_amounts = st.one_of(
    st.integers(0, 10**9),
    st.builds(lambda n, e: Fraction(n, 2**e * 5**(e // 2)), st.integers(1, 10**9), st.integers(1, 4)),
)
_cards = st.lists(
    st.sampled_from([r + s for r in "23456789TJQKA" for s in "cdhs"] + ["??"]),
    min_size=1, max_size=5,
).map(tuple)


def _actions(players: int) -> st.SearchStrategy:
    seat = st.integers(0, players - 1)
    return st.one_of(
        st.builds(HoleCardsDealt, seat, _cards), st.builds(BoardDealt, _cards),
        st.builds(Folded, seat), st.builds(CheckedOrCalled, seat),
        st.builds(BetOrRaisedTo, seat, _amounts),
        st.builds(ShownOrMucked, seat, st.one_of(st.none(), st.just(()), _cards)),
        st.builds(StoodPatOrDiscarded, seat, st.one_of(st.just(()), _cards)),
    )


@st.composite
def _hands(draw: st.DrawFn) -> HandHistory:
    players = draw(st.integers(2, 6))
    amounts = st.lists(_amounts, min_size=players, max_size=players).map(tuple)
    return HandHistory(
        variant=draw(st.sampled_from(["NT", "FT", "PO"])),
        antes=draw(amounts),
        starting_stacks=draw(amounts),
        actions=tuple(draw(st.lists(_actions(players), max_size=8))),
        ante_trimming_status=draw(st.booleans()),
        blinds_or_straddles=draw(amounts),
        min_bet=draw(_amounts),
        players=tuple(draw(st.lists(st.text(min_size=1, max_size=8), min_size=players,
                                    max_size=players))),
        finishing_stacks=draw(st.one_of(st.none(), amounts)),
        metadata=tuple(draw(st.dictionaries(
            st.text("abcxyz", min_size=1, max_size=6).map(lambda key: f"_{key}"),
            st.one_of(st.integers(), st.text(max_size=10)), max_size=3,
        )).items()),
    )


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_hands())
def test_any_record_round_trips_through_its_text(hand: HandHistory) -> None:
    assert parse(write_phh(hand)) == hand


# ---------------------------------------------------------------- replay through our engine


def _with_action(text: str, index: int, action: str) -> str:
    hand = parse(text)
    actions = list(hand.actions)
    actions[index] = parse_action(action)
    return write_phh(replace(hand, actions=tuple(actions)))


def test_replay_reproduces_the_recorded_finishing_stacks() -> None:
    result = replay(parse(PLURIBUS_HAND_0))
    assert result.finishing_stacks == (10310, 9900, 10000, 9790, 10000, 10000)
    assert result.winners == (0,)
    # p4's 210 called by p1, p2's big blind folded; p1's river bet of 230 came back uncalled.
    assert sum(pot.amount for pot in result.pots) == 210 + 210 + 100
    assert result.events[0].players[0] == "MrBlue"


def test_a_raise_below_the_minimum_names_its_action_index() -> None:
    # 'p4 cbr 210' is action 7; a raise to 150 over the big blind of 100 is short of 200.
    with pytest.raises(Violation) as raised:
        replay(parse(_with_action(PLURIBUS_HAND_0, 7, "p4 cbr 150")))
    assert raised.value.code == "raise_below_minimum"
    assert raised.value.numbers["action_index"] == 7
    assert raised.value.numbers["min_to"] == 200
    assert "action 7 ('p4 cbr 150')" in raised.value.detail


def test_an_action_out_of_turn_names_its_action_index() -> None:
    # Pre-flop p3 (first left of the big blind) acts first; p4 may not fold before.
    with pytest.raises(Violation) as raised:
        replay(parse(_with_action(PLURIBUS_HAND_0, 6, "p4 f")))
    assert raised.value.code == "not_your_turn"
    assert raised.value.numbers["action_index"] == 6


def test_a_record_that_stops_mid_hand_is_incomplete() -> None:
    hand = parse(PLURIBUS_HAND_0)
    with pytest.raises(Violation) as raised:
        replay(replace(hand, actions=hand.actions[:12]))
    assert raised.value.code == "hand_incomplete"


def test_variants_we_do_not_play_are_unsupported() -> None:
    # Royal hold'em (NR: the deck from ten to ace) is a phh-std code we do not play.
    hand = replace(parse(PLURIBUS_HAND_0), variant="NR")
    with pytest.raises(Violation) as raised:
        replay(hand)
    assert raised.value.code == "unsupported_variant"
    assert "F7S" in raised.value.detail and "NS" in raised.value.detail


HEADS_UP = """\
variant = 'NT'
ante_trimming_status = true
antes = [0, 0]
blinds_or_straddles = [5, 10]
min_bet = 10
starting_stacks = [1000, 1000]
actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 cbr 30', 'p1 f']
"""


def test_heads_up_the_button_is_p2_posts_the_small_blind_and_acts_first() -> None:
    # PHH writes heads-up blinds small first, but p1 is the big blind: p2 (the button)
    # posts 5, opens to 30, and p1 folds the 10 it posted.
    assert replay(parse(HEADS_UP)).finishing_stacks == (990, 1010)


def test_heads_up_the_big_blind_may_not_act_first() -> None:
    with pytest.raises(Violation) as raised:
        replay(parse(HEADS_UP.replace("'p2 cbr 30', 'p1 f'", "'p1 cbr 30', 'p2 f'")))
    assert raised.value.code == "not_your_turn"
    assert raised.value.numbers["action_index"] == 2


def test_a_mucked_hand_cannot_win_even_if_it_was_best() -> None:
    # Heads-up to the river; p1 holds the better hand but mucks: p2 takes the pot.
    text = HEADS_UP.replace(
        "actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 cbr 30', 'p1 f']",
        "actions = ['d dh p1 AsAh', 'd dh p2 7c2d', 'p2 cc', 'p1 cc', 'd db Ks9h4c', "
        "'p1 cc', 'p2 cc', 'd db 3s', 'p1 cc', 'p2 cc', 'd db Jd', 'p1 cc', 'p2 cc', "
        "'p2 sm 7c2d', 'p1 sm']")
    assert replay(parse(text)).finishing_stacks == (990, 1010)


def test_a_hand_dealt_by_our_engine_exports_to_phh_and_replays_to_the_same_stacks() -> None:
    deck = tuple(r + s for r in "AKQJT98765432" for s in "shdc")
    structure = BettingStructure(small_blind=50, big_blind=100, ante=10)
    # Four players, button in seat 1: PHH p1 is seat 2 and the button (seat 1) is p4.
    start = StartHand(("ann", "bob", "cat", "dan"), (5000, 3000, 4000, 2500), 1, structure,
                      deck=deck)
    events, state = handle(None, start)
    for seat, action, to in [(0, "raise", 300), (1, "call", None), (2, "fold", None),
                             (3, "call", None), (3, "check", None), (0, "bet", 500),
                             (1, "raise", 1500), (3, "fold", None), (0, "call", None)]:
        while state.to_act != seat:
            more, state = handle(state, PostAction(state.to_act, "check"))
            events += more
        more, state = handle(state, PostAction(seat, action, to))
        events += more
    while not state.over:
        more, state = handle(state, PostAction(state.to_act, "check"))
        events += more
    record = phh_from_events(events)
    assert record.players == ("cat", "dan", "ann", "bob")
    assert record.starting_stacks == (4000, 2500, 5000, 3000)
    assert record.blinds_or_straddles == (50, 100, 0, 0) and record.antes == (10,) * 4
    assert record.finishing_stacks == tuple(state.stacks[s] for s in (2, 3, 0, 1))
    assert replay(parse(write_phh(record))).finishing_stacks == record.finishing_stacks


def test_forced_bets_our_engine_cannot_post_are_refused_by_name() -> None:
    button_ante = HEADS_UP.replace("antes = [0, 0]", "antes = [0, 0]").replace(
        "starting_stacks = [1000, 1000]", "starting_stacks = [1000, 1000, 1000]").replace(
        "antes = [0, 0]", "antes = [5, 0, 0]").replace(
        "blinds_or_straddles = [5, 10]", "blinds_or_straddles = [5, 10, 0]")
    with pytest.raises(Violation) as raised:
        replay(parse(button_ante))
    assert raised.value.code == "unsupported_forced_bets"


def test_the_winner_may_show_after_the_loser_mucked_and_the_pot_was_settled() -> None:
    text = HEADS_UP.replace(
        "actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 cbr 30', 'p1 f']",
        "actions = ['d dh p1 AsAh', 'd dh p2 7c2d', 'p2 cc', 'p1 cc', 'd db Ks9h4c', "
        "'p1 cc', 'p2 cc', 'd db 3s', 'p1 cc', 'p2 cc', 'd db Jd', 'p1 cc', 'p2 cc', "
        "'p1 sm', 'p2 sm 7c2d']")
    assert replay(parse(text)).finishing_stacks == (990, 1010)


def test_showing_unknown_cards_cannot_win_and_is_not_an_error() -> None:
    # 'sm -' shows cards nobody recorded: the hand cannot be ranked, so p2's known 72 wins.
    text = HEADS_UP.replace(
        "actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 cbr 30', 'p1 f']",
        "actions = ['d dh p1 ????', 'd dh p2 7c2d', 'p2 cc', 'p1 cc', 'd db Ks9h4c', "
        "'p1 cc', 'p2 cc', 'd db 3s', 'p1 cc', 'p2 cc', 'd db Jd', 'p1 cc', 'p2 cc', "
        "'p1 sm -', 'p2 sm 7c2d']")
    assert replay(parse(text)).finishing_stacks == (990, 1010)
