"""Which data keys the stored secrets were sealed under (service.adapters.store.cipher names
the key in each ciphertext), counted over every event's data and sealed fields and every
snapshot: `cardroom data-key list` sets them beside the host's key ring, so that a retired
key is kept while anything it sealed is stored, and a key a host lacks is seen before a
read is refused. One read-only statement, but a scan of the whole log: an operator's
question, not a status line."""
from __future__ import annotations

from typing import Any

from service.adapters.store.cipher import KEY_ID_HEX, PREFIX, UNNAMED_KEY, UNNAMED_PREFIX

_COUNTED = """
WITH stored(value) AS (
    SELECT field.value FROM events, jsonb_each_text(events.data) AS field WHERE jsonb_typeof(events.data) = 'object'
    UNION ALL
    SELECT field.value FROM events, jsonb_each_text(events.sealed) AS field WHERE jsonb_typeof(events.sealed) = 'object'
    UNION ALL
    SELECT body FROM snapshots
)
SELECT CASE WHEN starts_with(value, %(named)s) THEN substr(value, %(id_from)s, %(id_length)s) ELSE %(unnamed)s END,
       count(*)
  FROM stored
 WHERE starts_with(value, %(named)s) OR starts_with(value, %(unnamed_prefix)s)
 GROUP BY 1
 ORDER BY 1
"""


def sealed_values_by_key(connection: Any) -> dict[str, int]:
    """Key id (UNNAMED_KEY for values of the first format, which name none) -> how many
    stored values it sealed."""
    rows = connection.execute(_COUNTED, {
        "named": PREFIX, "id_from": len(PREFIX) + 1, "id_length": KEY_ID_HEX,
        "unnamed": UNNAMED_KEY, "unnamed_prefix": UNNAMED_PREFIX}).fetchall()
    return {key: count for key, count in rows}
