"""The replayer's ruling form (`POST /floor/hands/{hand_id}/rulings`): the floor records a
ruling on the hand at the step they are looking at (service.application.floor_rulings, as
`POST /v1/hands/{id}/rulings` does), then finds it at that step of the replayer."""
from __future__ import annotations

from typing import Any

from flask import redirect, request, url_for

from domain.rules.violations import Violation
from domain.rulings.on_record import RecordRuling
from service.application import floor_rulings
from service.http.api import application
from service.http.api.tables import actor_name
from service.http.auth import current_principal
from service.http.pages.frame import pages, problem_page
from service.http.pages.replayer import FLOOR_ROLES
from service.http.pages.session import floor_page

FIELDS = ("question", "decision", "rule", "note")


@pages.route("/floor/hands/<string:hand_id>/rulings", methods=["POST"])
@floor_page(roles=FLOOR_ROLES)
def record_hand_ruling(hand_id: str) -> Any:
    subject = floor_rulings.subject_of(hand_id)
    if subject is None:
        return problem_page(404, "unknown_hand", f"no hand {hand_id}")
    principal = current_principal()
    step = request.form.get("step", "")
    version = request.form.get("at_version", "")
    try:
        command = RecordRuling(subject=subject, hand=hand_id, ruled_by=principal.key_id or principal.role,
                               role=principal.role, cards=_cards(request.form.get("cards", "")),
                               at_version=int(version) if version.isdigit() else None,
                               **{name: request.form.get(name, "") for name in FIELDS})
        floor_rulings.record_ruling(application(), command, actor=actor_name(principal))
    except floor_rulings.UnknownHand as unknown:
        return problem_page(404, "unknown_hand", str(unknown))
    except Violation as refused:
        return problem_page(422, refused.code, refused.detail)
    anchor = f"step={int(step) + 1}" if step.isdigit() else ""
    return redirect(url_for("pages.hand_replayer", hand_id=hand_id, _anchor=anchor or None), code=303)


def _cards(text: str) -> tuple[str, ...]:
    """The cards field as typed ("As Kd", "As,Kd"); the domain writes them one way."""
    return tuple(text.replace(",", " ").split())

