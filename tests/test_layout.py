"""The house rules, checked: no import cycles, no private names imported across modules, imports at the top (but for
the few heavy optional ones named here), every GPUPRICES_* variable read in config/settings.py only, one copy of each
recorded response, a README that stays a front door, generated docs that match the code."""

from __future__ import annotations

import ast
import hashlib
import re
import tomllib
from collections import defaultdict
from pathlib import Path

from conftest import ROOT

PACKAGES = ("analytics", "config", "dashboards", "dev", "flows", "scrapers", "warehouse")
# What the wheel ships (pyproject.toml): the runtime, which never imports dev/ (development tools, a checkout only).
RUNTIME = tuple(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
                ["packages"])
# Imported inside functions on purpose: seconds to import, needed by few commands.
LAZY_IMPORTS = {"dbt.cli.main", "dbt.adapters.duckdb.connections", "flows.daily", "prefect.client.orchestration",
                "plotly",
                # the outlook's fits (analytics/outlook_fit.py): seconds of scipy; its predictions need numpy only
                "sklearn.linear_model", "sklearn.model_selection", "threadpoolctl",
                # every source module: only the CLI commands that take --sources import it (flows/cli/common.py)
                "scrapers.registry"}


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imports_of(path: Path) -> list[tuple[ast.AST, str, list[str], bool]]:
    """(node, module, imported names, at module level) for every import in the file."""
    tree = ast.parse(path.read_text())
    top_level = {id(node) for node in tree.body}
    for node in tree.body:  # imports guarded by `if TYPE_CHECKING:` count as top level
        if isinstance(node, ast.If):
            top_level |= {id(child) for child in node.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node, alias.name, [], id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node, node.module, [alias.name for alias in node.names], id(node) in top_level))
    return found


def project_graph() -> dict[str, set[str]]:
    known = modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in known.items():
        for _node, module, names, _top in imports_of(path):
            targets = [f"{module}.{n}" for n in names if f"{module}.{n}" in known] or [module]
            graph[name] |= {target for target in targets if target in known and target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for neighbour in graph.get(node, ()):
            if neighbour not in index:
                visit(neighbour)
                low[node] = min(low[node], low[neighbour])
            elif neighbour in on_stack:
                low[node] = min(low[node], index[neighbour])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles():
    assert cycles(project_graph()) == []


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# The floors, lowest first: a module imports from its own floor or below, never above (the flow calls the build and
# then the analyses; the store never runs an analysis). dev/ stands above them all.
# warehouse/ is two floors: the store (the file, its schema, the landed documents, the build, export, status) under
# ingest (documents to rows, imports, backfills): ingest writes through the store, the store never runs an ingest.
FLOORS = ("config", "scrapers", "warehouse.store", "warehouse.ingest", "warehouse", "analytics", "dashboards", "flows",
          "dev")


def floor_of(module: str) -> int:
    floor = {package: level for level, package in enumerate(FLOORS)}
    parts = module.split(".")
    return floor[".".join(parts[:2])] if ".".join(parts[:2]) in floor else floor[parts[0]]


def arrows_back_up(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{module} -> {target}" for module, targets in graph.items() for target in targets
                  if floor_of(target) > floor_of(module))


def test_no_import_runs_back_up_the_floors():
    assert arrows_back_up(project_graph()) == []


def test_the_floor_check_finds_an_arrow_back_up():
    assert arrows_back_up({"warehouse.store.build": {"analytics.outlook", "warehouse.store.db"},
                           "flows.daily": {"warehouse.store.db"}}) == ["warehouse.store.build -> analytics.outlook"]
    assert arrows_back_up({"warehouse.store.build": {"warehouse.ingest.report"},
                           "warehouse.ingest.load": {"warehouse.store.db"}}
                          ) == ["warehouse.store.build -> warehouse.ingest.report"]


def test_warehouse_holds_its_two_jobs_in_two_folders():
    """Issue 41 part 2: no module left at warehouse/'s top; each of its modules in store/ or ingest/."""
    top = sorted(path.name for path in (ROOT / "warehouse").glob("*.py") if path.name != "__init__.py")
    assert top == [] and {path.name for path in (ROOT / "warehouse").iterdir() if path.is_dir()
                          and not path.name.startswith((".", "__"))} == {"store", "ingest"}


def test_no_private_names_imported_across_modules():
    offenders = [
        f"{path.relative_to(ROOT)}:{node.lineno} {module}.{name}"
        for path in modules().values() for node, module, names, _top in imports_of(path)
        for name in names if name.startswith("_") and module.split(".")[0] in PACKAGES
    ]
    assert offenders == []


def test_imports_are_at_the_top_except_the_named_heavy_ones():
    offenders = [
        f"{path.relative_to(ROOT)}:{node.lineno} {module}"
        for path in modules().values() for node, module, _names, top in imports_of(path)
        if not top and module not in LAZY_IMPORTS
    ]
    assert offenders == []


def test_the_runtime_never_imports_dev():
    """dev/ is not in the wheel: `gpuprices bench` runs dev/bench_*.py as a child process (flows/cli/tools.py). Any
    import of dev, at the top or in a function, and any import_module/__import__ of a literal dev name."""
    assert "dev" not in RUNTIME and {"flows", "warehouse"} <= set(RUNTIME)

    def is_dev(module: str) -> bool:
        return module == "dev" or module.startswith("dev.")

    offenders = []
    for name, path in modules().items():
        if name.split(".")[0] not in RUNTIME:
            continue
        offenders += [f"{path.relative_to(ROOT)}:{node.lineno} {module}"
                      for node, module, _names, _top in imports_of(path) if is_dev(module)]
        offenders += [f"{path.relative_to(ROOT)}:{node.lineno} {node.args[0].value}"
                      for node in ast.walk(ast.parse(path.read_text()))
                      if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                      and isinstance(node.args[0].value, str) and is_dev(node.args[0].value)
                      and (getattr(node.func, "attr", None) == "import_module"
                           or getattr(node.func, "id", None) in {"__import__", "import_module"})]
    assert offenders == []


def test_every_gpuprices_variable_is_read_in_the_settings_module_only():
    pattern = re.compile(r"""["']GPUPRICES_[A-Z_]+["']""")
    offenders = [
        f"{path.relative_to(ROOT)}: {sorted(set(pattern.findall(path.read_text())))}"
        for name, path in modules().items() if name != "config.settings" and pattern.search(path.read_text())
    ]
    assert offenders == []


def test_recorded_responses_exist_once():
    by_hash = defaultdict(list)
    for folder in (ROOT / "recordings", ROOT / "tests" / "fixtures"):
        for path in folder.rglob("*"):
            if path.is_file():
                by_hash[hashlib.sha256(path.read_bytes()).hexdigest()].append(str(path.relative_to(ROOT)))
    copies = [paths for paths in by_hash.values()
              if any(p.startswith("recordings") for p in paths) and any(p.startswith("tests") for p in paths)]
    assert copies == []
    assert not list((ROOT / "recordings").rglob("*.py"))  # data, not a package


def test_the_readme_is_a_front_door():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.encode()) <= 12 * 1024
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / link).exists(), link


def test_dbt_is_configured_by_folder_and_yaml_never_inline():
    """Issue 41 part 5: no model's SQL sets its own config (materialization and the rest come from its folder in
    models/dbt_project.yml, or from the YAML beside it), and no macro hides a ref()."""
    inline = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "models" / "models").rglob("*.sql")
                    if re.search(r"\{\{\s*config\(", path.read_text()))
    assert inline == []
    hidden = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "models" / "macros").rglob("*.sql")
                    if re.search(r"\{\{[^}]*\bref\(", path.read_text()))  # a call, not a word in a comment
    assert hidden == []
