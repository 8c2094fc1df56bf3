"""The `cardroom` commands. Each speaks to the service through `Client` and prints a
table for a person, or with --json one JSON document for a script; progress bars go to
stderr, so --json output can be piped. Exit status: 0 done, 1 something was refused or
did not verify, 2 the command could not run (bad input, service unreachable)."""
from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

import click
from rich.console import Console, Group
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from service.cli import hand_import
from service.cli.client import ApiError, Client, HttpTransport, InProcessTransport
from service.cli.structure import StructureError, tournament_body
from service.config import DEFAULT_PORT, SERVICE_URL_FILE

F = TypeVar("F", bound=Callable[..., Any])
KEY_ROLES = ("admin", "organiser", "floor", "player", "spectator")


def _default_key() -> str | None:
    """CARDROOM_KEY, else the admin key `make run` keeps in the data folder."""
    key = os.environ.get("CARDROOM_KEY") or os.environ.get("CARDROOM_ADMIN_KEY")
    if key:
        return key
    path = _data_dir() / "admin-key"
    return path.read_text().strip() if path.is_file() else None


def _data_dir() -> Path:
    return Path(os.environ.get("CARDROOM_DATA_DIR") or ".data")


def default_url() -> str:
    """The local service: the URL `make run` wrote in its data folder, else 127.0.0.1 on
    PORT (the port `make run` takes from it), else on the default port."""
    written = _data_dir() / SERVICE_URL_FILE
    if written.is_file() and written.read_text().strip():
        return written.read_text().strip()
    port = os.environ.get("PORT", "").strip()
    return f"http://127.0.0.1:{port if port.isdigit() else DEFAULT_PORT}"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--url", envvar="CARDROOM_URL", default=None,
              help="the running service (CARDROOM_URL; default: the URL `make run` wrote in "
                   f".data/{SERVICE_URL_FILE}, else 127.0.0.1 on PORT, else on {DEFAULT_PORT})")
@click.option("--key", envvar="CARDROOM_KEY", default=None,
              help="an API key (CARDROOM_KEY; default: .data/admin-key of `make run`)")
@click.option("--database-url", default=None, callback=lambda _context, _option, value: _connection_string(value),
              help="skip the server: run the application in this process on this database "
                   "(any libpq connection string: several hosts, key=value pairs)")
@click.pass_context
def main(context: click.Context, url: str | None, key: str | None, database_url: str | None) -> None:
    """Cardroom's command line: hand-history imports, chain checks, tournaments, keys, status."""
    transport = (InProcessTransport(database_url) if database_url
                 else HttpTransport(url or default_url(), key or _default_key()))
    context.obj = Client(transport)


def _connection_string(value: str | None) -> str | None:
    from service.adapters.connection_strings import problem

    wrong = problem(value) if value else None
    if wrong:
        raise click.BadParameter(f"not a PostgreSQL connection string ({wrong})")
    return value


def json_option(command: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="one JSON document on stdout")(command)


def _out() -> Console:
    return Console(highlight=False, soft_wrap=True)


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), console=Console(stderr=True))


def _emit(as_json: bool, document: Any, table: Table | Group | str) -> None:
    if as_json:
        click.echo(json.dumps(document, indent=2, default=str))
    else:
        _out().print(table)


def _table(title: str, columns: Iterable[str], rows: Iterable[Iterable[Any]]) -> Table:
    table = Table(title=title)
    for column in columns:
        # Ids are shown whole (folded onto a second line), never cut: people copy them.
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*("" if cell is None else str(cell) for cell in row))
    return table


# ------------------------------------------------------------------------------ phh


@main.group()
def phh() -> None:
    """Hand histories in the PHH format."""


@phh.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--no-store", is_flag=True, help="replay only: keep nothing")
@click.option("--format", "file_format", type=click.Choice(hand_import.FORMATS), default="auto",
              show_default=True, help="the files' format: PHH, or a site's hand histories (auto: "
                                      "told by the first line); GGPoker is not read")
@json_option
@click.pass_obj
def phh_import(client: Client, paths: tuple[Path, ...], no_store: bool, file_format: str, as_json: bool) -> None:
    """Replay (and keep) every hand of FOLDER, FILE.phh, FILE.phhs or a site's FILE.txt;
    a summary by variant."""
    files = hand_import.hand_files(list(paths))
    with _progress() as progress:
        task = progress.add_task("importing", total=len(files))
        summary = hand_import.import_files(client, files, not no_store,
                                           lambda n: progress.advance(task, n), file_format)
    columns = ("hands", "replayed", "matched", "stored", "already", "refused")
    counts = {variant: vars(count) for variant, count in sorted(summary.by_variant.items())}
    total = vars(summary.total())
    rows = [[variant, *(count[c] for c in columns)] for variant, count in counts.items()]
    table = _table(f"{len(files)} files", ("variant", *columns), [*rows, ["all", *(total[c] for c in columns)]])
    _emit(as_json, {"files": len(files), "by_variant": counts, "total": total,
                    "refused": [{"hand": s, "reason": r} for s, r in summary.refusals],
                    "not_matched": [{"hand": s, "reason": r} for s, r in summary.mismatches]}, table)
    if not as_json:
        for source, reason in summary.refusals:
            click.echo(f"refused {source}: {reason}", err=True)
        for source, reason in summary.mismatches:
            click.echo(f"not matched {source}: {reason}", err=True)
    sys.exit(1 if summary.refusals or summary.mismatches else 0)


@phh.command("export")
@click.argument("hand_id")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True, path_type=Path), default=None,
              help="write the .phh file here instead of stdout")
@click.pass_obj
def phh_export(client: Client, hand_id: str, output: Path | None) -> None:
    """A finished hand (TABLE_ID.NUMBER, or a stored hand-<uuid>) as PHH: its players by
    name, their ids in `_player_ids`; cards this key may not see are `??`."""
    text = client.call("GET", f"/v1/hands/{quote(hand_id, safe='')}/phh").body.decode()
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------- verify


def _stream_ids(client: Client, prefixes: Iterable[str]) -> list[str]:
    ids: list[str] = []
    for prefix in prefixes:
        after: str | None = ""
        while after is not None:
            page = client.get("/v1/streams?" + urlencode({"prefix": prefix, "after": after}))
            ids += page["streams"]
            after = page["next"]
    return sorted(set(ids))


@main.command()
@click.option("--prefix", "prefixes", multiple=True, help="only streams whose id starts so (repeatable)")
@json_option
@click.pass_obj
def verify(client: Client, prefixes: tuple[str, ...], as_json: bool) -> None:
    """Recompute the hash chain of every stream (or those under --prefix): those of the
    log, and those the listings or the signed public log know (a stream whose events are
    gone fails); each checked against the public log's signed tree too. Exit status 0:
    every chain verifies (warnings allowed, e.g. no signed public log yet); 1: a chain or a
    stream fails; 2: the command could not run."""
    ids = _stream_ids(client, prefixes or ("",))
    results = []
    with _progress() as progress:
        task = progress.add_task("verifying", total=len(ids))
        for stream_id in ids:
            results.append({"stream": stream_id, **client.get(f"/v1/streams/{quote(stream_id, safe='')}/verify")})
            progress.advance(task)
    bad = [r for r in results if not r["ok"]]
    events = sum(r["events"] for r in results)
    # The same warning (no signed public log) comes with every stream: said once, with a count.
    warnings = Counter(w for r in results for w in r.get("warnings", ()))
    table: Table | str = f"{len(ids)} streams, {events} events: every chain verifies"
    if bad:
        table = _table(f"{len(ids)} streams, {events} events: {len(bad)} do not verify",
                       ("stream", "events", "first bad version", "reason"),
                       [[r["stream"], r["events"], r["first_bad_version"], r["reason"]] for r in bad])
    said = [Text(f"warning: {w}" + (f" ({n} streams)" if n > 1 else ""), style="yellow")
            for w, n in sorted(warnings.items())]
    _emit(as_json, {"streams": len(ids), "events": events, "ok": len(ids) - len(bad), "bad": bad,
                    "warnings": sorted(warnings)}, Group(table, *said) if said else table)
    sys.exit(1 if bad else 0)


# ----------------------------------------------------------------------- tournament


@main.group()
def tournament() -> None:
    """Tournaments."""


@tournament.command("create")
@click.argument("structure", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option
@click.pass_obj
def tournament_create(client: Client, structure: Path, as_json: bool) -> None:
    """Create a tournament from a structure file (levels, breaks, payouts: YAML)."""
    try:
        body = tournament_body(structure)
    except StructureError as error:
        raise click.UsageError(str(error)) from None
    created = client.call("POST", "/v1/tournaments", json_body=body).json()
    _emit(as_json, created, f"tournament {created['id']} created (version {created['version']})")


def _tournament_write(client: Client, tournament_id: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    written: dict[str, Any] = client.call("POST", f"/v1/tournaments/{quote(tournament_id, safe='')}/{path}",
                                          json_body=body).json()
    return written


def _written(what: str, written: dict[str, Any]) -> str:
    return f"{what} (version {written['version']}: {', '.join(e['type'] for e in written['events'])})"


@tournament.command("start")
@click.argument("tournament_id")
@json_option
@click.pass_obj
def tournament_start(client: Client, tournament_id: str, as_json: bool) -> None:
    """Start now, early or late: the director's word (organiser, floor or admin)."""
    written = _tournament_write(client, tournament_id, "start", {})
    _emit(as_json, written, _written("started", written))


@tournament.command("eliminate")
@click.argument("tournament_id")
@click.argument("player_id")
@click.option("--busted-by", default=None, help="who busted them (bounties, records)")
@json_option
@click.pass_obj
def tournament_eliminate(client: Client, tournament_id: str, player_id: str, busted_by: str | None,
                         as_json: bool) -> None:
    """A player out, named by the floor (no chip counts needed). In the rebuy period they
    keep the seat until they rebuy, decline, or their time passes."""
    body: dict[str, Any] = {"player_id": player_id, **({"busted_by": busted_by} if busted_by else {})}
    written = _tournament_write(client, tournament_id, "eliminations", body)
    _emit(as_json, written, _written(f"{player_id} out", written))


@tournament.command("rebuy")
@click.argument("tournament_id")
@click.argument("player_id")
@click.option("--double", is_flag=True, help="a double rebuy, where offered")
@click.option("--decline", is_flag=True, help="the busted player declines: out now")
@json_option
@click.pass_obj
def tournament_rebuy(client: Client, tournament_id: str, player_id: str, double: bool, decline: bool,
                     as_json: bool) -> None:
    """A rebuy (or, with --decline, a busted player's refusal of one)."""
    if decline:
        written = _tournament_write(client, tournament_id, "rebuys/decline", {"player_id": player_id})
    else:
        written = _tournament_write(client, tournament_id, "rebuys", {"player_id": player_id, "double": double})
    _emit(as_json, written, _written(f"{player_id}: {'declined' if decline else 'rebuy'}", written))


@tournament.command("undo")
@click.argument("tournament_id")
@json_option
@click.pass_obj
def tournament_undo(client: Client, tournament_id: str, as_json: bool) -> None:
    """Undo the last elimination, rebuy or clock change, while nothing depends on it."""
    written = _tournament_write(client, tournament_id, "undo", {})
    _emit(as_json, written, _written("undone", written))


@tournament.command("moves")
@click.argument("tournament_id")
@click.option("--seated", "move_id", type=int, default=None, help="confirm this move's player seated")
@json_option
@click.pass_obj
def tournament_moves(client: Client, tournament_id: str, move_id: int | None, as_json: bool) -> None:
    """Moves to call out, one a line: "Ann Duke: table 3 seat 4 -> table 1 seat 2" (seats
    from 1), pending ones first; --seated confirms one."""
    if move_id is not None:
        written = _tournament_write(client, tournament_id, f"moves/{move_id}/seated", {})
        _emit(as_json, written, _written(f"move {move_id} seated", written))
        return
    moves = client.get(f"/v1/tournaments/{quote(tournament_id, safe='')}/moves")
    lines = [f"{m['move_id']}. {m.get('name') or m['player_id']}: table {m['from_table']} seat {m['from_seat']} -> "
             f"table {m['to_table']} seat {m['to_seat']}{' (pending)' if m['pending'] else ''}"
             for m in moves["pending"] + [m for m in moves["recent"] if not m["pending"]]]
    _emit(as_json, moves, "\n".join(lines) or "no moves")


EXPORTS = ("results", "seating", "payouts", "bounties", "reconciliation")


@tournament.command("export")
@click.argument("tournament_id")
@click.option("--csv", "csv_of", type=click.Choice(EXPORTS), is_flag=False, flag_value="results", default=None,
              help="CSV of the results (default), the seating, the payouts, the bounties or the "
                   "reconciliation, instead of JSON")
@click.pass_obj
def tournament_export(client: Client, tournament_id: str, csv_of: str | None) -> None:
    """A tournament as JSON (its view), or one of its CSV exports."""
    if csv_of:
        click.echo(client.call("GET", f"/v1/tournaments/{tournament_id}/{csv_of}.csv").body.decode(), nl=False)
    else:
        click.echo(json.dumps(client.get(f"/v1/tournaments/{tournament_id}"), indent=2))


# ----------------------------------------------------------------------------- keys


@main.group()
def keys() -> None:
    """API keys (admin)."""


def _key_rows(client: Client, listed: Iterable[dict[str, Any]]) -> list[list[Any]]:
    names: dict[str, str] = {}
    for key in listed:
        if key["player_id"] and key["player_id"] not in names:
            names[key["player_id"]] = _player_name(client, key["player_id"])
    return [[k["id"], k["role"], names.get(k["player_id"]), k["created_at"], k["revoked_at"]] for k in listed]


def _player_name(client: Client, player_id: str) -> str:
    """"Ann Duke (id)": the name people know, with the id the commands take."""
    try:
        name = client.get(f"/v1/players/{quote(player_id, safe='')}").get("name")
    except ApiError:
        name = None
    return f"{name} ({player_id})" if name else player_id


KEY_COLUMNS = ("id", "role", "player", "created", "revoked")


@keys.command("issue")
@click.argument("role", type=click.Choice(KEY_ROLES))
@click.option("--player", "player_id", default=None, help="the player, for a player key")
@json_option
@click.pass_obj
def keys_issue(client: Client, role: str, player_id: str | None, as_json: bool) -> None:
    """Issue a key; its secret is shown this once."""
    issued = client.call("POST", "/v1/keys", json_body={"role": role, "player_id": player_id}).json()
    _emit(as_json, issued, f"key {issued['id']} ({role}): {issued['key']}\n(shown once: keep it now)")


@keys.command("revoke")
@click.argument("key_id")
@json_option
@click.pass_obj
def keys_revoke(client: Client, key_id: str, as_json: bool) -> None:
    """Revoke a key: within a second every worker refuses it."""
    revoked = client.call("DELETE", f"/v1/keys/{key_id}").json()
    _emit(as_json, revoked, f"key {revoked['id']} revoked at {revoked['revoked_at']}")


@keys.command("list")
@json_option
@click.pass_obj
def keys_list(client: Client, as_json: bool) -> None:
    """Every key issued, oldest first (never their secrets)."""
    listed: list[dict[str, Any]] = []
    after = ""
    while True:
        page = client.get("/v1/keys?limit=100" + (f"&after={after}" if after else ""))
        listed += page["keys"]
        if not page["next"]:
            break
        after = page["next"]
    _emit(as_json, listed, _table(f"{len(listed)} keys", KEY_COLUMNS, _key_rows(client, listed)))


# ------------------------------------------------------------------------- data key


@main.group("data-key")
def data_key() -> None:
    """The key secrets at rest are sealed under (this host's files: no service is called)."""


@data_key.command("new")
def data_key_new() -> None:
    """Seal new secrets under a new data key; the current one is retired, kept to open what it sealed."""
    import secrets

    from service.adapters.integrity import RETIRED_DATA_KEYS, rotate_data_key
    from service.adapters.store.cipher import key_id
    from service.config import Config

    config = Config.from_env()
    if config.data_key:  # the key is the environment's: only its owner can change it
        new = secrets.token_hex(32)
        old = key_id(bytes.fromhex(config.data_key))
        click.echo(f"new data key {key_id(bytes.fromhex(new))} (shown once: keep it now):\n{new}\n"
                   f"On every host of this database: set CARDROOM_DATA_KEY to it, add the current key "
                   f"({old}) to CARDROOM_DATA_KEYS_OLD (comma-separated), then restart the app and the workers.")
    else:
        old, new = rotate_data_key(config)
        click.echo(f"data key {new} now seals new secrets ({config.data_dir / 'data-key'}); the retired key {old} "
                   f"only opens what it sealed ({config.data_dir / RETIRED_DATA_KEYS / old}).\n"
                   "Copy both files to every host of this database, then restart the app and the workers.")
    click.echo("Until every process is restarted, one still on the old ring refuses what the new key sealed "
               "(409 integrity_failure naming the key). Keep the retired key as long as any row it sealed is "
               "kept: without it those rows do not open. Rotation protects new secrets only: whoever holds "
               "the retired key still opens the rows it sealed.")


@data_key.command("list")
@click.option("--database-url", envvar="DATABASE_URL", required=True,
              callback=lambda _context, _option, value: _connection_string(value),
              help="the database whose stored secrets are counted (DATABASE_URL)")
@json_option
def data_key_list(database_url: str, as_json: bool) -> None:
    """The keys of this host's ring beside those the stored secrets were sealed under (a scan
    of the whole log); exit status 1 when a key that sealed stored values is not in the ring."""
    import psycopg

    from service.adapters.integrity import data_cipher
    from service.adapters.store.cipher import UNNAMED_KEY
    from service.adapters.store.sealing_keys import sealed_values_by_key
    from service.config import Config

    ring = data_cipher(Config.from_env())
    with psycopg.connect(database_url) as connection:
        used = sealed_values_by_key(connection)
    role = {key: "retired (opens only)" for key in ring.key_ids} | {ring.current_key: "current (seals)",
                                                                    UNNAMED_KEY: "first format (any key of the ring)"}
    keys = [{"key": key, "ring": role.get(key, "NOT IN THE RING: its values are refused"),
             "sealed_values": used.get(key, 0)} for key in dict.fromkeys([*ring.key_ids, *used])]
    _emit(as_json, keys, _table("data keys", ("key", "ring", "sealed values"),
                                [[k["key"], k["ring"], f"{k['sealed_values']:,}"] for k in keys]))
    if any(key not in role for key in used):
        raise SystemExit(1)


# --------------------------------------------------------------------------- status


@main.command()
@json_option
@click.pass_obj
def status(client: Client, as_json: bool) -> None:
    """What runs: health, queue depth, overdue clocks, tournaments not finished."""
    now = client.get("/v1/status")
    summary = (f"{now['status']}: database {now['database']}, broker {now['broker']}, "
               f"queue depth {now['queue_depth']}, clocks overdue {now['clocks_due']}")
    table: Table | str = f"{summary}\nno tournament is registering or running"
    if now["tournaments"]:
        table = _table(summary, ("tournament", "name", "status", "players left", "level"),
                       [[t["id"], t["name"], t["status"], t["players_left"], t["level"]]
                        for t in now["tournaments"]])
    refused = [Text(f"unreadable: {t.get('kind', 'tournament')} {t['id']} at version {t['version']}: {t['reason']}")
               for t in now.get("unreadable", ())]
    refused += [Text(f"integrity failure: {t['kind']} {t['id']} at version {t['version']}: {t['reason']}")
                for t in now.get("integrity_failures", ())]
    refused += [Text(f"refused row of {row['table']}: {row['row']} (its MAC does not verify: written "
                     "in the database, not by the service)") for row in now.get("refused_rows", ())]
    shown = [*_database_server(now.get("database_server")), table, *_public_log(now.get("public_log")),
             *_data_keys(now.get("data_keys")), *refused]
    _emit(as_json, now, Group(*shown))


def _data_keys(ring: dict[str, Any] | None) -> list[Text]:
    """The serving process's data keys, by id: after a rotation, whether it was restarted on the new ring."""
    if ring is None:
        return []
    return [Text(f"data key sealing new secrets: {ring['sealing']}; retired keys it opens with: "
                 f"{', '.join(ring['retired']) or 'none'} (`cardroom data-key list` counts what each sealed)")]


def _public_log(log: dict[str, Any] | None) -> list[Text]:
    """The public log's integrator and witnesses, a line."""
    if log is None:
        return []
    witnesses = ", ".join("never" if w["last_cosigned_s_ago"] is None else f"{w['last_cosigned_s_ago']:g} s ago"
                          for w in log["witnesses"]) or "none"
    return [Text(f"public log: {log['tree_size']:,} leaves, checkpoint of {log['checkpoint_size'] or 0:,}, "
                 f"{log['backlog']:,} events to integrate; witnesses last cosigned: {witnesses}")]


def _database_server(server: dict[str, Any] | None) -> list[Any]:
    """The server reached (primary or standby), the lag, and a table of its standbys."""
    if server is None:
        return []
    role = "a STANDBY (in recovery: writes are refused)" if server["in_recovery"] else "the primary"
    seen_as = f" (the server says {server['server_address']})" if server["server_address"] else ""
    lag = "no standby" if server["lag_s"] is None else (
        f"lag {server['lag_s']:g} s" + ("" if server["lag_bytes"] is None else f", {server['lag_bytes']:,} bytes"))
    line = Text(f"database: {server['host']}:{server['port']}{seen_as} is {role}; "
                f"{len(server['standbys'])} standby(s), {server['synchronous_standbys']} synchronous; {lag}")
    if not server["standbys"]:
        return [line]
    standbys = _table("standbys (pg_stat_replication)",
                      ("name", "address", "state", "sync", "replay lag s", "replay lag bytes"),
                      [[s["application_name"], s["client_addr"], s["state"], s["sync_state"], s["replay_lag_s"],
                        s["replay_lag_bytes"]] for s in server["standbys"]])
    return [line, standbys]


_PASSED_ON = {"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []}


@main.command("log", context_settings=_PASSED_ON)
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED)
def public_log(arguments: tuple[str, ...]) -> None:
    """Check the public log offline, with its public keys alone (service/public_log_verifier.py):
    `verify-proof PROOF EVENT --log-key VKEY [--witness VKEY] [--min-witnesses K]`, or
    `monitor URL --log-key VKEY [--state FILE] [--full] [--every S]` (`log -h` says more)."""
    from service import public_log_verifier

    raise SystemExit(public_log_verifier.main(list(arguments) or ["-h"]))


@main.command(context_settings=_PASSED_ON)
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED)
def witness(arguments: tuple[str, ...]) -> None:
    """Run a witness of the public log (C2SP tlog-witness): `--log-key VKEY [--port P]
    [--state-dir DIR] [--name NAME] [--print-key]` (service/witness.py)."""
    from service import witness as witness_server

    raise SystemExit(witness_server.main(list(arguments)))


def run() -> None:
    """The console script: a refusal or an unreachable service is a message, not a traceback."""
    try:
        main(standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.ClickException as error:
        error.show()
        sys.exit(2)
    except click.exceptions.Abort:
        sys.exit(130)
    except (ApiError, ConnectionError) as error:
        click.echo(f"cardroom: {error}", err=True)
        sys.exit(2)
