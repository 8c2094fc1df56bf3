"""The processes a test started, read from Linux's /proc: its process tree, and whether a
process seen earlier still runs (told from a later one that reuses its pid)."""
from __future__ import annotations

from pathlib import Path


def process_start_time(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat: tells a process from a later one reusing its pid."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def is_running(pid: int, start_time: str) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z" and process_start_time(pid) == start_time


def parents() -> dict[int, int]:
    """Every process's parent, pid -> parent pid."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            found[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return found


def process_tree(root: int) -> set[int]:
    """`root` and every process below it, now."""
    parent_of = parents()
    tree = {root}
    grew = True
    while grew:
        children = {pid for pid, parent in parent_of.items() if parent in tree} - tree
        tree |= children
        grew = bool(children)
    return tree
