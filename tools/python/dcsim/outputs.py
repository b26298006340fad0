"""Reading the outputs of `dcsim run` and `dcsim sweep` into pandas DataFrames.

A run folder (README "Outputs"; the files are written by tools/dcsim/outputs.cpp):

    summary.csv     scenario,job,metric,mean,ci95_low,ci95_high,replicas   (95% Student-t interval)
    replicas.csv    replica,job, then one column per metric (docs/metrics.md: unit in the name)
    ledger.csv      replica,job,state,gpu_hours
    causes.csv      replica,job,cause,failures,interruptions,mttr_h,unrepaired
    events.csv      replica,time_s,kind,component,scope,job,detail
    timeseries.csv  replica,time_s,entity,gauge,value   (long form: pivot on gauge)
    racks.csv       replica,rack,loop,availability_frac,down_gpu_h,failures
    losses.csv      replica,job,cause,domain,state,gpu_us,gpu_h,share_of_paid_frac   (loss by cause)
    scenario.json   the scenario document that was run
    run.json        provenance (dcsim version, commit, command line, seed, date, host); absent in sweep points
    complete.json   the completion marker: every output file with its size and hash

A sweep folder: sweep.csv (point, one column per varied key, then summary.csv's columns) and
points/point-NNN/, each a run folder.

Compressed outputs (`dcsim run --compress gzip|zstd`, and sweep): each CSV file is NAME.csv.gz or
NAME.csv.zst instead of NAME.csv. They are read here as they are (pandas decompresses by the suffix; .zst
needs the `zstandard` module, Debian's python3-zstandard); a folder holding two forms of one file is an
error, since which one is meant cannot be told.

Columns keep dcsim's names and therefore their unit suffixes (`_s`, `_h`, `_gpu_h`, `_kw`, `_frac`,
`_usd`, ...). Numbers are parsed with round-trip precision, so a value read here is the double dcsim
wrote. An empty cell (a metric undefined for that row) is NaN.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

import pandas as pd

#: The CSV files of a run, by the name used for them here (the file name without ".csv").
RUN_CSV_FILES = ("summary", "replicas", "ledger", "causes", "events", "timeseries", "racks", "losses")
#: The JSON files of a run, by attribute name.
RUN_JSON_FILES = {"scenario": "scenario.json", "run_info": "run.json", "complete": "complete.json"}
#: Columns of summary.csv, after which sweep.csv's varied-key columns end.
SUMMARY_COLUMNS = ("scenario", "job", "metric", "mean", "ci95_low", "ci95_high", "replicas")


class NotADcsimFolderError(FileNotFoundError):
    """A folder is not a dcsim run or sweep: the message names the file that is missing or unreadable.

    `filename` holds that file's path (as for FileNotFoundError)."""

    def __init__(self, path: Path, what: str):
        super().__init__(f"{path}: {what}")
        self.message = f"{path}: {what}"
        self.filename = str(path)

    def __str__(self) -> str:  # OSError's would print "[Errno None] None: 'file'"
        return self.message


#: The forms a CSV output can take: plain, gzip (`--compress gzip`) or zstd (`--compress zstd`).
COMPRESSED_SUFFIXES = ("", ".gz", ".zst")


def find_output(folder, name: str) -> Optional[Path]:
    """The file that holds output `name` (e.g. "summary.csv") in `folder`: NAME, NAME.gz or NAME.zst,
    whichever exists; None when none does. Raises NotADcsimFolderError when more than one exists."""
    folder = Path(folder)
    found = [folder / (name + s) for s in COMPRESSED_SUFFIXES if (folder / (name + s)).is_file()]
    if len(found) > 1:
        raise NotADcsimFolderError(folder / name, "both " + " and ".join(p.name for p in found)
                                   + " exist: which one to read cannot be told (remove one)")
    return found[0] if found else None


def _read_csv(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path, float_precision="round_trip", keep_default_na=False,
                           na_values=[""])
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise NotADcsimFolderError(path, f"cannot read the CSV file ({e})") from e


def _read_json(path: Path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise NotADcsimFolderError(path, f"cannot read the JSON file ({e})") from e


@dataclass
class Run:
    """The outputs of one `dcsim run` (or one sweep point), as DataFrames and dicts.

    Attributes (None when the run did not write the file):
      folder      the run's folder
      summary     summary.csv: one row per job (and `cluster`) and metric; mean, ci95_low, ci95_high in
                  the metric's unit (docs/metrics.md), replicas = replicas where the metric is defined
      replicas    replicas.csv: one row per replica and job, one column per metric (unit in its name)
      ledger      ledger.csv: gpu_hours (GPU-h) per replica, job and ledger state
      causes      causes.csv: failures, interruptions (counts) and mttr_h (h) per failure mode
      events      events.csv: time_s (s of simulated time) and what happened
      timeseries  timeseries.csv: value of each gauge (unit in the gauge's name) at time_s (s)
      racks       racks.csv: availability_frac, down_gpu_h (GPU-h), failures per rack
      losses      losses.csv: each job's held GPU-time by cause and ledger state: gpu_us (GPU-µs, exact
                  integers), gpu_h (GPU-h), share_of_paid_frac (docs/metrics.md)
      scenario    scenario.json as a dict: the scenario that was run
      run_info    run.json as a dict: provenance (absent for sweep points)
      complete    complete.json as a dict: the files of the run with their sizes and hashes
    Indexing by file name works too: run["summary"], run["run_info"].
    """

    folder: Path
    summary: pd.DataFrame
    replicas: Optional[pd.DataFrame] = None
    ledger: Optional[pd.DataFrame] = None
    causes: Optional[pd.DataFrame] = None
    events: Optional[pd.DataFrame] = None
    timeseries: Optional[pd.DataFrame] = None
    racks: Optional[pd.DataFrame] = None
    losses: Optional[pd.DataFrame] = None
    scenario: Optional[dict] = None
    run_info: Optional[dict] = None
    complete: Optional[dict] = None

    def __getitem__(self, name: str):
        if name not in RUN_CSV_FILES and name not in RUN_JSON_FILES:
            raise KeyError(f"{name!r}: a run has {', '.join(RUN_CSV_FILES + tuple(RUN_JSON_FILES))}")
        return getattr(self, name)

    @property
    def jobs(self) -> List[str]:
        """Jobs and services of the run, in scenario order (without `cluster`)."""
        return [j for j in self.summary.job.unique() if j != "cluster"]

    def metric(self, metric: str = "goodput_frac") -> pd.DataFrame:
        """summary.csv's rows of one metric, indexed by job: mean, ci95_low, ci95_high, replicas."""
        rows = self.summary[self.summary.metric == metric]
        if rows.empty:
            raise KeyError(f"{self.folder / 'summary.csv'}: no metric {metric!r}")
        return rows.set_index("job")[["mean", "ci95_low", "ci95_high", "replicas"]]


def read_run(folder) -> Run:
    """Reads a run folder written by `dcsim run` (or a sweep's points/point-NNN).

    Raises NotADcsimFolderError (a FileNotFoundError) naming the file when the folder is missing, has
    no summary.csv, or lacks a file that its complete.json lists; a CSV that cannot be parsed is named
    the same way. Files that a run may omit (racks.csv of older runs, run.json of sweep points) are None
    unless complete.json lists them.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise NotADcsimFolderError(folder, "not a folder (no dcsim run here)")
    summary_path = find_output(folder, "summary.csv")
    if summary_path is None:
        hint = " (a sweep folder: use read_sweep)" if find_output(folder, "sweep.csv") else ""
        raise NotADcsimFolderError(folder / "summary.csv", f"no such file: not a dcsim run folder{hint}")
    listed: List[str] = []
    complete = None
    if (folder / "complete.json").is_file():
        complete = _read_json(folder / "complete.json")
        listed = [f.get("name") for f in complete.get("files", []) if isinstance(f, dict)]
    for name in listed:
        if name and not (folder / name).is_file():
            raise NotADcsimFolderError(folder / name,
                                       "no such file, but complete.json lists it (the run is incomplete)")
    frames: Dict[str, Optional[pd.DataFrame]] = {}
    for name in RUN_CSV_FILES:
        path = find_output(folder, f"{name}.csv")
        frames[name] = _read_csv(path) if path is not None else None
    documents = {key: _read_json(folder / file) if (folder / file).is_file() else None
                 for key, file in RUN_JSON_FILES.items() if key != "complete"}
    return Run(folder=folder, complete=complete, **frames, **documents)


@dataclass
class Sweep:
    """The outputs of one `dcsim sweep`.

    Attributes:
      folder  the sweep's folder
      table   sweep.csv: point, one column per varied key (values as dcsim renders them: numbers
              as numbers when every value of the key is one, otherwise strings such as "auto"), then
              summary.csv's columns (scenario, job, metric, mean, ci95_low, ci95_high, replicas; mean
              and interval in the metric's unit)
      keys    the varied keys, as sweep.csv names its columns (a key named like a fixed column has a
              "sweep." prefix), slowest first
    """

    folder: Path
    table: pd.DataFrame
    keys: List[str]
    _runs: Dict[int, Run] = field(default_factory=dict, repr=False)

    @property
    def points(self) -> pd.DataFrame:
        """One row per point: its index and the value of each varied key (indexed by point)."""
        return self.table[["point"] + self.keys].drop_duplicates("point").set_index("point")

    def metric(self, metric: str = "goodput_frac", job: Optional[str] = None) -> pd.DataFrame:
        """One row per point (and job, unless `job` is given) of one metric: point, the varied keys,
        job, mean, ci95_low, ci95_high, replicas. `job=None` keeps every job but `cluster`."""
        rows = self.table[self.table.metric == metric]
        rows = rows[rows.job == job] if job is not None else rows[rows.job != "cluster"]
        if rows.empty:
            raise KeyError(f"{self.folder / 'sweep.csv'}: no rows of metric {metric!r}"
                           + (f" for job {job!r}" if job is not None else ""))
        return rows[["point"] + self.keys + ["job", "mean", "ci95_low", "ci95_high", "replicas"]] \
            .reset_index(drop=True)

    def point_folder(self, point: int) -> Path:
        """The folder of point `point` (points/point-NNN, however many digits the sweep used)."""
        pattern = re.compile(r"point-0*(\d+)$")
        points = self.folder / "points"
        if points.is_dir():
            for child in points.iterdir():
                m = pattern.match(child.name)
                if m and int(m.group(1)) == int(point):
                    return child
        raise NotADcsimFolderError(points / f"point-{int(point):03d}", f"no folder for point {point}")

    def run(self, point: int) -> Run:
        """The outputs of one point, read once (read_run of its folder)."""
        point = int(point)
        if point not in self._runs:
            self._runs[point] = read_run(self.point_folder(point))
        return self._runs[point]


def _typed(column: pd.Series) -> pd.Series:
    """A varied key's values: numeric when every value is a number, else the strings dcsim wrote."""
    numbers = pd.to_numeric(column, errors="coerce")
    return numbers if numbers.notna().all() else column.astype(str)


def read_sweep(folder) -> Sweep:
    """Reads a sweep folder written by `dcsim sweep` (sweep.csv and points/).

    Raises NotADcsimFolderError (a FileNotFoundError) naming sweep.csv when the folder has none (a
    sharded sweep before its `--merge-only` step, or not a sweep), or when sweep.csv lacks its fixed
    columns.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise NotADcsimFolderError(folder, "not a folder (no dcsim sweep here)")
    path = find_output(folder, "sweep.csv")
    if path is None:
        hint = " (a run folder: use read_run)" if find_output(folder, "summary.csv") else \
            " (a sharded sweep writes it in its --merge-only step)" if (folder / "points").is_dir() else ""
        raise NotADcsimFolderError(folder / "sweep.csv", f"no such file: not a dcsim sweep folder{hint}")
    # Varied keys are read as text first, so that "auto" beside 600 does not turn 600 into 600.0.
    try:
        header = pd.read_csv(path, nrows=0).columns.tolist()
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise NotADcsimFolderError(path, f"cannot read the CSV file ({e})") from e
    missing = [c for c in ("point",) + SUMMARY_COLUMNS if c not in header]
    if missing or header[0] != "point":
        raise NotADcsimFolderError(path, f"not a sweep.csv: missing columns {missing or ['point (first)']}")
    keys = header[1:header.index("scenario")]
    table = pd.read_csv(path, float_precision="round_trip", dtype={k: str for k in keys},
                        keep_default_na=False, na_values={c: [""] for c in header if c not in keys})
    for k in keys:
        table[k] = _typed(table[k])
    return Sweep(folder=folder, table=table, keys=keys)
