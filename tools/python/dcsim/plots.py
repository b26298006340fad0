"""Plots of dcsim outputs with matplotlib. Each function draws on `ax` (a new figure when None) and
returns the Axes; none calls plt.show().

Units: goodput and shares are fractions (0..1); GPU-time in GPU-hours (GPU-h); time in hours of
simulated time; a metric's mean and 95% interval in the metric's own unit (docs/metrics.md).
"""

from __future__ import annotations

from typing import Optional

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .outputs import Run, Sweep


def _axes(ax, figsize):
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def training_over_time(run: Run, job: Optional[str] = None) -> pd.DataFrame:
    """The job's `training` gauge (timeseries.csv; 1 while the job trains, 0 otherwise) averaged over
    replicas at each sample: index time_h (h of simulated time), columns `training_frac` (share of
    replicas training at that time) and `cumulative_frac` (share of samples up to then spent training,
    the running estimate of the fraction of wall time spent training). Training time includes steps
    later lost to rework, so cumulative_frac bounds the job's goodput_frac from above."""
    if run.timeseries is None or run.timeseries.empty:
        raise ValueError(f"{run.folder / 'timeseries.csv'}: no time series in this run")
    job = job or run.jobs[0]
    rows = run.timeseries[(run.timeseries.entity == job) & (run.timeseries.gauge == "training")]
    if rows.empty:
        raise ValueError(f"{run.folder / 'timeseries.csv'}: no `training` gauge for job {job!r}")
    by_time = rows.groupby("time_s").value.mean()
    out = pd.DataFrame({"training_frac": by_time.values}, index=pd.Index(by_time.index / 3600.0, name="time_h"))
    out["cumulative_frac"] = out.training_frac.expanding().mean()
    return out


def goodput_over_time(run: Run, job: Optional[str] = None, ax=None):
    """Share of replicas training at each sample (step line) and its running mean, against simulated
    time (h), with the job's goodput_frac from summary.csv (mean and 95% interval) as a band.
    `job` defaults to the run's first job."""
    job = job or run.jobs[0]
    series = training_over_time(run, job)
    ax = _axes(ax, (7, 3))
    ax.step(series.index, series.training_frac, where="post", lw=0.8, alpha=0.6,
            label="replicas training (share)")
    ax.plot(series.index, series.cumulative_frac, lw=1.6, label="training, running mean")
    goodput = run.metric("goodput_frac").loc[job]
    ax.axhline(goodput["mean"], color="k", lw=1, ls="--", label=f"goodput_frac {goodput['mean']:.4f}")
    if np.isfinite(goodput["ci95_low"]):
        ax.axhspan(goodput["ci95_low"], goodput["ci95_high"], color="k", alpha=0.1, label="95% CI")
    # The first hours (a restart from nothing) would squash the rest against the top of the axes.
    low = min(series.cumulative_frac.quantile(0.05), goodput["ci95_low"] if np.isfinite(goodput["ci95_low"])
              else goodput["mean"])
    ax.set_ylim(max(0.0, low - 0.05 * (1.0 - low) - 0.01), 1.005)
    ax.set_xlabel("simulated time (h)")
    ax.set_ylabel("fraction")
    ax.set_title(f"{job}: goodput over time")
    ax.legend(fontsize=7, loc="lower right")
    return ax


def lost_gpu_time(run: Run, job: Optional[str] = None) -> pd.Series:
    """Mean GPU-hours (GPU-h) per ledger state of one job (or `cluster`) over replicas (ledger.csv),
    in the file's state order."""
    if run.ledger is None:
        raise ValueError(f"{run.folder / 'ledger.csv'}: no ledger in this run")
    job = job or run.jobs[0]
    rows = run.ledger[run.ledger.job == job]
    if rows.empty:
        raise ValueError(f"{run.folder / 'ledger.csv'}: no rows for {job!r}")
    return rows.groupby("state", sort=False).gpu_hours.sum() / run.ledger.replica.nunique()


def loss_waterfall(run: Run, job: Optional[str] = None, ax=None, kept: Optional[str] = None):
    """Waterfall of lost GPU time: from 100% of the GPU-time held by `job` (default the first job; an
    inference service; `cluster` for the whole cluster) down to the `kept` state (default: productive,
    or serving for a service), one step per other ledger state that held GPU-time, as a share of the
    GPU-time, with each step's mean GPU-h in its label."""
    job = job or run.jobs[0]
    hours = lost_gpu_time(run, job)
    kept = kept or ("productive" if "productive" in hours.index else "serving")
    total = hours.sum()
    losses = hours.drop(index=kept, errors="ignore")
    losses = losses[losses > 0]  # states that never held GPU-time take no step
    ax = _axes(ax, (7, 3))
    labels, level = ["GPU-time held"], 1.0
    ax.bar(0, 1.0, color="tab:gray")
    for i, (state, h) in enumerate(losses.items(), start=1):
        share = h / total if total else 0.0
        ax.bar(i, share, bottom=level - share, color="tab:red")
        labels.append(f"{state}\n{h:,.0f} GPU-h")
        level -= share
    ax.bar(len(labels), level, color="tab:green")
    labels.append(f"{kept}\n{level:.2%}")
    ax.set_xticks(range(len(labels)), labels, fontsize=7, rotation=45, ha="right")
    ax.set_ylim(max(0.0, level - 0.1 * (1.0 - level) - 0.01), 1.0)
    ax.set_ylabel("share of GPU-time")
    ax.set_title(f"{job}: where the GPU-time went (mean of {run.ledger.replica.nunique()} replicas)")
    return ax


def prefers_log(values) -> bool:
    """Whether numeric values read better on a log axis, as dcsim report decides
    (tools/dcsim/svg_axis.hpp): all > 0, the largest at least 10 x the smallest, and the narrowest gap
    between neighbours a larger share of the axis on a log scale than on a linear one."""
    v = sorted(set(float(x) for x in values))
    if len(v) < 2 or v[0] <= 0 or v[-1] < 10 * v[0]:
        return False
    linear = min((b - a) / (v[-1] - v[0]) for a, b in zip(v, v[1:]))
    logarithmic = min(np.log(b / a) / np.log(v[-1] / v[0]) for a, b in zip(v, v[1:]))
    return bool(logarithmic > linear)


def metric_vs_key(sweep: Sweep, key: str, metric: str = "goodput_frac", job: Optional[str] = None, ax=None):
    """A metric's mean with 95% interval error bars (sweep.csv's ci95_low, ci95_high; metric's unit)
    against one varied key, one line per value of the other varied keys (and per job when `job` is None).
    String-valued keys ("auto", ...) are placed as categories in sweep order; numeric keys to scale, on a
    log axis where their values span decades (prefers_log). A fraction's interval (`_frac`) is drawn
    clipped to [0, 1], as dcsim report draws it."""
    if key not in sweep.keys:
        raise KeyError(f"{key!r} is not a varied key of {sweep.folder / 'sweep.csv'} ({', '.join(sweep.keys)})")
    rows = sweep.metric(metric, job)
    others = [k for k in sweep.keys if k != key] + (["job"] if job is None and rows.job.nunique() > 1 else [])
    numeric = pd.api.types.is_numeric_dtype(rows[key])
    categories = list(dict.fromkeys(rows[key]))
    ax = _axes(ax, (6, 3.5))
    groups = rows.groupby(others if len(others) > 1 else others[0], sort=False) if others else [((), rows)]
    for name, g in groups:
        name = name if isinstance(name, tuple) else (name,)
        x = g[key].to_numpy(dtype=float) if numeric else np.array([categories.index(v) for v in g[key]], float)
        order = np.argsort(x, kind="stable")
        low, high = g["ci95_low"], g["ci95_high"]
        if metric.endswith("_frac"):
            low, high = low.clip(lower=0), high.clip(upper=1)
        yerr = np.vstack([g["mean"] - low, high - g["mean"]])[:, order]
        label = ", ".join(f"{k}={v}" for k, v in zip(others, name)) or metric
        ax.errorbar(x[order], g["mean"].to_numpy()[order], yerr=np.nan_to_num(yerr), marker="o", capsize=3,
                    label=label)
    if not numeric:
        ax.set_xticks(range(len(categories)), [str(c) for c in categories])
    elif prefers_log(rows[key]):
        ax.set_xscale("log")
    ax.set_xlabel(key)
    ax.set_ylabel(f"{metric} (mean, 95% CI)")
    ax.set_title(f"{metric} against {key}" + (f" ({job})" if job else ""))
    if others:
        ax.legend(fontsize=7)
    return ax


def metric_heatmap(sweep: Sweep, x_key: str, y_key: str, metric: str = "goodput_frac",
                   job: Optional[str] = None, ax=None):
    """A metric's mean over two varied keys as a heatmap, each cell annotated with its mean and 95%
    half-width (metric's unit). `job` defaults to the sweep's first job. With more than two varied
    keys, cells average over the others (the title says so)."""
    for k in (x_key, y_key):
        if k not in sweep.keys:
            raise KeyError(f"{k!r} is not a varied key of {sweep.folder / 'sweep.csv'} ({', '.join(sweep.keys)})")
    rows = sweep.metric(metric, job)
    job = job or rows.job.iloc[0]
    rows = rows[rows.job == job].assign(half=lambda d: (d.ci95_high - d.ci95_low) / 2)
    mean = rows.pivot_table(index=y_key, columns=x_key, values="mean", aggfunc="mean", sort=False)
    half = rows.pivot_table(index=y_key, columns=x_key, values="half", aggfunc="mean", sort=False)
    ax = _axes(ax, (6, 4))
    image = ax.imshow(mean.to_numpy(dtype=float), cmap="viridis", aspect="auto", origin="lower")
    ax.figure.colorbar(image, ax=ax, label=metric)
    middle = np.nanmean([np.nanmin(mean.to_numpy(dtype=float)), np.nanmax(mean.to_numpy(dtype=float))])
    for (i, j), value in np.ndenumerate(mean.to_numpy(dtype=float)):
        h = half.to_numpy(dtype=float)[i, j]
        text = f"{value:.4f}" + (f"\n±{h:.4f}" if np.isfinite(h) else "")
        ax.text(j, i, text, ha="center", va="center", fontsize=7, color="k" if value > middle else "w")
    ax.set_xticks(range(len(mean.columns)), [str(c) for c in mean.columns])
    ax.set_yticks(range(len(mean.index)), [str(i) for i in mean.index])
    ax.set_xlabel(x_key)
    ax.set_ylabel(y_key)
    averaged = [k for k in sweep.keys if k not in (x_key, y_key)]
    ax.set_title(f"{job}: {metric}" + (f" (mean over {', '.join(averaged)})" if averaged else ""))
    return ax
