"""The live table: seats, hands in turn, the games it deals (one adapter each), the
clocks' computer player and the mixed-game rotation."""
