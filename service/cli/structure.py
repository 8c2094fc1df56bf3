"""A tournament's structure file (YAML), as people write it, turned into the body of
`POST /v1/tournaments` (docs/tournament-structure.yaml is an example).

Levels are `{minutes, small_blind, big_blind, ante, big_blind_ante}`; a break is
`{break: MINUTES}`; `payouts` lists each place's percentage (numbers or text, summing
to 100), or each place as the API takes it (`{percent: 25}` or `{amount: 500}`). Any other key is the API's own (starting_stack, starts_at, table_size, ...),
passed as written: the service checks every value and its 400 names the field.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class StructureError(ValueError):
    pass


def tournament_body(path: Path) -> dict[str, Any]:
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise StructureError(f"{path} is not YAML: {error}") from None
    if not isinstance(document, dict):
        raise StructureError(f"{path} must hold a mapping (name:, levels:, payouts: ...)")
    body = dict(document)
    levels = body.pop("levels", None)
    if not isinstance(levels, list) or not levels:
        raise StructureError(f"{path}: `levels` must list the levels and breaks in order")
    body["levels"] = [_period(position, period) for position, period in enumerate(levels, start=1)]
    payouts = body.pop("payouts", None)
    if payouts is not None:
        if not isinstance(payouts, list):
            raise StructureError(f"{path}: `payouts` must list each place's percentage")
        if all(isinstance(p, dict) for p in payouts):
            # The API's own form: {percent: "25"} or {amount: 500} by place.
            body["payouts"] = [{k: str(v) if k == "percent" else v for k, v in p.items()} for p in payouts]
        else:
            body["payout_percentages"] = [str(p) for p in payouts]
    if "starts_at" in body and not isinstance(body["starts_at"], str):
        body["starts_at"] = body["starts_at"].isoformat()  # YAML reads a bare timestamp as one
    return body


def _period(position: int, period: Any) -> dict[str, Any]:
    if not isinstance(period, dict):
        raise StructureError(f"level {position} must be a mapping such as "
                             "{minutes: 20, small_blind: 100, big_blind: 200} or {break: 10}")
    shown = dict(period)
    if "break" in shown and not isinstance(shown["break"], bool):
        shown["minutes"] = shown.pop("break")
        shown["break"] = True
    return shown
