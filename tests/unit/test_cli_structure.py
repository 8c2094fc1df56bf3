"""A structure file's payouts: percentages as numbers, or places as the API takes them."""
from __future__ import annotations

from pathlib import Path

from service.cli.structure import tournament_body

LEVELS = "levels:\n  - {minutes: 20, small_blind: 25, big_blind: 50}\n"


def test_payouts_as_percentages_or_as_fixed_amounts(tmp_path: Path) -> None:
    percentages = tmp_path / "percent.yaml"
    percentages.write_text(LEVELS + "payouts: [65, 35]\n")
    assert tournament_body(percentages)["payout_percentages"] == ["65", "35"]
    fixed = tmp_path / "fixed.yaml"
    fixed.write_text(LEVELS + "payouts: [{amount: 500}, {amount: 300}]\nfee: 10\nguarantee: 1000\n")
    body = tournament_body(fixed)
    assert body["payouts"] == [{"amount": 500}, {"amount": 300}] and "payout_percentages" not in body
    assert (body["fee"], body["guarantee"]) == (10, 1000)
    places = tmp_path / "places.yaml"
    places.write_text(LEVELS + "payouts: [{percent: 60}, {percent: 40.5}]\n")
    assert tournament_body(places)["payouts"] == [{"percent": "60"}, {"percent": "40.5"}]
