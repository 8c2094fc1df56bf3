"""The layers' rules, read from the source (every import, at any depth, TYPE_CHECKING ones
included, since each names a dependency):
- domain imports only the standard library and domain;
- service never imports workers (workers implement what service.application.scheduling asks);
- service.application never imports service.http; service.adapters never imports
  service.http (HTTP is the outermost layer);
- service.http never imports service.adapters: it speaks to the application alone
  (service.application re-exports what it needs of the store, and owns the idempotent
  write's transaction and the live feeds);
- the workers, and every module they import at any remove, never import Flask, its
  extensions (flask_smorest, marshmallow, webargs) or service.http: a Celery process is
  wired by service.wiring, not by the web's service.bootstrap;
- inside domain, from the floor up: `rules` (cards, evaluation, betting, pots,
  declarations) imports none of the packages above it; `games` (the deciders) stands on
  `rules`; `history` (PHH) on `games`; `rulings` (the floor's answers, which replay the games
  and PHH's recorded decks) and `live` (the tables) on those, never on each other; the
  registry on all of those but `live.table`, which reads it; `ratings` and `players` on
  `rules` alone, `tournaments` on `rules` and `ratings`;
- no module of domain/ imports a private (`_`) name of another: what two modules share is
  public in the lower one;
- no modules of domain/ or service/ import each other in a cycle, counting function-level
  and TYPE_CHECKING imports (a cycle so closed is still a cycle: the shared piece moves
  down, or the dispatch moves up);
and no module of service/ or workers/ keeps mutable state of its own (a cache, a registry,
a global filled at import): what lives as long as the process is built once by
service.wiring (service.bootstrap for the Flask app) and handed on.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("domain", "service", "workers")


def modules(package: str) -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(module: str, path: Path) -> set[str]:
    """Every module `module` imports, relative imports resolved."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            # `from service.application import commands` imports service.application.commands
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_nodes(path: Path) -> list[ast.Import | ast.ImportFrom]:
    return [node for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, (ast.Import, ast.ImportFrom))]


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def graph() -> dict[str, set[str]]:
    every = {}
    for package in PACKAGES:
        every.update(modules(package))
    return {module: imported(module, path) for module, path in every.items()}


GRAPH = graph()


def breaking(importer: str, forbidden: str) -> list[str]:
    return sorted(f"{module} imports {name}" for module, names in GRAPH.items() if within(module, importer)
                  for name in names if within(name, forbidden))


def test_the_graph_was_read():
    assert "service.application.handling" in GRAPH["service.application.commands"]
    assert "domain.live.table" in GRAPH["domain.live.games"] or "domain.live" in {
        n.rpartition(".")[0] for n in GRAPH["domain.live.table"]}


def test_domain_imports_only_the_standard_library_and_itself():
    outside = sorted(f"{module} imports {name}" for module, names in GRAPH.items() if within(module, "domain")
                     for name in names
                     if not within(name, "domain") and name.split(".")[0] not in sys.stdlib_module_names
                     and name != "__future__" and not name.startswith("__future__."))
    assert outside == []


@pytest.mark.parametrize(("importer", "forbidden"), [
    ("service", "workers"),
    ("service.application", "service.http"),
    ("service.adapters", "service.http"),
    ("service.http", "service.adapters"),
    ("domain", "service"),
    ("domain", "workers"),
    *[("domain.rules", above) for above in ("domain.games", "domain.history", "domain.live", "domain.rulings",
                                            "domain.tournaments", "domain.registry")],
    *[("domain.games", above) for above in ("domain.history", "domain.live", "domain.rulings", "domain.registry")],
    *[("domain.history", above) for above in ("domain.live", "domain.rulings", "domain.registry")],
    ("domain.rulings", "domain.live"),
    ("domain.rulings", "domain.registry"),
    ("domain.live", "domain.rulings"),
    *[(floor, above) for floor in ("domain.tournaments", "domain.ratings", "domain.players")
      for above in ("domain.games", "domain.history", "domain.live", "domain.rulings", "domain.registry")],
])
def test_a_layer_never_imports_the_layers_above_it(importer, forbidden):
    assert breaking(importer, forbidden) == []


WEB_ONLY = ("flask", "flask_smorest", "flask_swagger_ui", "marshmallow", "webargs", "werkzeug", "service.http",
            "service.bootstrap")


def loaded_by(importer: str) -> dict[str, str]:
    """Every module of the project that importing the modules of `importer` loads, at any
    remove (an imported module's packages with it), each with the module that imports it
    first; and every outside module they import, with its importer."""
    loaded: dict[str, str] = {}
    waiting = [module for module in GRAPH if within(module, importer)]
    while waiting:
        module = waiting.pop()
        for name in sorted(GRAPH[module]):
            parts = name.split(".")
            for depth in range(1, len(parts) + 1):
                package = ".".join(parts[:depth])
                if package in loaded or within(package, importer):
                    continue
                if package in GRAPH:
                    loaded[package] = module
                    waiting.append(package)
                elif depth == 1 or ".".join(parts[:depth - 1]) not in GRAPH:
                    loaded[package] = module
    return loaded


def test_the_workers_never_load_flask_or_the_http_layer():
    assert "service.application.commands" in loaded_by("workers")
    found = sorted(f"{importer} imports {name}" for name, importer in loaded_by("workers").items()
                   if any(within(name, web) for web in WEB_ONLY))
    assert found == []


def private_names_imported(module: str, path: Path) -> list[str]:
    return sorted(f"{module} imports {alias.name} from {'.' * node.level}{node.module or ''}"
                  for node in import_nodes(path)
                  if isinstance(node, ast.ImportFrom) and node.module != "__future__"
                  for alias in node.names if alias.name.startswith("_"))


def test_no_module_of_the_domain_imports_a_private_name_of_another():
    assert [found for module, path in modules("domain").items()
            for found in private_names_imported(module, path)] == []


def module_graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    """Module -> the modules of `packages` it imports, at any depth of the file: `from a
    import b` is an arrow to the module a.b when there is one, else to a (importing a.b.c
    runs a's __init__ first, but a package that imports its own modules is no cycle)."""
    every: dict[str, Path] = {}
    for package in packages:
        every.update(modules(package))
    graph: dict[str, set[str]] = {}
    for module, path in every.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        arrows = set()
        for node in import_nodes(path):
            if isinstance(node, ast.Import):
                arrows.update(alias.name for alias in node.names)
                continue
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            arrows.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in every else base
                          for alias in node.names)
        graph[module] = {name for name in arrows if name in every and name != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative: each module's arrows walked from a stack)."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    path: list[str] = []
    on_path: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        walk = [(root, iter(sorted(graph[root])))]
        index[root] = lowest[root] = len(index)
        path.append(root)
        on_path.add(root)
        while walk:
            module, arrows = walk[-1]
            following = next(arrows, None)
            if following is None:
                walk.pop()
                if walk:
                    lowest[walk[-1][0]] = min(lowest[walk[-1][0]], lowest[module])
                if lowest[module] == index[module]:
                    component = []
                    while True:
                        member = path.pop()
                        on_path.discard(member)
                        component.append(member)
                        if member == module:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif following not in index:
                index[following] = lowest[following] = len(index)
                path.append(following)
                on_path.add(following)
                walk.append((following, iter(sorted(graph[following]))))
            elif following in on_path:
                lowest[module] = min(lowest[module], index[following])
    return sorted(found)


def test_no_modules_of_the_domain_or_the_service_import_each_other_in_a_cycle():
    assert cycles(module_graph(("domain", "service"))) == []


def test_the_cycle_check_sees_a_cycle_closed_inside_a_function(tmp_path, monkeypatch):
    package = tmp_path / "sample"
    package.mkdir()
    (package / "__init__.py").write_text("from sample import low, high\n")
    (package / "low.py").write_text("def later():\n    from sample.high import top\n    return top\n")
    (package / "high.py").write_text("from sample.low import later\n\ntop = later\n")
    (package / "alone.py").write_text("from . import low\nfrom .low import _kept, later\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert cycles(module_graph(("sample",))) == [["sample.high", "sample.low"]]
    assert private_names_imported("sample.alone", package / "alone.py") == ["sample.alone imports _kept from .low"]


# Module-level names whose value is a container the module then changes: state that
# outlives every request and every test, shared by whatever imported the module.
MUTABLE_FACTORIES = {"dict", "list", "set", "OrderedDict", "defaultdict", "deque", "WeakKeyDictionary",
                     "WeakValueDictionary", "WeakSet", "Counter"}
MUTATORS = {"append", "extend", "add", "update", "setdefault", "pop", "popitem", "clear", "remove",
            "insert", "discard", "move_to_end", "__setitem__"}
PROCESS_CACHES = {"lru_cache", "cache", "cached_property"}
KNOWN_OFFENDERS: list[str] = []


def module_state(module: str, path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    # Instances of the module's own classes, but for values (frozen dataclasses) and
    # sentinels (no methods).
    local_classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)
                     and not any("frozen" in ast.unparse(d) for d in node.decorator_list)
                     and any(isinstance(item, ast.FunctionDef) for item in node.body)}
    containers = set()
    found = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else []
        value = getattr(node, "value", None)
        if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
                isinstance(value, ast.Call) and _called(value.func) in MUTABLE_FACTORIES):
            containers.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(value, ast.Call) and (_called(value.func) in local_classes
                                              or _called(value.func).endswith(("Cache", "Registry"))):
            found.extend(f"{module}.{t.id} holds a {_called(value.func)}" for t in targets if isinstance(t, ast.Name))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.extend(f"{module}.{node.name} caches per process" for d in node.decorator_list
                         if _called(d.func if isinstance(d, ast.Call) else d) in PROCESS_CACHES)
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.extend(f"{module}: global {name}" for name in node.names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            found.extend(f"{module}.{t.value.id} is changed" for t in targets
                         if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in containers)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in MUTATORS and isinstance(node.func.value, ast.Name) and node.func.value.id in containers:
            found.append(f"{module}.{node.func.value.id} is changed")
    return sorted(set(found))


def _called(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def test_no_module_of_service_or_workers_keeps_mutable_state():
    found = [offence for package in ("service", "workers") for module, path in modules(package).items()
             for offence in module_state(module, path)]
    assert found == KNOWN_OFFENDERS


def test_the_state_check_sees_a_cache_and_a_registry(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from functools import lru_cache\n_seen = {}\n_hooks: list = []\n"
                      "def note(k):\n    _seen[k] = 1\n\ndef hook(f):\n    _hooks.append(f)\n"
                      "@lru_cache(maxsize=1)\ndef pool():\n    return 1\n"
                      "class _Tables:\n    def put(self):\n        pass\n_tables = _Tables()\n")
    assert module_state("sample", sample) == ["sample._hooks is changed", "sample._seen is changed",
                                              "sample._tables holds a _Tables", "sample.pool caches per process"]
