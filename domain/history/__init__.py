"""Hand histories: PHH records read, replayed and checked against what they recorded."""
