"""The floor's replayer step model (service.application.replay), without HTTP: a live hand
with a short all-in, run through the application layer on the memory store, and a real
PHH hand from ../shared/phh. At each decision the legal range is the one the rules give
before the action and the verdict cites its rule with the edition; each viewer sees only
the cards the API would show them."""
from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from domain.history import phh
from domain.live import table_commands
from domain.rules.betting import BettingStructure
from domain.rules.citations import CITATIONS
from service.adapters.store.memory import InMemoryEventStore
from service.application import commands, replay, views
from tests import applications

PHH_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "phh"
NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
FLOOR = views.Viewer("floor")


def short_all_in_hand() -> tuple[InMemoryEventStore, str]:
    """Three-handed no-limit: Ann raises to 300, Bob is all in for 450 (short of the full
    raise to 500), Cat calls 450, and Ann, who acted before the short all-in, may only call
    or fold (TDA 2024 47-A); she calls and the board runs out."""
    store = InMemoryEventStore()
    table_id = str(uuid.uuid4())
    seats = (table_commands.TableSeat("Ann", 5000), table_commands.TableSeat("Bob", 450), table_commands.TableSeat("Cat", 5000))
    commands.create_table(applications.of(store), table_commands.CreateTable(table_id, "holdem", {}, NL, seats))
    commands.start_next_hand(applications.of(store), table_id, None)
    # Ann is the button (seat 0) three-handed: Bob posts the small blind, Cat the big, Ann acts first.
    for player, action, to in (("Ann", "raise", 300), ("Bob", "raise", 450), ("Cat", "call", None),
                               ("Ann", "call", None), ("Cat", "check", None), ("Ann", "check", None),
                               ("Cat", "check", None), ("Ann", "check", None), ("Cat", "check", None),
                               ("Ann", "check", None)):
        state = commands.load_table(applications.of(store), table_id).state
        assert state.to_act == player, (state.to_act, player)
        commands.execute(applications.of(store), table_id, None, table_commands.Act(player, action, to))
    return store, table_id


def decisions(replayed: dict) -> list[dict]:
    return [step["decision"] for step in replayed["steps"] if step["decision"] is not None]


def test_a_live_hand_gives_the_range_verdict_and_rule_at_each_decision() -> None:
    store, table_id = short_all_in_hand()
    replayed = replay.table_hand(store, f"{table_id}.1", FLOOR, lambda ids: {"Ann": "Ann Smith"})
    made = decisions(replayed)
    assert [(d["player"], d["action"], d["to"]) for d in made[:4]] == [
        ("Ann", "raise", 300), ("Bob", "raise", 450), ("Cat", "call", 450), ("Ann", "call", 450)]
    ann_raise, bob_all_in, _, ann_call = made[:4]
    assert ann_raise["legal"]["raise"] == {"min_to": 200, "max_to": 5000}
    assert ann_raise["verdict"]["rule"] == "TDA 2024 43"
    assert bob_all_in["all_in"] and bob_all_in["legal"]["raise"] == {"min_to": 450, "max_to": 450}
    assert bob_all_in["verdict"]["rule"] == "TDA 2024 47-A"
    assert "does not reopen" in bob_all_in["verdict"]["detail"]
    # Ann faced only 150 more than her raise, less than the full raise of 200: closed to her.
    assert ann_call["legal"]["raise"] is None and "raise_closed_reason" not in ann_call["legal"]
    assert ann_call["raise_closed_reason"] == "not_reopened"
    assert ann_call["raise_closed"]["code"] == "raise_not_reopened"
    assert ann_call["raise_closed"]["rule"] == "TDA 2024 47-A"
    every_rule = {d["verdict"].get("rule") for d in made} | {
        d.get("raise_closed", {}).get("rule") for d in made} | {
        s.get("rule", {}).get("rule") for s in replayed["steps"]}
    assert every_rule - {None} <= set(CITATIONS.values())
    assert replayed["names"]["Ann"] == "Ann Smith"
    assert any(s["caption"].startswith(replay.isolated("Ann Smith") + " is dealt ") for s in replayed["steps"])
    assert replayed["chain"]["ok"] and replayed["deal_check"]["ok"] is True
    assert replayed["deal"]["deck"] is not None  # the floor gets the deck once the hand is closed


def test_a_player_sees_their_own_cards_and_no_one_elses_until_shown() -> None:
    store, table_id = short_all_in_hand()
    replayed = replay.table_hand(store, f"{table_id}.1", views.Viewer("player", "Ann"))
    dealt = [s for s in replayed["steps"] if s["type"] == "HoleCardsDealt"]
    assert sum(1 for s in dealt if "face down" in s["caption"]) == 2
    before_showdown = next(s for s in replayed["steps"] if s["type"] == "CardsShown")["index"] - 1
    seats = replayed["steps"][before_showdown]["table"]["seats"]
    assert [seat["cards"] is not None for seat in seats] == [True, False, False]
    assert replayed["deal"]["deck"] is None and replayed["deal"]["openings"]
    assert replayed["deal_check"]["ok"] is True


def test_a_hand_in_progress_shows_no_deck_even_to_the_floor() -> None:
    store = InMemoryEventStore()
    table_id = str(uuid.uuid4())
    seats = (table_commands.TableSeat("Ann", 1000), table_commands.TableSeat("Bob", 1000))
    commands.create_table(applications.of(store), table_commands.CreateTable(table_id, "holdem", {}, NL, seats))
    commands.start_next_hand(applications.of(store), table_id, None)
    replayed = replay.table_hand(store, f"{table_id}.1", FLOOR)
    assert not replayed["over"] and replayed["deal"]["deck"] is None and replayed["deal"]["salt"] is None
    assert all(seat["cards"] for seat in replayed["steps"][-1]["table"]["seats"])  # the floor sees hole cards


def test_an_unknown_hand_is_not_found() -> None:
    store, table_id = short_all_in_hand()
    for hand_id in (f"{table_id}.2", "nonsense", f"{uuid.uuid4()}.1", "hand-" + str(uuid.uuid4())):
        with pytest.raises(replay.HandNotFound):
            replay.table_hand(store, hand_id, FLOOR)


def test_a_real_phh_hand_steps_to_its_outcome() -> None:
    record = phh.parse((PHH_DIR / "dwan-ivey-2009.phh").read_text())
    replayed = replay.phh_record(record, FLOOR)
    made = decisions(replayed)
    assert len(made) == 10
    ivey_shove = next(d for d in made if d["player"] == "Phil Ivey" and d["all_in"])
    assert ivey_shove["legal"]["raise"] == {"min_to": 375200, "max_to": 1067100}
    assert ivey_shove["verdict"]["rule"] == "TDA 2024 43"
    dwan_call = made[-1]
    assert dwan_call["raise_closed"]["code"] == "stack_too_short"
    last = replayed["steps"][-1]["table"]
    assert [seat["stack"] for seat in last["seats"]] == replayed["outcome"]["finishing_stacks"]
    assert replayed["steps"][-1]["table"]["board"] == "Jc3d5c4hJh"


def test_a_variant_the_rules_do_not_replay_is_refused_by_name() -> None:
    record = phh.HandHistory("FK", (1, 1), (100, 100), ())
    with pytest.raises(replay.Violation) as refused:
        replay.phh_record(record, FLOOR)
    assert refused.value.code == "unsupported_variant"


def test_a_stud_hi_lo_record_steps_with_the_bring_in_and_its_up_cards() -> None:
    record = phh.parse((PHH_DIR / "wsop/2023/43/5/54.phh").read_text())
    replayed = replay.phh_record(record, FLOOR)
    assert replayed["game"] == "stud_hi_lo" and replayed["outcome"]["matches_record"] is True
    last = replayed["steps"][-1]["table"]
    assert [seat["stack"] for seat in last["seats"]] == replayed["outcome"]["finishing_stacks"]
    decisions = [step["decision"] for step in replayed["steps"] if step["decision"]]
    bring_in = decisions[0]
    assert bring_in["action"] == "bring_in" and bring_in["legal"]["bring_in"] == {"to": bring_in["to"]}
    assert bring_in["legal"]["fold"] is False and bring_in["legal"]["check"] is False
    brought_in = next(step for step in replayed["steps"] if step["decision"] is bring_in)
    assert brought_in["caption"].endswith(f"brings it in for {bring_in['to']:,}")
    # A player sees their own down cards, and only the up cards of the others.
    seen_by = replay.phh_record(record, views.Viewer("player", record.players[0]))
    seats = seen_by["steps"][-1]["table"]["seats"]
    assert all("??" not in (seat["cards"] or "") for seat in seats if seat["player"] == record.players[0])
    others = [step["table"]["seats"][1]["cards"] for step in seen_by["steps"]
              if step["table"]["seats"][1]["cards"] and step["table"]["round"] != "over"]
    assert others and all("??" in cards for cards in others[:3])


def test_a_five_card_draw_record_steps_through_the_draw() -> None:
    from tests.unit.test_phh_draw import OPENED_AND_DRAWN

    record = phh.parse(OPENED_AND_DRAWN)
    replayed = replay.phh_record(record, FLOOR)
    assert replayed["game"] == "five-card-draw"
    assert [seat["stack"] for seat in replayed["steps"][-1]["table"]["seats"]] == [2180, 1830, 1990]
    drew = [step["caption"] for step in replayed["steps"] if step["type"] == "PlayerDrew"]
    assert drew == ["\u2068Ann\u2069 draws 3: AdTc4h", "\u2068Bob\u2069 draws 3: Qd5s6s"]
    bet = next(step["decision"] for step in replayed["steps"] if step["decision"])
    assert bet["player"] == "Ann" and bet["action"] == "bet" and bet["legal"]["bet"]["min_to"] == 20
    spectator = replay.phh_record(record, views.Viewer("spectator"))
    assert [step["caption"] for step in spectator["steps"] if step["type"] == "PlayerDrew"] == [
        "\u2068Ann\u2069 draws 3", "\u2068Bob\u2069 draws 3"]
    showdown = next(i for i, step in enumerate(spectator["steps"]) if step["type"] == "CardsShown")
    assert all(seat["cards"] is None for step in spectator["steps"][:showdown] for seat in step["table"]["seats"])
    assert spectator["steps"][-1]["table"]["seats"][2]["cards"] is None  # Cy folded: never shown


@pytest.mark.parametrize("game, settings, betting", [
    ("omaha", {}, BettingStructure("pot-limit", small_blind=50, big_blind=100)),
    ("stud", {"small_bet": 10, "big_bet": 20, "ante": 1, "bring_in": 3}, NL),
    ("deuce_seven_triple_draw", {"small_bet": 10, "big_bet": 20}, NL),
    ("dice", {}, NL),
    ("palace", {"small_bet": 10, "big_bet": 20}, NL),
])
def test_every_game_at_a_live_table_steps_through_its_hand(game: str, settings: dict,
                                                           betting: BettingStructure) -> None:
    """Whatever the game, every event is a step with a table, and each betting decision a
    verdict (the computer plays for three players who sat out)."""
    store = InMemoryEventStore()
    table_id = str(uuid.uuid4())
    players = ("Ann", "Bob", "Cat")
    commands.create_table(applications.of(store), table_commands.CreateTable(table_id, game, settings, betting,
                                                   tuple(table_commands.TableSeat(p, 1000) for p in players)))
    for player in players:
        commands.execute(applications.of(store), table_id, None, table_commands.SitOut(player))
    commands.start_next_hand(applications.of(store), table_id, None)
    for viewer in (FLOOR, views.Viewer("player", "Ann"), views.Viewer("spectator")):
        replayed = replay.table_hand(store, f"{table_id}.1", viewer)
        assert replayed["over"] and replayed["chain"]["ok"]
        assert all(step["table"]["seats"] for step in replayed["steps"][1:])
        assert all(d["verdict"]["legal"] for d in decisions(replayed))


def test_a_fixed_limit_all_in_of_half_a_unit_reads_as_a_full_raise() -> None:
    """Robert's Rules (limit 6) and TDA 2024 47-B: on a $20 round, a raise to $40 then an
    all-in to $55 (15 more, at least half a unit) counts as a full raise, so the next raise
    is one unit on top of the all-in: to $75."""
    store = InMemoryEventStore()
    table_id = str(uuid.uuid4())
    limit = BettingStructure("fixed-limit", small_blind=10, big_blind=20, small_bet=20, big_bet=40)
    seats = (table_commands.TableSeat("Ann", 1000), table_commands.TableSeat("Bob", 55), table_commands.TableSeat("Cat", 1000))
    commands.create_table(applications.of(store), table_commands.CreateTable(table_id, "holdem", {}, limit, seats))
    commands.start_next_hand(applications.of(store), table_id, None)
    for player, action, to in (("Ann", "raise", 40), ("Bob", "raise", 55), ("Cat", "raise", 75)):
        commands.execute(applications.of(store), table_id, None, table_commands.Act(player, action, to))
    _, bob, cat = decisions(replay.table_hand(store, f"{table_id}.1", FLOOR))
    assert bob["all_in"] and bob["verdict"]["rule"] == "TDA 2024 47-B"
    assert "counts as a full raise (the 50% rule)" in bob["verdict"]["detail"]
    assert bob["verdict"]["numbers"]["increase"] == 15 and bob["verdict"]["numbers"]["unit"] == 20
    assert cat["legal"]["raise"] == {"min_to": 75, "max_to": 75}
    assert cat["verdict"]["rule"] == "RRP limit 6"


def test_every_wsop_hand_steps_to_its_recorded_stacks() -> None:
    stepped = 0
    for path in sorted((PHH_DIR / "wsop").rglob("*.phh")):
        record = phh.parse(path.read_text())
        replayed = replay.phh_record(record, views.Viewer("spectator"))
        stacks = [seat["stack"] for seat in replayed["steps"][-1]["table"]["seats"]]
        assert stacks == list(record.finishing_stacks), path
        stepped += 1
    assert stepped == 83


def test_the_hand_starts_caption_names_only_the_forced_bets_the_hand_has() -> None:
    store, table_id = short_all_in_hand()  # blinds 50/100, no ante
    captions = [s["caption"] for s in replay.table_hand(store, f"{table_id}.1", FLOOR)["steps"]]
    assert "The hand starts: 3 players, the blinds posted" in captions
    store = InMemoryEventStore()
    draw_table = str(uuid.uuid4())
    commands.create_table(applications.of(store), table_commands.CreateTable(
        draw_table, "five-card-draw", {}, NL, tuple(table_commands.TableSeat(p, 1000) for p in ("Ann", "Bob"))))
    commands.start_next_hand(applications.of(store), draw_table, None)
    captions = [s["caption"] for s in replay.table_hand(store, f"{draw_table}.1", FLOOR)["steps"]]
    assert "The hand starts: 2 players" in captions  # five-card draw's antes are a step of their own


def test_uncalled_chips_are_never_shown_as_a_side_pot() -> None:
    # Dwan calls Ivey's all-in with less: 572,100 of Ivey's bet nobody can match goes back
    # to him. Until it does, the felt shows it apart, never as a side pot.
    replayed = replay.phh_record(phh.parse((PHH_DIR / "dwan-ivey-2009.phh").read_text()), FLOOR)
    call = next(step["table"] for step in replayed["steps"] if step["caption"].startswith(replay.isolated("Tom Dwan") + " calls 262,400"))
    assert call["pots"] == [{"amount": 1109500, "eligible": ["Phil Ivey", "Tom Dwan"]}]
    assert call["pot_total"] == 1109500 and call["uncalled"] == {"amount": 572100, "player": "Phil Ivey"}
    assert all(len(pot["eligible"]) > 1 for step in replayed["steps"] for pot in step["table"]["pots"][1:])
