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


# Module-level names whose value is a container the module then changes: state that
# outlives every request and every test, shared by whatever imported the module.
MUTABLE_FACTORIES = {"dict", "list", "set", "OrderedDict", "defaultdict", "deque", "WeakKeyDictionary",
                     "WeakValueDictionary", "WeakSet", "Counter"}
MUTATORS = {"append", "extend", "add", "update", "setdefault", "pop", "popitem", "clear", "remove",
            "insert", "discard", "move_to_end", "__setitem__"}
PROCESS_CACHES = {"lru_cache", "cache", "cached_property"}
KNOWN_OFFENDERS = [
    # Each remembers the connections it was prepared on (weakly): per-connection state kept
    # at module level; the store's own (branch `flat` reworks the store).
    "service.adapters.store.postgres._APPEND_BATCH holds a _PreparedStatement",
    "service.adapters.store.postgres._APPEND_ONE holds a _PreparedStatement",
]


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
