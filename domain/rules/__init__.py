"""The rules of play every game shares: cards, hand values, betting limits, pots,
showdowns and declarations. The rulings a floor person asks for replay the games and
live above them, in domain.rulings."""
