"""A cash table's settings at creation (`POST /v1/tables` with `cash`): its buy-in limits
and seat count; the seats not taken at creation start empty."""
from __future__ import annotations

from typing import Any

import marshmallow as ma

from domain.live import table, table_commands, table_state
from service.http.problems import validation_problem


class CashSchema(ma.Schema):
    min_buy_in = ma.fields.Integer(strict=True, required=True, validate=ma.validate.Range(min=1),
                                   metadata={"description": "the fewest chips a player sits down with"})
    max_buy_in = ma.fields.Integer(strict=True, required=True, validate=ma.validate.Range(min=1),
                                   metadata={"description": "the most a player sits down with, and the most a "
                                                            "top-up may bring a stack to"})
    seats = ma.fields.Integer(strict=True, required=True,
                              validate=ma.validate.Range(min=table.MIN_SEATS, max=table.MAX_SEATS),
                              metadata={"description": "seats at the table; those not given in `seats` start empty"})


CASH_FIELD = ma.fields.Nested(CashSchema, load_default=None, allow_none=True, metadata={
    "description": "a cash table: players sit down (POST .../seats), top up and stand up between their hands"})


def table_seats(body: dict[str, Any], seats: list[table_commands.TableSeat]) -> tuple[table_commands.TableSeat, ...]:
    """The seats of the new table: a cash table's padded with empty seats to its count
    (it may open with fewer than two players, or none); any other table's as given."""
    cash = body.get("cash")
    if cash is None:
        if len(seats) < table.MIN_SEATS:
            raise validation_problem([{"location": "json", "field": "seats", "messages": [
                f"Length must be between {table.MIN_SEATS} and {table.MAX_SEATS}."]}])
        return tuple(seats)
    if len(seats) > cash["seats"]:
        raise validation_problem([{"location": "json", "field": "seats", "messages": [
            f"{len(seats)} players for {cash['seats']} seats"]}])
    return tuple(seats) + (table_commands.TableSeat(table_state.EMPTY_SEAT, 0),) * (cash["seats"] - len(seats))


def buy_in_limits(body: dict[str, Any]) -> dict[str, int | None]:
    cash = body.get("cash") or {}
    return {"min_buy_in": cash.get("min_buy_in"), "max_buy_in": cash.get("max_buy_in")}
