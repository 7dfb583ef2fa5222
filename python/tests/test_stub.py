"""The stub editors complete from (`mgensim/__init__.pyi`) is the module: the same names, the
same members of each class, the same parameters, each with its docstring."""

import ast
import inspect
from pathlib import Path

import mgensim

STUB = Path(mgensim.__file__).with_suffix(".pyi")
TREE = ast.parse(STUB.read_text())


def defs(body):
    return {n.name: n for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def params(fn: ast.FunctionDef):
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [a.vararg.arg] if a.vararg else []
    names += [a.kwarg.arg] if a.kwarg else []
    return sorted(n for n in names if n not in ("self", "cls"))


def runtime_params(obj):
    return sorted(p for p in inspect.signature(obj).parameters if p not in ("self", "cls"))


def test_every_public_name_is_in_the_stub_with_its_docstring():
    top = defs(TREE.body)
    for name in mgensim.__all__:
        assert name in top, f"{name} is not in {STUB.name}"
        assert ast.get_docstring(top[name]), f"{name} has no docstring in the stub"
    for name, node in top.items():
        protocol = isinstance(node, ast.ClassDef) and any(getattr(b, "id", "") == "Protocol" for b in node.bases)
        assert protocol or hasattr(mgensim, name), f"the stub's {name} is not in the module"


def test_functions_take_the_stubs_parameters():
    top = defs(TREE.body)
    for name in ("run", "sweep"):
        assert params(top[name]) == runtime_params(getattr(mgensim, name)), name


def test_classes_have_the_stubs_members_and_parameters():
    top = defs(TREE.body)
    for cls in (mgensim.Scenario, mgensim.Result):
        stub = defs(top[cls.__name__].body)
        ours = {n for n in vars(cls) if not n.startswith("_") or n == "_repr_html_"}
        assert set(stub) == ours, cls.__name__
        for name, node in stub.items():
            assert ast.get_docstring(node), f"{cls.__name__}.{name} has no docstring in the stub"
            member = inspect.getattr_static(cls, name)
            if isinstance(member, (classmethod, staticmethod)):
                member = member.__func__
            if callable(member):
                assert params(node) == runtime_params(member), f"{cls.__name__}.{name}"
            # and the module's own docstring says the same
            if not isinstance(member, property) or member.__doc__:
                doc = member.__doc__ if not isinstance(member, property) else member.fget.__doc__
                assert inspect.cleandoc(doc or "") == ast.get_docstring(node) or name == "_repr_html_", \
                    f"{cls.__name__}.{name}: the stub's docstring differs from the module's"


def test_the_error_attributes_are_those_the_stub_declares(tmp_path):
    top = defs(TREE.body)
    declared = {n.target.id for n in top["RunError"].body if isinstance(n, ast.AnnAssign)}
    s = mgensim.Scenario.from_dict({"network": {"dims": [2]}, "workload": {"code": "error('x')"}})
    try:
        s.run()
    except mgensim.RunError as e:
        assert all(hasattr(e, a) for a in declared), declared
        assert declared == {"kind", "rank", "file", "line", "time_ps", "report", "result"}
