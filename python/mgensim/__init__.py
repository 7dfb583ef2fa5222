"""mgensim in Python: the engine in-process, for notebooks and scripted studies.

    import mgensim
    s = mgensim.Scenario.load("scenarios/barrier.toml")
    s.set("workload.args.algo", "rd")
    r = s.run(threads=2)
    r.predicted_time          # seconds (float); r.predicted_time_ps: integer picoseconds
    r.links                   # links.csv as a pandas DataFrame (lists of dicts without pandas)
    mgensim.sweep(s, vary={"workload.ranks": [64, 128, 256]})   # one row per point

Every check, message, figure and file is the command line's (`mgensim run`, `mgensim sweep`):
the module calls the same library. See docs/python.md.
"""

from __future__ import annotations

import csv as _csv
import io as _io
import json as _json
import os as _os
import warnings as _warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._native import Interrupted, RunError, ScenarioError, dumps

__version__ = _native.VERSION
__all__ = [
    "Scenario",
    "Result",
    "sweep",
    "run",
    "dumps",
    "ScenarioError",
    "RunError",
    "Interrupted",
    "MgensimWarning",
]

PathLike = Union[str, "_os.PathLike[str]"]
Time = Union[str, float, int]


class MgensimWarning(UserWarning):
    """What the command line prints as `warning: ...`: what a run's scripts left behind (puts
    never polled, messages never received, an `MGEN_args` key no rank read) and what reading a
    scenario left out."""


if not _os.environ.get("MGENSIM_LUA_DIR") and not _os.path.isdir(_native.LUA_DIR):
    _warnings.warn(f"mgensim's Lua library is not at {_native.LUA_DIR}, in the checkout the module "
                   f"was built from: scripts that use mgen.coll and the like will not find it; set "
                   f"MGENSIM_LUA_DIR to a copy of the checkout's lua/ folder, or reinstall "
                   f"(pip install ./python)", MgensimWarning, stacklevel=2)


def _pandas():
    try:
        import pandas
    except ImportError:
        return None
    return pandas


def _cell(v: str) -> Any:
    if v == "":
        return None
    if v in ("true", "false"):
        return v == "true"
    try:
        return int(v)
    except ValueError:
        pass
    try:
        return float(v)
    except ValueError:
        return v


def _table(text: Optional[str]):
    """A CSV file's text as a pandas DataFrame, or a list of dicts without pandas (numbers as
    int or float, `true`/`false` as bool, an empty field as None)."""
    if text is None:
        return None
    pd = _pandas()
    if pd is not None:
        # (only an empty field is missing: a job named "NA" stays a name)
        return pd.read_csv(_io.StringIO(text), keep_default_na=False, na_values=[""])
    rows = list(_csv.reader(_io.StringIO(text)))
    header = rows[0]
    return [{h: _cell(v) for h, v in zip(header, row)} for row in rows[1:]]


def _time(t: Optional[Time], what: str) -> Optional[str]:
    """A time option: a string as the command line takes it (`"50us"`), or a number of
    seconds."""
    if t is None or isinstance(t, str):
        return t
    if isinstance(t, bool) or not isinstance(t, (int, float)):
        raise TypeError(f"{what}: a time is a string with its unit (\"50us\") or seconds, not {t!r}")
    if t < 0:
        raise ValueError(f"{what}: a time cannot be negative ({t!r} s)")
    return f"{round(t * 1e12)} ps"


def _sets(assignments: Union[None, str, Mapping[str, Any]], value: Any = None, has_value: bool = False) -> List[str]:
    """`KEY=VALUE` lines of `--set` for a key and a value, or a dict of them."""
    if assignments is None:
        return []
    if isinstance(assignments, str):
        if not has_value:
            raise TypeError(f"set({assignments!r}, value): the value is missing")
        return [f"{assignments}={_native.literal(value)}"]
    if has_value:
        raise TypeError("set(dict) takes no second value: the dict holds the values")
    return [f"{k}={_native.literal(v)}" for k, v in assignments.items()]


class Scenario:
    """A scenario, checked as `mgensim check` reads it: every problem reported at once, each
    with its line and a "did you mean". Make one with `Scenario.load`, `Scenario.from_toml` or
    `Scenario.from_dict`; change it with `set` (and `with_workload`); run it with `run`."""

    __slots__ = ("_n",)

    def __init__(self, native: "_native.Scenario"):
        self._n = native

    @classmethod
    def load(cls, path: PathLike, *, allow_io: bool = False) -> "Scenario":
        """Reads the scenario file `path`; its relative paths (scripts, placement maps) start
        from its folder. `allow_io=True` lifts the sandbox (`--allow-io`): only for scripts you
        trust."""
        return cls(_native.Scenario.load(_os.fspath(path), allow_io=allow_io))

    @classmethod
    def from_toml(cls, text: str, base_dir: Optional[PathLike] = None, *, name: str = "scenario.toml",
                  allow_io: bool = False) -> "Scenario":
        """A scenario from TOML text, as if it were the file `name` in folder `base_dir` (the
        current folder by default): its relative paths and its sandbox start there, and
        messages name it `name` (`base_dir/name`)."""
        return cls(_native.Scenario.from_text(text, _where(base_dir, name), allow_io=allow_io))

    @classmethod
    def from_dict(cls, keys: Mapping[str, Any], base_dir: Optional[PathLike] = None, *,
                  name: str = "scenario.toml", allow_io: bool = False) -> "Scenario":
        """A scenario from a dict of its tables, as the TOML file would have them:
        `{"network": {"dims": [8, 8]}, "workload": {"code": "MGEN_Comp(1e-6)"}}` (or
        `"script": "w.lua"`, relative to `base_dir`). Messages give lines of the TOML text it
        becomes (`Scenario.toml`)."""
        if not isinstance(keys, Mapping):
            raise TypeError(f"from_dict takes a dict of the scenario's tables, not {type(keys).__name__}")
        text = _native.toml_document(dict(keys))
        return cls.from_toml(text, base_dir, name=name, allow_io=allow_io)

    def set(self, key: Union[str, Mapping[str, Any]], value: Any = ..., /) -> "Scenario":
        """Sets a key as `--set KEY=VALUE` does: `s.set("network.dims", [8, 8, 8])`, or several
        at once from a dict (`s.set({"network.topology": "mesh", "network.dims": [4, 4]})`),
        applied together and checked together. A problem raises ScenarioError with the command
        line's message (every problem at once, "did you mean" included) and leaves the scenario
        as it was. Returns the scenario itself, so calls chain."""
        sets = _sets(key, value, value is not ...)
        self._n = self._n.with_sets(sets)
        return self

    def with_workload(self, script: Optional[PathLike] = None, *, code: Optional[str] = None) -> "Scenario":
        """A copy whose workload is the script file `script` (relative to the scenario's
        folder) or the inline Lua `code`, in place of the one it had; keys and sets stay."""
        return Scenario(self._n.with_workload(None if script is None else _os.fspath(script), code))

    def copy(self) -> "Scenario":
        """An independent copy (a scenario's changes never reach its copies)."""
        return Scenario(self._n)

    __copy__ = copy

    def __deepcopy__(self, memo):
        return Scenario(self._n)

    def check(self) -> None:
        """What `mgensim check` does beyond reading: builds the network and the ranks, compiles
        the scripts and finds the `MGEN_` names they use that the API does not have. Raises
        ScenarioError with the command line's message."""
        self._n.check()

    def run(self, *, threads: Optional[int] = None, partitions: Optional[int] = None,
            seed: Optional[int] = None, until: Optional[Time] = None,
            timeout: Optional[Time] = None, profile: bool = False,
            interval: Optional[Time] = None, plots: bool = False, trace: bool = False,
            buffer_history: Sequence[str] = (), pictures: bool = True,
            power_baseline: bool = False, set: Optional[Mapping[str, Any]] = None,
            out: Optional[PathLike] = None, cancel: Any = None) -> "Result":
        """Runs the scenario, as `mgensim run` does, with the interpreter let go (other Python
        threads run meanwhile).

        threads, partitions, seed: `--threads`, `--partitions`, `--seed` (no figure depends on
        threads or partitions). until: simulated time to stop at (`"50us"`, or seconds);
        timeout: wall-clock time the run may take (`"10min"`, or seconds); either returns the
        figures so far, marked partial (`r.partial`, `r.stop`). profile: time per API call
        and region (`r.profile`). interval: the links' time series (`r.timeseries`). plots:
        the timeline and an adaptive time series, for the pictures of `r.write` and the page.
        trace: the ranks' timeline (`r.trace`). buffer_history: `router=12,from=0,to=50us`
        specs. pictures: record what `report.html` draws, for runs small enough (as `--out`
        does; it changes no figure). power_baseline: with `[power]`, run again with links
        always on and give ratios. set: keys for this run only (a dict, as `Scenario.set`).
        out: also write the output folder (`--out`), for a partial run too. cancel: an object
        with `is_set()` (a `threading.Event`): once set, the run stops promptly and returns
        its figures so far, marked partial.

        Ctrl-C (KeyboardInterrupt) stops the run within a second and raises
        `mgensim.Interrupted` (a KeyboardInterrupt) whose `.result` holds the partial figures.
        A script's error, a deadlock or a rank that runs away raises `mgensim.RunError`, with
        `.rank`, `.line`, `.report` and the partial `.result`. A scenario the run's options make
        wrong raises ScenarioError."""
        try:
            native = self._n.run(
                sets=_sets(set), seed=seed, timeout=_timeout(timeout), until=_time(until, "until"),
                threads=threads, partitions=partitions, profile=profile,
                interval=_time(interval, "interval"), plots=plots, trace=trace,
                buffer_history=list(buffer_history), pictures=pictures, folder=out is not None,
                power_baseline=power_baseline, cancel=cancel)
        except (RunError, Interrupted) as e:
            partial = getattr(e, "result", None)
            if partial is not None and not isinstance(partial, Result):
                e.result = Result(partial)
                _warn(e.result, 3)
                if out is not None:
                    e.result.write(out)
            raise
        result = Result(native)
        _warn(result, 3)
        if out is not None:
            result.write(out)
        return result

    @property
    def path(self) -> str:
        """The file it was read from, or stands for (messages name it)."""
        return self._n.path

    @property
    def toml(self) -> str:
        """Its TOML text (without the sets: see `sets`)."""
        return self._n.text

    @property
    def sets(self) -> List[str]:
        """The sets applied to it, in order, as `--set` takes them (`network.dims=[8, 8]`)."""
        return self._n.sets

    @property
    def ranks(self) -> int:
        """Ranks of all its jobs."""
        return self._n.ranks

    @property
    def nodes(self) -> int:
        """Nodes of its network."""
        return self._n.nodes

    @property
    def network(self) -> str:
        """Its network in words: `torus 8x8x8 (512 nodes)`."""
        return self._n.network

    @property
    def scripts(self) -> List[str]:
        """Each job's script as messages name it (`inline` for inline code)."""
        return self._n.scripts

    @property
    def warnings(self) -> List[str]:
        """What reading it left out, in words (a key of another topology than the one set)."""
        return self._n.warnings

    @property
    def resolved(self) -> Dict[str, Any]:
        """Its keys with every default filled in, written as a scenario writes them."""
        return _json.loads(self._n.resolved_json())

    def __repr__(self) -> str:
        return repr(self._n)


def _where(base_dir: Optional[PathLike], name: str) -> str:
    return name if base_dir is None else _os.path.join(_os.fspath(base_dir), name)


def _timeout(t: Optional[Time]) -> Optional[str]:
    return _time(t, "timeout")


def _warn(result: "Result", level: int) -> None:
    for w in result._n.warnings:
        _warnings.warn(w, MgensimWarning, stacklevel=level)


class Result:
    """What one run computed: the predicted time, the summary (the `--json` object), the
    tables of the output folder as DataFrames, `report.html`, and the folder itself."""

    __slots__ = ("_n", "_cache")

    def __init__(self, native: "_native.Report"):
        self._n = native
        self._cache: Dict[str, Any] = {}

    @property
    def predicted_time_ps(self) -> int:
        """When the last rank's script ended, in integer picoseconds."""
        return self._n.predicted_time_ps

    @property
    def predicted_time(self) -> float:
        """When the last rank's script ended, in seconds."""
        return self._n.predicted_time_ps / 1e12

    @property
    def partial(self) -> bool:
        """Whether the run stopped before every rank finished (the figures are those so far)."""
        return self._n.partial

    @property
    def stop(self) -> Optional[str]:
        """Why a partial run stopped, as the command line says it; None for a finished run."""
        return self._n.stop

    @property
    def scenario(self) -> str:
        """The scenario's file, as given."""
        return self._n.scenario

    @property
    def warnings(self) -> List[str]:
        """What the scripts left behind (the command line's `warning:` lines)."""
        return self._n.warnings

    @property
    def summary(self) -> Dict[str, Any]:
        """The summary: the object `mgensim run --json` prints, keys in its order
        (`mgensim.dumps(r.summary)` is its text byte for byte). Only `host` (wall time,
        memory) differs between two runs of the same scenario and seed."""
        if "summary" not in self._cache:
            self._cache["summary"] = _json.loads(self._n.summary_json())
        return self._cache["summary"]

    @property
    def summary_json(self) -> str:
        """The summary as `mgensim run --json` prints it (and `summary.json` holds it)."""
        return self._n.summary_json()

    @property
    def text(self) -> str:
        """The summary as `mgensim run` prints it."""
        return self._n.summary_text()

    @property
    def metrics(self) -> Dict[str, Dict[str, float]]:
        """What the scripts reported with `MGEN_report`: name -> count, min, mean, max."""
        return self.summary["metrics"]

    def _t(self, name: str):
        if name not in self._cache:
            self._cache[name] = _table(self._n.csv(name))
        return self._cache[name]

    @property
    def links(self):
        """links.csv: one row per link direction (columns and units in the README)."""
        return self._t("links")

    @property
    def ranks(self):
        """ranks.csv: one row per rank (when it ended, where its time went, what it moved)."""
        return self._t("ranks")

    @property
    def routers(self):
        """routers.csv: one row per router."""
        return self._t("routers")

    @property
    def nodes(self):
        """nodes.csv: one row per node (its DMA engines and NIC links)."""
        return self._t("nodes")

    @property
    def profile(self):
        """profile.csv: time per API call and region; None unless run with `profile=True`
        (or recorded for the page: see `run`'s `pictures`)."""
        return self._t("profile")

    @property
    def timeseries(self):
        """links_timeseries.csv: one row per link and window; None unless run with `interval`
        (or `plots`)."""
        return self._t("links_timeseries")

    @property
    def links_power(self):
        """links_power.csv (with `[power]`); None otherwise."""
        return self._t("links_power")

    @property
    def power_timeseries(self):
        """power_timeseries.csv (with `[power]` and a time series); None otherwise."""
        return self._t("power_timeseries")

    @property
    def buffer_history(self):
        """buffer_history.csv; None unless run with `buffer_history`."""
        return self._t("buffer_history")

    @property
    def trace(self) -> Optional[str]:
        """The ranks' timeline (Chrome trace-event JSON: ui.perfetto.dev opens it); None unless
        run with `trace=True` or `plots=True`."""
        return self._n.trace()

    def report_html(self) -> str:
        """`report.html`: the summary, what bounded the run, the values reported, the timeline,
        the network coloured by load and the links' heat map, as one self-contained page."""
        return self._n.html()

    def _repr_html_(self) -> str:
        import html

        page = html.escape(self.report_html(), quote=True)
        return (f'<iframe srcdoc="{page}" style="width:100%;height:760px;border:1px solid #ccc" '
                f'title="mgensim: {html.escape(self.scenario)}"></iframe>')

    def write(self, dir: PathLike) -> None:
        """Writes the output folder, as `mgensim run --out DIR` does: summary.json, the CSV
        files, report.html (and, with `plots`, trace.json and the SVG pictures); whole or not
        at all."""
        self._n.write(_os.fspath(dir))

    def __repr__(self) -> str:
        from_ = _os.path.basename(self.scenario)
        state = f", partial: {self.stop.splitlines()[0]}" if self.partial and self.stop else ""
        return f"<mgensim.Result {from_}: {_shown_time(self.predicted_time_ps)}{state}>"


def _shown_time(ps: int) -> str:
    for unit, scale in (("s", 10**12), ("ms", 10**9), ("us", 10**6), ("ns", 10**3)):
        if ps >= scale:
            return f"{ps / scale:.6g} {unit}"
    return f"{ps} ps"


def run(path: PathLike, **options: Any) -> Result:
    """`Scenario.load(path).run(**options)`: `mgensim run PATH` in one call."""
    return Scenario.load(path).run(**options)


Values = Union[str, range, Sequence[Any]]


def _values(key: str, values: Values) -> List[str]:
    if isinstance(values, str):
        return _native.axis_values(key, values)
    if isinstance(values, (range, list, tuple)):
        out = [_native.literal(v) for v in values]
        if not out:
            raise ValueError(f"{key}: no values to vary")
        return out
    raise TypeError(f"{key}: the values to vary are a list, a range, or a string as --vary takes "
                    f"them (\"2..512:x2\", \"ring,rd\"), not {type(values).__name__}")


def sweep(scenario: Scenario, vary: Optional[Mapping[str, Values]] = None,
          zip: Optional[Mapping[str, Values]] = None, *, processes: Optional[int] = None,
          strict: bool = False, power_baseline: bool = False,
          set: Optional[Mapping[str, Any]] = None, cancel: Any = None):
    """Runs `scenario` at every point of a grid, as `mgensim sweep` does, `processes` points at
    once (default: one per core; the table does not depend on it), and returns its table:
    one row per point, the columns of sweep.csv (`point`, the varied keys, predicted_time_ps,
    events, packet_hops, link_bytes, average_link_bandwidth_bps, link_efficiency, the mean of
    each value the scripts reported, `error`). A DataFrame with pandas, else a list of dicts.

    vary: key -> values (a list, a range, or a string as `--vary` takes it: "2..512:x2",
    "ring,rd"); every combination, the first key outermost. zip: keys varied together, value
    by value, as one more axis (`--zip`). set: keys for every point.

    A point that fails (its scenario cannot be read, its script errs, it deadlocks) is a row
    with its `error`, and the others run; with `strict=True` the first failure raises
    (ScenarioError or RunError) instead. Ctrl-C raises `mgensim.Interrupted`, whose `.result`
    holds the rows of the points that finished."""
    axes: List[Tuple[str, List[str], bool]] = []
    for key, values in (vary or {}).items():
        axes.append((key, _values(key, values), False))
    for i, (key, values) in enumerate((zip or {}).items()):
        axes.append((key, _values(key, values), i > 0))
    if not axes:
        raise ValueError("nothing to vary: give vary={key: values} (or zip=...)")
    s = scenario.copy().set(set) if set else scenario
    table, failed, interrupted = _native.sweep(
        s._n, axes, processes=processes, strict=strict, power_baseline=power_baseline,
        cancel=cancel)
    rows = _table(table)
    if interrupted:
        e = Interrupted(f"sweep of {s.path} interrupted: {len(rows)} points finished")
        e.result = rows
        raise e
    if failed:
        point, error = failed[0]
        said = " | ".join(l.strip() for l in error.splitlines() if l.strip())
        _warnings.warn(f"{len(failed)} of the sweep's points failed (their rows hold the error); "
                       f"the first, point {point}: {said[:400]}", MgensimWarning, stacklevel=2)
    return rows
