"""The example notebook runs from top to bottom (with nbclient, as Jupyter would run it; as a
script where nbclient is missing), draws its plots, and its checks of the model hold."""

import json

from conftest import ROOT

NOTEBOOK = ROOT / "examples" / "barriers.ipynb"


def test_the_notebook_runs_and_plots(monkeypatch):
    monkeypatch.chdir(NOTEBOOK.parent)
    try:
        import ipykernel  # noqa: F401  (the kernel nbclient starts)
        import nbclient
        import nbformat
    except ImportError:
        # as a script: the cells' code in order, in one namespace, without a display
        import matplotlib

        matplotlib.use("Agg")
        space = {}
        for cell in json.loads(NOTEBOOK.read_text())["cells"]:
            if cell["cell_type"] == "code":
                source = "".join(cell["source"])
                exec(compile(source, str(NOTEBOOK), "exec"), space)
        assert len(space["times"]) == 3
        return
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    pictures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(pictures) == 2, "the bar chart and the scaling plots"
    table = nb.cells[2].outputs[0]["data"]["text/plain"]
    for name in ("torus 4x4x4", "fat tree", "dragonfly", "ring", "dissemination", "central"):
        assert name in table
    # the last cell shows a run as its report page, in a frame
    page = nb.cells[-1].outputs[0]["data"]["text/html"]
    assert page.startswith("<iframe srcdoc=") and "barrier_lesson.toml" in page
