"""The rulings a floor person asks for (POST /v1/rulings/*): each replays the situation
through the game it judges (domain.games, domain.history's recorded decks), so they sit
above the games, and the rules (domain.rules) import nothing from here."""
