"""Hold'em and Omaha, five-card draw, Palace Poker and dice poker as live-table games: each
adapter wraps its game's decider so that domain.live.table can seat it (a hand state with
`over`, `to_act` and `stacks`; how a hand starts, how a table action becomes the game's
command, what the computer plays), and says what each viewer may see of its hand: the
view, the public summary, the seats' status and bets, the legal actions, the deal's
check (service.application.views asks the adapter, never the game's type). The mixed
games' adapters (domain.live.mixed, domain.live.rotation) have the same shape.

A module per game (`holdem`, `draw`, `palace`, `dice`), what they share in `common`;
domain.registry registers them.
"""
