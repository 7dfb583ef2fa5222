"""mgensim in Python: the engine in-process, for notebooks and scripted studies.

Every check, message, figure and file is the command line's (`mgensim run`, `mgensim sweep`):
the module calls the same library. See docs/python.md.
"""

import os
import threading
from typing import Any, Dict, List, Mapping, Optional, Protocol, Sequence, Union

import pandas

__version__: str

PathLike = Union[str, os.PathLike[str]]
Time = Union[str, float, int]
"""A time: a string with its unit as the command line takes it (`"50us"`, `"10min"`), or a
number of seconds."""
Values = Union[str, range, Sequence[Any]]
"""The values of a varied key: a list, a range, or a string as `--vary` takes it
(`"2..512:x2"`, `"ring,rd"`)."""
Table = Union[pandas.DataFrame, List[Dict[str, Any]]]
"""A CSV file of the output folder: a DataFrame with pandas, else a list of dicts (numbers as
int or float, `true`/`false` as bool, an empty field as None)."""

class Cancel(Protocol):
    """What `cancel=` takes: a `threading.Event`, or anything with `is_set()`."""
    def is_set(self) -> bool: ...

class ScenarioError(ValueError):
    """A scenario that cannot be run: its message is the command line's (every problem at once,
    each with its line and a "did you mean")."""

class RunError(Exception):
    """A run that stopped on an error: a script's error, a deadlock, a rank that ran away (the
    instruction or Lua memory limit), a failed power baseline."""

    kind: str
    """`script`, `deadlock`, `instructions`, `lua_memory`, `posts`, `time_series_memory`,
    `internal`, `capacity` or `baseline`."""
    rank: Optional[int]
    """The rank whose script failed, or the first rank blocked in a deadlock, or the rank a
    limit stopped; None when no rank is to blame."""
    file: Optional[str]
    """The script file of that rank's line (`inline` for inline code)."""
    line: Optional[int]
    """The line of that file: where the error was raised, or where the rank is blocked."""
    time_ps: Optional[int]
    """Simulated time of the stop (ps)."""
    report: str
    """What the command line prints after `error: ` (the scenario, then the explanation: the
    error with its traceback, or each blocked rank with what it waits for)."""
    result: Optional[Result]
    """The figures up to the stop (partial)."""

class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run or a sweep."""

    report: str
    """What the command line says of the stop (`SCENARIO: interrupted at simulated time ...`)."""
    result: Any
    """A run's partial Result, or a sweep's table of the points that finished."""

class MgensimWarning(UserWarning):
    """What the command line prints as `warning: ...`: what a run's scripts left behind (puts
    never polled, messages never received, an `MGEN_args` key no rank read) and what reading a
    scenario left out."""

class Scenario:
    """A scenario, checked as `mgensim check` reads it: every problem reported at once, each
    with its line and a "did you mean". Make one with `Scenario.load`, `Scenario.from_toml` or
    `Scenario.from_dict`; change it with `set` (and `with_workload`); run it with `run`."""

    @classmethod
    def load(cls, path: PathLike, *, allow_io: bool = False) -> Scenario:
        """Reads the scenario file `path`; its relative paths (scripts, placement maps) start
        from its folder. `allow_io=True` lifts the sandbox (`--allow-io`): only for scripts you
        trust."""
    @classmethod
    def from_toml(cls, text: str, base_dir: Optional[PathLike] = None, *, name: str = "scenario.toml",
                  allow_io: bool = False) -> Scenario:
        """A scenario from TOML text, as if it were the file `name` in folder `base_dir` (the
        current folder by default): its relative paths and its sandbox start there, and
        messages name it `name` (`base_dir/name`)."""
    @classmethod
    def from_dict(cls, keys: Mapping[str, Any], base_dir: Optional[PathLike] = None, *,
                  name: str = "scenario.toml", allow_io: bool = False) -> Scenario:
        """A scenario from a dict of its tables, as the TOML file would have them:
        `{"network": {"dims": [8, 8]}, "workload": {"code": "MGEN_Comp(1e-6)"}}` (or
        `"script": "w.lua"`, relative to `base_dir`). Messages give lines of the TOML text it
        becomes (`Scenario.toml`)."""
    def set(self, key: Union[str, Mapping[str, Any]], value: Any = ..., /) -> Scenario:
        """Sets a key as `--set KEY=VALUE` does: `s.set("network.dims", [8, 8, 8])`, or several
        at once from a dict (`s.set({"network.topology": "mesh", "network.dims": [4, 4]})`),
        applied together and checked together. A problem raises ScenarioError with the command
        line's message (every problem at once, "did you mean" included) and leaves the scenario
        as it was. Returns the scenario itself, so calls chain."""
    def with_workload(self, script: Optional[PathLike] = None, *, code: Optional[str] = None) -> Scenario:
        """A copy whose workload is the script file `script` (relative to the scenario's
        folder) or the inline Lua `code`, in place of the one it had; keys and sets stay."""
    def copy(self) -> Scenario:
        """An independent copy (a scenario's changes never reach its copies)."""
    def check(self) -> None:
        """What `mgensim check` does beyond reading: builds the network and the ranks, compiles
        the scripts and finds the `MGEN_` names they use that the API does not have. Raises
        ScenarioError with the command line's message."""
    def run(self, *, threads: Optional[int] = None, partitions: Optional[int] = None,
            seed: Optional[int] = None, until: Optional[Time] = None,
            timeout: Optional[Time] = None, profile: bool = False,
            interval: Optional[Time] = None, plots: bool = False, trace: bool = False,
            buffer_history: Sequence[str] = (), pictures: bool = True,
            power_baseline: bool = False, set: Optional[Mapping[str, Any]] = None,
            out: Optional[PathLike] = None, cancel: Optional[Cancel] = None) -> Result:
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
    @property
    def path(self) -> str:
        """The file it was read from, or stands for (messages name it)."""
    @property
    def toml(self) -> str:
        """Its TOML text (without the sets: see `sets`)."""
    @property
    def sets(self) -> List[str]:
        """The sets applied to it, in order, as `--set` takes them (`network.dims=[8, 8]`)."""
    @property
    def ranks(self) -> int:
        """Ranks of all its jobs."""
    @property
    def nodes(self) -> int:
        """Nodes of its network."""
    @property
    def network(self) -> str:
        """Its network in words: `torus 8x8x8 (512 nodes)`."""
    @property
    def scripts(self) -> List[str]:
        """Each job's script as messages name it (`inline` for inline code)."""
    @property
    def warnings(self) -> List[str]:
        """What reading it left out, in words (a key of another topology than the one set)."""
    @property
    def resolved(self) -> Dict[str, Any]:
        """Its keys with every default filled in, written as a scenario writes them."""

class Result:
    """What one run computed: the predicted time, the summary (the `--json` object), the
    tables of the output folder as DataFrames, `report.html`, and the folder itself."""

    @property
    def predicted_time_ps(self) -> int:
        """When the last rank's script ended, in integer picoseconds."""
    @property
    def predicted_time(self) -> float:
        """When the last rank's script ended, in seconds."""
    @property
    def partial(self) -> bool:
        """Whether the run stopped before every rank finished (the figures are those so far)."""
    @property
    def stop(self) -> Optional[str]:
        """Why a partial run stopped, as the command line says it; None for a finished run."""
    @property
    def scenario(self) -> str:
        """The scenario's file, as given."""
    @property
    def warnings(self) -> List[str]:
        """What the scripts left behind (the command line's `warning:` lines)."""
    @property
    def summary(self) -> Dict[str, Any]:
        """The summary: the object `mgensim run --json` prints, keys in its order
        (`mgensim.dumps(r.summary)` is its text byte for byte). Only `host` (wall time,
        memory) differs between two runs of the same scenario and seed."""
    @property
    def summary_json(self) -> str:
        """The summary as `mgensim run --json` prints it (and `summary.json` holds it)."""
    @property
    def text(self) -> str:
        """The summary as `mgensim run` prints it."""
    @property
    def metrics(self) -> Dict[str, Dict[str, float]]:
        """What the scripts reported with `MGEN_report`: name -> count, min, mean, max."""
    @property
    def links(self) -> Table:
        """links.csv: one row per link direction (columns and units in the README)."""
    @property
    def ranks(self) -> Table:
        """ranks.csv: one row per rank (when it ended, where its time went, what it moved)."""
    @property
    def routers(self) -> Table:
        """routers.csv: one row per router."""
    @property
    def nodes(self) -> Table:
        """nodes.csv: one row per node (its DMA engines and NIC links)."""
    @property
    def profile(self) -> Optional[Table]:
        """profile.csv: time per API call and region; None unless run with `profile=True`
        (or recorded for the page: see `run`'s `pictures`)."""
    @property
    def timeseries(self) -> Optional[Table]:
        """links_timeseries.csv: one row per link and window; None unless run with `interval`
        (or `plots`)."""
    @property
    def links_power(self) -> Optional[Table]:
        """links_power.csv (with `[power]`); None otherwise."""
    @property
    def power_timeseries(self) -> Optional[Table]:
        """power_timeseries.csv (with `[power]` and a time series); None otherwise."""
    @property
    def buffer_history(self) -> Optional[Table]:
        """buffer_history.csv; None unless run with `buffer_history`."""
    @property
    def trace(self) -> Optional[str]:
        """The ranks' timeline (Chrome trace-event JSON: ui.perfetto.dev opens it); None unless
        run with `trace=True` or `plots=True`."""
    def report_html(self) -> str:
        """`report.html`: the summary, what bounded the run, the values reported, the timeline,
        the network coloured by load and the links' heat map, as one self-contained page."""
    def _repr_html_(self) -> str:
        """The page in a frame: how Jupyter shows a result."""
    def write(self, dir: PathLike) -> None:
        """Writes the output folder, as `mgensim run --out DIR` does: summary.json, the CSV
        files, report.html (and, with `plots`, trace.json and the SVG pictures); whole or not
        at all."""

def run(path: PathLike, **options: Any) -> Result:
    """`Scenario.load(path).run(**options)`: `mgensim run PATH` in one call."""

def sweep(scenario: Scenario, vary: Optional[Mapping[str, Values]] = None,
          zip: Optional[Mapping[str, Values]] = None, *, processes: Optional[int] = None,
          strict: bool = False, power_baseline: bool = False,
          set: Optional[Mapping[str, Any]] = None, cancel: Optional[Cancel] = None) -> Table:
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

def dumps(value: Any) -> str:
    """`value` as JSON, written as `mgensim run --json` writes its summary (two-space indents,
    floats in their shortest form, `0.000012` not `1.2e-05`, text as it is), final line break
    included: `dumps(result.summary)` is the command line's output byte for byte."""
