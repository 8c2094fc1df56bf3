"""The rules of play every game shares: cards, hand values, betting limits, pots,
showdowns, declarations, and the rulings a floor person asks for."""
