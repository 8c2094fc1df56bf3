"""One hand of five-card draw (five-card-draw.md, seeds 000 Bengali and 004 Indonesian;
betting through domain.rules.betting and domain.rules.pots), in modules by what they hold:

- `commands`: what a caller asks (StartHand, PostAction, Discard, Redeal, the openers' and
  the showdown's commands) and the checks of the decks they carry;
- `events`: what happened, and what each viewer may see of it (`visible_event`);
- `state`: the hand's state (HandState, a view of the draw family's state of the hand),
  its phases and constants;
- `stream`: `evolve(state, event) -> state`, `replay(events) -> state`, `EVENT_TYPES`
  (the game's decider for replay: the registry reads the three from it);
- `engine`: `decide(state, command) -> events` and `handle` (events and the state after):
  five-card draw played in the mixed games' draw family (domain.games.mixed), which
  decides the betting and what follows by itself, in five-card draw's events;
- `decide`: the commands that start and deal a hand (StartHand, Redeal);
- `drawing`: the draw (Discard); `openers`: openers under jacks or better;
- `showdown`: a declared showdown's commands; `legal`: what the player to act may do;
  `computer`: the computer player.

A hand: antes, five cards each dealt one at a time from the left of the dealer, the first
betting round from the left of the dealer, one draw each in turn from the left of the
dealer, the second betting round, the showdown. In no-betting mode: deal, draw, show, and
the best hand (every tied best hand) scores a point.

Where the spec page and the seeds disagree, or are silent, we decide:
- Redeal for want of openers (seeds: "if nobody CAN open"; the spec says "can or does").
  The seeds win: a "no_openers" redeal happens when no player still in held jacks or
  better. When someone held openers but everyone checked, it is an ordinary all-check
  round, and the "second round starts" setting decides as the seeds say: "opener" ->
  redeal with the pot kept, "left_of_dealer" -> on to the draw (`draw_family.redeal_reason`).
- Draw limit 4: the seeds' how-to line names only the ace, their settings rows say "an A
  or a joker"; the settings rows (the more specific text) win: an ace or the joker kept.
- The unit: the seeds say bets and raises "use" a unit of twice the ante, and their
  settings row calls it the minimum bet unit. We read it as the minimum (no-limit and
  pot-limit take any larger whole amount), as the spec page does; fixed-limit bets exactly
  one unit before the draw and two after.
- The "bug" joker is not in the seeds (their only joker is wild); it is the spec page's
  extra option and scores as domain.rules.evaluation's "bug" rule.
- Seeds silent, standard practice: the deal goes one card at a time; an exhausted stub is
  topped up with the discards and folded hands (never the drawing player's own discards);
  the opener's openers are shown at the end of the hand (OpenersShown, public), even when
  the opener folded or won without a showdown.
- Openers (declarations.md; Robert's Rules, draw): an opener who throws away part of the
  openers must declare it (`Discard.split_openers`, else `split_openers_undeclared`); the
  discards kept aside are private to the opener (OpenersSplit) and never reshuffled into
  the stub. An opener whose straight or flush also holds a pair of jacks or better (with
  the joker) keeps openers by keeping that pair: drawing to it is no split.
  A table checks the openers at the bet, so a false open reaches a hand
  only as `OpenWithoutProof` (a ruling describing a live game) and is found by the floor
  (`FalseOpeners`) or at the end of the hand, when the opener must prove the openers.
  The sources leave these open and we decide: nobody else acted after the open -> the
  pot (antes and the opening bet) is carried to the next deal, which deals everyone who
  was in at the open, the false opener too; otherwise the pot plays among the others
  (found after the draw or at the showdown alike), the opener's chips stay in, callers'
  bets stand, and a single remaining caller takes it as the last live hand; when every
  other player folded to the false opener, no live hand is left and the pot is carried.
- Our own rulings: a player may fold when they could check (the betting engine allows
  it); a folded hand is dead for the rest of the hand, redeals included, and its chips
  stay in the pot. When fewer than two players can bet (the others are all-in from the
  antes) an unbet first round is no "all check": the hand goes on to the draw.

The package holds no code of its own: import each name from the module that holds it.
"""
