"""PokerStars hand histories read into PHH records (domain.history.phh), so that a hand
from where players play replays through our rules like any PHH hand.

Read: hold'em (no limit, pot limit, limit) and pot-limit Omaha, cash games and
tournaments, as PokerStars writes them (one hand after another, each opened by its
"PokerStars Hand #..." line). A cash game's amounts are written in cents (`_amounts_in`
names the currency), a tournament's in chips. Other sites' formats (GGPoker among them)
are not read.

The record: players from the first seat left of the button round to the button (PHH's
order), the posted blinds and antes, every action with its round total (`cbr`), the board,
the hole cards the history shows (the hero's "Dealt to", the hands shown) and `????` for
the others, and the finishing stacks the history implies: each stack, less what it put
in, plus the uncalled bet returned and what it collected. PokerStars' collections are
after the rake, our rules take none: the rake goes back to the players who collected
(shared as they collected, the odd cent to the first), and is kept in `_rake`.

What the record cannot say is refused with its line: a dead small blind posted with the
big blind, a blind posted out of position, running the board twice, a cash-out.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from domain.history.phh import UNKNOWN_CARD, HandHistory, PhhSyntaxError, UnreadableHand, parse_action

FORMAT = "pokerstars"
_HAND_START = re.compile(r"^PokerStars (?:Zoom |Home Game )?(?:Hand|Game) #", re.MULTILINE)
_HEADER = re.compile(
    r"^PokerStars (?:Zoom |Home Game )?(?:Hand|Game) #(?P<number>\d+):\s+"
    r"(?:Tournament #(?P<tournament>\d+),\s+(?P<buy_in>.*?)\s+)?"
    r"(?P<game>Hold'em|Omaha) (?P<limit>No Limit|Pot Limit|Limit)\s+"
    r"(?:-\s+(?P<level>[^(]*?)\s*)?\((?P<stakes>[^)]*)\)")
_TABLE = re.compile(r"^Table '(?P<table>[^']*)' (?P<seats>\d+)-max (?:\(Play Money\) )?Seat #(?P<button>\d+) is the button")
_SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<name>.+?) \((?P<currency>[$€£]?)(?P<stack>[\d,.]+) in chips"
                   r"(?:,[^)]*)?\)(?P<out> is sitting out| out of hand)?")
_AMOUNT = r"[$€£]?([\d,]+(?:\.\d+)?)"
_STREET = re.compile(r"^\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[[^\]]*\] )?\[(?P<cards>[^\]]*)\]$")
_COLLECTED = re.compile(rf"^(?P<name>.+) collected {_AMOUNT} from (?:side |main )?pot(?:-\d+)?$")
_RETURNED = re.compile(rf"^Uncalled bet \({_AMOUNT}\) returned to (?P<name>.+)$")
_RAKE = re.compile(rf"^Total pot {_AMOUNT}.*\| Rake {_AMOUNT}")
_DEALT = re.compile(r"^Dealt to (?P<name>.+?) \[(?P<cards>[^\]]*)\]$")
_VARIANTS = {("Hold'em", "No Limit"): "NT", ("Hold'em", "Limit"): "FT", ("Hold'em", "Pot Limit"): "PT",
             ("Omaha", "Pot Limit"): "PO"}
_HOLE_CARDS = {"Hold'em": 2, "Omaha": 4}
# Lines about the table rather than the hand: nothing the record keeps.
_TABLE_TALK = (" said, \"", " is disconnected", " is connected", " has timed out", " sits out",
               " is sitting out", " has returned", " joins the table", " leaves the table",
               " will be allowed to play after the button", " was removed from the table",
               " finished the tournament", " wins the tournament", " re-buys", " takes the add-on")


class PokerStarsError(UnreadableHand):
    """A PokerStars hand we cannot read: the line of the file and why."""


@dataclass(frozen=True)
class StarsHand:
    """One hand of a PokerStars file, not yet read."""
    number: str
    line: int
    """The line of its "PokerStars Hand #" header in the file, from 1."""
    text: str

    @property
    def variant(self) -> str:
        """The PHH variant code the hand reads as ("?" for a game we do not read)."""
        header = _HEADER.match(self.text)
        return _VARIANTS.get((header["game"], header["limit"]), "?") if header else "?"


def is_pokerstars(text: str) -> bool:
    """The text is a PokerStars hand history (its first line opens a hand)."""
    return _HAND_START.match(text.lstrip("\ufeff \t\r\n")) is not None


def hands_in(text: str) -> tuple[StarsHand, ...]:
    """The file's hands in file order."""
    starts = [m.start() for m in _HAND_START.finditer(text)]
    hands = []
    for start, end in zip(starts, [*starts[1:], len(text)]):
        body = text[start:end]
        number = re.match(r"[^#]*#(\d+)", body)
        hands.append(StarsHand(number.group(1) if number else "?", text.count("\n", 0, start) + 1,
                               body.rstrip() + "\n"))
    return tuple(hands)


def to_record(hand: StarsHand) -> HandHistory:
    """The hand as a PHH record; raises PokerStarsError naming the file's line."""
    return _Reader(hand).record()


@dataclass
class _Seat:
    name: str
    seat: int
    stack: int
    ante: int = 0
    blind: int = 0
    put_in: int = 0
    round_bet: int = 0
    returned: int = 0
    collected: int = 0
    cards: str | None = None


@dataclass
class _Reader:
    hand: StarsHand
    cents: bool = False
    seats: list[_Seat] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    rake: int = 0

    def record(self) -> HandHistory:
        lines = self.hand.text.splitlines()
        header = _HEADER.match(lines[0])
        if header is None:
            self._refuse(0, "not a hand we read: PokerStars hold'em (no limit, pot limit, limit) or "
                            "pot-limit Omaha")
        assert header is not None  # _refuse raised
        if (header["game"], header["limit"]) not in _VARIANTS:
            self._refuse(0, f"{header['game']} {header['limit']} is not a game we replay")
        variant = _VARIANTS[header["game"], header["limit"]]
        self.cents = any(symbol in header["stakes"] for symbol in "$€£")
        small, big = self._stakes(0, header["stakes"])
        table = _TABLE.match(lines[1]) if len(lines) > 1 else None
        if table is None:
            self._refuse(1, "the second line names the table, its seats and the button")
        assert table is not None
        at = self._read_seats(lines, int(table["button"]))
        at = self._read_hand(lines, at, _HOLE_CARDS[header["game"]])
        self._read_summary(lines, at)
        return self._built(header, table, variant, small, big)

    # ----------------------------------------------------------------- reading

    def _read_seats(self, lines: list[str], button: int) -> int:
        at = 2
        seated = []
        while at < len(lines) and (seat := _SEAT.match(lines[at])):
            if not seat["out"]:
                seated.append(_Seat(seat["name"], int(seat["seat"]), self._amount(at, seat["stack"])))
            at += 1
        if len(seated) < 2:
            self._refuse(at, "a hand needs two players dealt in")
        # PHH's order: the first seat left of the button first, the button last.
        seated.sort(key=lambda s: (s.seat <= button, s.seat))
        self.seats = seated
        return at

    def _read_hand(self, lines: list[str], at: int, hole_cards: int) -> int:
        dealt = False
        while at < len(lines) and not lines[at].startswith("*** SUMMARY ***"):
            line = lines[at]
            if line.startswith("*** HOLE CARDS ***"):
                dealt = True
            elif street := _STREET.match(line):
                self._end_round()
                self.actions.append(f"d db {''.join(street['cards'].split())}")
            elif line.startswith(("*** FIRST", "*** SECOND")):
                self._refuse(at, "the board was run twice: a record deals one board")
            elif line.startswith("*** "):
                pass  # "*** SHOW DOWN ***": the hands shown follow
            elif dealt_to := _DEALT.match(line):
                self._seat_named(at, dealt_to["name"]).cards = "".join(dealt_to["cards"].split())
            elif returned := _RETURNED.match(line):
                self._seat_named(at, returned["name"]).returned += self._amount(at, returned[1])
            elif collected := _COLLECTED.match(line):
                self._seat_named(at, collected["name"]).collected += self._amount(at, collected[2])
            else:
                self._read_action(at, line, dealt)
            at += 1
        self._end_round()
        self.actions[:0] = [f"d dh p{n + 1} {seat.cards or UNKNOWN_CARD * hole_cards}"
                            for n, seat in enumerate(self.seats)]
        return at

    def _read_action(self, at: int, line: str, dealt: bool) -> None:
        seat = next((s for s in sorted(self.seats, key=lambda s: -len(s.name))
                     if line.startswith(s.name + ": ")), None)
        if seat is None:
            if line.strip() and not any(talk in line for talk in _TABLE_TALK):
                self._refuse(at, f"a line we do not read: {line!r}")
            return
        said = line[len(seat.name) + 2:].removesuffix(" and is all-in").strip()
        player = f"p{self.seats.index(seat) + 1}"
        if said.startswith("posts "):
            self._posted(at, seat, said, dealt)
        elif said == "folds" or said.startswith("folds ["):
            self.actions.append(f"{player} f")
        elif said == "checks":
            self.actions.append(f"{player} cc")
        elif match := re.fullmatch(f"calls {_AMOUNT}", said):
            seat.round_bet += self._amount(at, match[1])
            self.actions.append(f"{player} cc")
        elif match := re.fullmatch(f"bets {_AMOUNT}", said):
            seat.round_bet += self._amount(at, match[1])
            self.actions.append(f"{player} cbr {seat.round_bet}")
        elif match := re.fullmatch(f"raises {_AMOUNT} to {_AMOUNT}", said):
            seat.round_bet = self._amount(at, match[2])
            self.actions.append(f"{player} cbr {seat.round_bet}")
        elif match := re.fullmatch(r"shows \[([^\]]*)\].*", said):
            seat.cards = "".join(match[1].split())
            self.actions.append(f"{player} sm {seat.cards}")
        elif said.startswith("mucks hand"):
            self.actions.append(f"{player} sm")
        elif said in ("doesn't show hand", "sits out", "is sitting out") or said.startswith("said, \""):
            pass
        elif said.startswith("cashed out"):
            self._refuse(at, "a hand cashed out before its end cannot be replayed to its stacks")
        else:
            self._refuse(at, f"an action we do not read: {said!r}")

    def _posted(self, at: int, seat: _Seat, said: str, dealt: bool) -> None:
        if dealt:
            self._refuse(at, "a forced bet after the cards were dealt")
        if match := re.fullmatch(f"posts the ante {_AMOUNT}", said):
            seat.ante += self._amount(at, match[1])
            return
        if match := re.fullmatch(f"posts (small|big) blind {_AMOUNT}", said):
            position = self.seats.index(seat)
            heads_up = len(self.seats) == 2
            expected = {"small": len(self.seats) - 1 if heads_up else 0, "big": 0 if heads_up else 1}[match[1]]
            if position != expected:
                self._refuse(at, f"{seat.name} posts the {match[1]} blind out of position: a record "
                                 "posts the blinds left of the button (heads-up, the button the small)")
            seat.blind = self._amount(at, match[2])
            seat.round_bet += seat.blind
            return
        self._refuse(at, f"a forced bet we do not read ({said!r}): a dead small blind or a blind "
                         "posted out of position")

    def _read_summary(self, lines: list[str], at: int) -> None:
        for line in lines[at:]:
            if rake := _RAKE.match(line):
                self.rake = self._amount(at, rake[2])
                return

    def _end_round(self) -> None:
        for seat in self.seats:
            seat.put_in += seat.round_bet
            seat.round_bet = 0

    # ----------------------------------------------------------------- the record

    def _built(self, header: Any, table: Any, variant: str, small: int, big: int) -> HandHistory:
        seats = self.seats
        count = len(seats)
        antes = [seat.ante for seat in seats]
        nominal_ante = max(antes)
        fixed = variant == "FT"
        # PHH lists the small blind's amount, then the big blind's (heads-up too, where the
        # button posts the small): what was posted, 0 for a blind nobody posted.
        heads_up = count == 2
        small_blind = seats[-1 if heads_up else 0].blind
        big_blind = seats[0 if heads_up else 1].blind
        blinds = [small_blind, big_blind] + [0] * (count - 2)
        if fixed:
            # A limit game's stakes are its small and big bets; the blinds are as posted.
            structure: dict[str, Any] = {"small_bet": small, "big_bet": big}
        else:
            structure = {"min_bet": big}
        finishing = self._finishing_stacks()
        metadata: list[tuple[str, Any]] = [("_source", "PokerStars"), ("hand", int(header["number"])),
                                           ("table", table["table"]), ("seat_count", int(table["seats"])),
                                           ("seats", [seat.seat for seat in seats])]
        if header["tournament"]:
            metadata.append(("_tournament", header["tournament"]))
        if self.cents:
            currency = re.search(r"[A-Z]{3}", header["stakes"])
            metadata.append(("_amounts_in", f"{currency.group(0) if currency else 'currency'} cents"))
        if self.rake:
            metadata.append(("_rake", self.rake))
        try:
            actions = tuple(parse_action(action) for action in self.actions)
        except PhhSyntaxError as error:
            self._refuse(0, str(error))
        return HandHistory(
            variant=variant,
            # Antes are posted whole, or all a short stack has: uniform, trimmed to the stack.
            antes=tuple(nominal_ante for _ in seats), ante_trimming_status=True,
            blinds_or_straddles=tuple(blinds), starting_stacks=tuple(seat.stack for seat in seats),
            actions=actions, players=tuple(seat.name for seat in seats),
            finishing_stacks=tuple(finishing), metadata=tuple(metadata), **structure)

    def _finishing_stacks(self) -> list[int]:
        collected = sum(seat.collected for seat in self.seats)
        rake_back = [0] * len(self.seats)
        if self.rake and collected:
            shares = [self.rake * seat.collected // collected for seat in self.seats]
            first = next(n for n, seat in enumerate(self.seats) if seat.collected)
            shares[first] += self.rake - sum(shares)
            rake_back = shares
        return [seat.stack - seat.ante - seat.put_in + seat.returned + seat.collected + back
                for seat, back in zip(self.seats, rake_back)]

    # ----------------------------------------------------------------- pieces

    def _seat_named(self, at: int, name: str) -> _Seat:
        seat = next((s for s in self.seats if s.name == name), None)
        if seat is None:
            self._refuse(at, f"{name!r} is not dealt in")
        assert seat is not None
        return seat

    def _stakes(self, at: int, stakes: str) -> tuple[int, int]:
        amounts = re.findall(_AMOUNT, stakes)
        if len(amounts) < 2:
            self._refuse(at, f"the stakes {stakes!r} name no small and big amount")
        return self._amount(at, amounts[0]), self._amount(at, amounts[1])

    def _amount(self, at: int, text: str) -> int:
        try:
            value = Decimal(text.replace(",", "")) * (100 if self.cents else 1)
        except InvalidOperation:
            self._refuse(at, f"{text!r} is not an amount")
        if value != value.to_integral_value():
            self._refuse(at, f"{text} is not a whole number of {'cents' if self.cents else 'chips'}")
        return int(value)

    def _refuse(self, index: int, reason: str) -> Any:
        raise PokerStarsError(self.hand.line + index, reason)
