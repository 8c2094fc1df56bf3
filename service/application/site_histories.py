"""Hand histories from the sites players play on, read into our PHH records
(domain.history.phh) so that each hand replays through our rules like any PHH hand.

Which site wrote a text is told by its first line (each site opens a hand its own way), or
named (`pokerstars`, `fulltilt`, `partypoker`, `ipoker`, `ongame`, `absolute`). A file of
many is cut at each hand's opening line and every hand read on its own: one that cannot be
read is refused with the line of the file and why (`UnreadableHand`).

PokerStars is read by domain.history.pokerstars, which reads more than PokerKit's
PokerStars parser does (limit and pot limit, the four-card game, tournaments' antes, the rake given
back, refusals at the line at fault; PokerKit 0.7.7 reads only no-limit hold'em without
antes). The other sites are read by PokerKit's own parsers (pokerkit.notation: no-limit
hold'em, as PokerKit reads them), whose hands PokerKit writes as PHH and
domain.history.phh reads back: PokerKit stays here, out of domain/. Cash games' amounts
become cents (`_amounts_in`), tournaments' stay chips. GGPoker's histories (and the ACPC
bots' protocol logs) are not read.
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from pokerkit.notation import AbsolutePokerParser, FullTiltPokerParser, IPokerNetworkParser, OngameNetworkParser, PartyPokerParser, REParser

from domain.history import pokerstars
from domain.history.phh import HandHistory, PhhSyntaxError, UnreadableHand, parse

# Each site PokerKit reads: its name in Cardroom, its own name, its parser, and the line
# a hand of it opens with (PokerKit's own hand pattern's opening).
_POKERKIT_SITES: dict[str, tuple[str, REParser, re.Pattern[str]]] = {
    "fulltilt": ("Full Tilt Poker", FullTiltPokerParser(), re.compile(r"^Full Tilt Poker Game #", re.MULTILINE)),
    "ipoker": ("iPoker", IPokerNetworkParser(), re.compile(r"^<game gamecode=\"", re.MULTILINE)),
    "ongame": ("Ongame", OngameNetworkParser(), re.compile(r"^\*\*\*\*\* History for hand ", re.MULTILINE)),
    "partypoker": ("PartyPoker", PartyPokerParser(), re.compile(r"^Game #", re.MULTILINE)),
    "absolute": ("Absolute Poker", AbsolutePokerParser(), re.compile(r"^Stage #", re.MULTILINE)),
}
FORMATS = (pokerstars.FORMAT, *_POKERKIT_SITES)
SITE_NAMES = {pokerstars.FORMAT: "PokerStars", **{site: name for site, (name, _, _) in _POKERKIT_SITES.items()}}
_HAND_NUMBER = re.compile(r"(?:#|gamecode=\"|History for hand )([\w-]+)")
_CURRENCIES = {"$": "USD", "€": "EUR", "£": "GBP"}
__all__ = ["FORMATS", "SITE_NAMES", "SiteHand", "format_of", "hands_in", "to_record"]


@dataclass(frozen=True)
class SiteHand:
    """One hand of a site's file, not yet read."""
    site: str
    number: str
    line: int
    """The line of the hand's opening in the file, from 1."""
    text: str
    stars: pokerstars.StarsHand | None = None

    @property
    def variant(self) -> str:
        """The PHH variant code the hand reads as ("?" for a game we do not read)."""
        if self.stars is not None:
            return self.stars.variant
        _, parser, _ = _POKERKIT_SITES[self.site]
        found = parser.VARIANT.search(self.text)
        return parser.VARIANTS.get(found["variant"], "?") if found else "?"


def format_of(text: str) -> str | None:
    """The site whose hand history the text is (told by its first line), if any."""
    if pokerstars.is_pokerstars(text):
        return pokerstars.FORMAT
    first = text.lstrip("\ufeff \t\r\n")
    return next((site for site, (_, _, opening) in _POKERKIT_SITES.items() if opening.match(first)), None)


def hands_in(text: str, site: str) -> tuple[SiteHand, ...]:
    """The file's hands in file order (none when no hand of `site` opens a line)."""
    if site == pokerstars.FORMAT:
        return tuple(SiteHand(site, hand.number, hand.line, hand.text, hand) for hand in pokerstars.hands_in(text))
    _, _, opening = _POKERKIT_SITES[site]
    starts = [m.start() for m in opening.finditer(text)]
    hands = []
    for start, end in zip(starts, [*starts[1:], len(text)]):
        body = text[start:end].rstrip() + "\n"
        number = _HAND_NUMBER.search(body.partition("\n")[0])
        hands.append(SiteHand(site, number.group(1) if number else "?", text.count("\n", 0, start) + 1, body))
    return tuple(hands)


def to_record(hand: SiteHand) -> HandHistory:
    """The hand as a PHH record; raises UnreadableHand (domain.history.phh) naming the
    file's line."""
    if hand.stars is not None:
        return pokerstars.to_record(hand.stars)
    name, parser, _ = _POKERKIT_SITES[hand.site]
    # A cash game's stacks are written in money (PokerKit's own pattern of the stacks'
    # currency symbol), a tournament's in chips.
    stacks_in = parser.VARIABLES["currency_symbol"][0].search(hand.text)
    currency = stacks_in["currency_symbol"] if stacks_in and stacks_in["currency_symbol"] in _CURRENCIES else None
    try:
        with warnings.catch_warnings():
            # PokerKit warns of the fields it writes that the standard does not name
            # (`time_zone_abbreviation`); domain.history.phh keeps them as metadata.
            warnings.simplefilter("ignore")
            # PokerKit's parser of one hand (its public call prints a traceback to stderr
            # before raising, and hides the reason): PokerKit is pinned to the version read.
            # Its hand patterns end at two blank lines.
            read = parser._parse(hand.text + "\n\n\n", _amount_reader(currency is not None))
            record = parse(read.dumps())
    except (KeyError, ValueError, IndexError, PhhSyntaxError) as error:
        raise UnreadableHand(hand.line, f"PokerKit's {name} reader could not read the hand "
                                        f"({type(error).__name__}: {error})") from None
    if not all(isinstance(amount, int) for amount in record.starting_stacks):
        raise UnreadableHand(hand.line, "an amount that is not a whole number of cents or chips")
    metadata = [("_source", name), *((key, value) for key, value in record.metadata if key != "currency_symbol")]
    if currency is not None:
        metadata.append(("_amounts_in", f"{_CURRENCIES[currency]} cents"))
    return replace(record, metadata=tuple(metadata))


def _amount_reader(cents: bool) -> Callable[[str], int]:
    """PokerKit's value parser for the hand's amounts: cents of a cash game, or chips."""
    def amount(text: str) -> int:
        try:
            value = Decimal(text.replace(",", "")) * (100 if cents else 1)
        except InvalidOperation:
            raise ValueError(f"{text!r} is not an amount") from None
        if value != value.to_integral_value():
            raise ValueError(f"{text} is not a whole number of {'cents' if cents else 'chips'}")
        return int(value)
    return amount
