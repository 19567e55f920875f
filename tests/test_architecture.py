"""The shape of the package: layers without import circles, modules of a readable size, one home per rule.

These read the source as text (``ast``); nothing of the package is run.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pranker"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every pranker module ``name`` imports, at module level or inside a function, including
    ``importlib.import_module("pranker...")``; imports for type checkers only are left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for n in ast.walk(node)}
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        targets = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [f"{mod}.{a.name}" for a in node.names] + [mod]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", "") == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            targets = [str(node.args[0].value)]
        for t in targets:
            while t and t not in modules:
                t = t.rsplit(".", 1)[0] if "." in t else ""
            if t and t != name:
                found.add(t)
                break
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, or None (depth-first search with colours)."""
    colour: dict[str, int] = {}
    stack: list[str] = []

    def visit(v: str) -> list[str] | None:
        colour[v] = 1
        stack.append(v)
        for w in sorted(graph[v]):
            if colour.get(w) == 1:
                return stack[stack.index(w) :] + [w]
            if w not in colour:
                found = visit(w)
                if found:
                    return found
        stack.pop()
        colour[v] = 2
        return None

    for v in sorted(graph):
        if v not in colour:
            found = visit(v)
            if found:
                return found
    return None


def test_the_import_graph_has_no_circle():
    assert _cycle(_graph()) is None


def test_the_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_null_layer_knows_nothing_of_plotting_or_significance():
    graph = _graph()
    for name, targets in graph.items():
        if name.startswith("pranker.null"):
            above = [t for t in targets if t.split(".")[1] in ("plotting", "significance", "cli")]
            assert not above, (name, above)


def test_no_module_over_a_thousand_lines():
    sizes = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in _modules().values()}
    assert max(sizes.values()) <= 1000, max(sizes.items(), key=lambda kv: kv[1])
    assert sizes[PACKAGE / "null" / "distributions.py"] <= 600


def _module_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and n.id.isupper():
                        names.add(n.id)
    return names


def test_the_constants_of_the_plan_are_defined_once():
    """Every constant of null/choice.py is assigned there and nowhere else in the package."""
    choice = _module_constants(PACKAGE / "null" / "choice.py")
    assert {"AUTO_EXACT_PLACEMENTS", "EXACT_TABLE_CELLS", "SADDLEPOINT_LOG10_BOUND"} <= choice
    for path in _modules().values():
        if path.name == "choice.py":
            continue
        again = choice & _module_constants(path)
        assert not again, (path, again)


def test_auto_means_the_tilt_beyond_the_saddlepoint_in_one_place():
    text = [p.read_text(encoding="utf-8") for p in _modules().values()]
    assert sum(t.count("tilt_beyond=True") + t.count('["tilt_beyond"] = True') for t in text) == 1
