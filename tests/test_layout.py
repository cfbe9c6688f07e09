"""The repository's shape: small runtime modules, no import-path edits (the training code is a package run with
``python -m`` from the repository root; benchmarks and tests import installed packages), and a wheel that ships the
runtime package only."""

import ast
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600


def _python_files(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


def test_no_runtime_module_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in _python_files("src/rt4chart")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_runtime_module_imports_another_modules_private_names():
    """A name two modules share is public in the module that defines it (a package may still import its own
    private modules: ``from . import _errors``)."""
    found = []
    for path in _python_files("src/rt4chart"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module not in (None, "__future__"):
                found += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []


def _imports(path: Path) -> list[tuple[str, str, int]]:
    """``(importing package, imported module, names)`` of each ``from ... import`` of a runtime module."""
    parts = list(path.relative_to(ROOT / "src").with_suffix("").parts)
    package = parts[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            base = package[:len(package) - node.level + 1] if node.level else []
            out.append((".".join(package), ".".join(base + node.module.split(".")), len(node.names)))
    return out


def test_a_package_is_read_through_its_public_face():
    """Another package's private modules (``rt4chart.evidence._words``) are not imported: a package is read through
    its ``__init__`` and its public modules; and no module imports more than 8 names from one module of another
    package (a package's face gathers what others read)."""
    found = []
    for path in _python_files("src/rt4chart"):
        for package, module, names in _imports(path):
            owner, last = module.rsplit(".", 1) if "." in module else ("", module)
            inside = package == owner or package.startswith(owner + ".")
            if not module.startswith("rt4chart.") or inside:
                continue
            if last.startswith("_") and not last.startswith("__"):
                found.append(f"{path.relative_to(ROOT)}: {module}")
            elif names > 8 and (ROOT / "src" / Path(*module.split("."))).with_suffix(".py").exists():
                found.append(f"{path.relative_to(ROOT)}: {names} names from {module}")
    assert found == []


def _edits_sys_path(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name) \
                and node.value.id == "sys":
            return True
    return False


def test_no_two_test_files_share_a_name():
    """pytest imports test files by their base name (the test folders are not packages): a second file of the same
    name in another folder fails collection, and with it the whole run."""
    names: dict[str, list[str]] = {}
    for path in (ROOT / "tests").rglob("test_*.py"):
        names.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert {n: p for n, p in names.items() if len(p) > 1} == {}


def test_nothing_edits_sys_path():
    assert [str(p.relative_to(ROOT)) for p in _python_files("src", "training", "scripts", "benchmarks", "tests")
            if _edits_sys_path(p)] == []


def test_the_wheel_ships_the_runtime_package_only(tmp_path):
    """``pip install .`` installs ``rt4chart`` and its data, no training or experiment code (``training/`` sits
    beside ``src/``, outside what the wheel packs)."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(ROOT), "-w",
                    str(tmp_path)], check=True, cwd=tmp_path)
    [wheel] = tmp_path.glob("rt4chart-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"rt4chart", wheel.name.split("-py")[0] + ".dist-info"}
    assert "rt4chart/judges/models/local_judge.json" in names and "rt4chart/evidence/data/lexicon.txt" in names
    assert not [n for n in names if "training" in n or "experiments" in n]


def test_only_the_command_line_imports_click():
    """click is the command line's: ``rt4chart.cli`` (one module a command); the library packages never import it."""
    def imports_click(path: Path) -> bool:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "click" for a in node.names):
                return True
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "click":
                return True
        return False

    src = ROOT / "src" / "rt4chart"
    users = sorted(str(p.relative_to(src)) for p in src.rglob("*.py") if imports_click(p))
    assert "cli/audit.py" in users
    assert [p for p in users if not p.startswith("cli/")] == []


def test_no_import_circle():
    """No module of ``rt4chart`` reaches itself through its imports (module-level or inside functions): the strongly
    connected components of the import graph (grimp's, as import-linter reads it) are single modules."""
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (the dev extra)")
    graph = grimp.build_graph("rt4chart")
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in edges[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            part = stack[stack.index(module):]
            del stack[stack.index(module):]
            if len(part) > 1:
                circles.append(sorted(part))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    assert circles == []


def test_the_design_pages_floors_are_the_import_contracts_layers():
    """docs/design.md's table of floors names the packages of each layer of the import contract (pyproject.toml),
    bottom floor first, and every runtime package or root module is on one floor."""
    import re
    import tomllib

    layers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]["layers"]
    contract = [{name.strip().removeprefix("rt4chart.") for name in layer.split("|")} for layer in reversed(layers)]
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    floors = [set(re.findall(r"`([a-z_]+)`", m.group(2)))
              for m in re.finditer(r"^\| (\d+) \| ([^|]+) \|", design, re.M)]
    assert floors == contract
    runtime = {p.stem if p.is_file() else p.name for p in (ROOT / "src" / "rt4chart").iterdir()
               if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").exists())}
    assert runtime - set().union(*floors) == set()


#: base names two runtime modules share on purpose: a command's module mirrors the library module it runs
#: (``cli/triage.py`` runs ``gate/triage.py``), and the diff page is drawn as the report page is
MIRRORS = {"calibrate.py": {"cli", "eval"}, "diagnose.py": {"cli", "facets"}, "triage.py": {"cli", "gate"},
           "_html.py": {"report", "diff"}}


def test_no_two_runtime_modules_share_a_base_name_but_mirrors():
    seen: dict[str, set[str]] = {}
    for path in _python_files("src/rt4chart"):
        if path.name != "__init__.py":
            seen.setdefault(path.name, set()).add(path.parent.name)
    assert {name: where for name, where in seen.items() if len(where) > 1 and MIRRORS.get(name) != where} == {}
