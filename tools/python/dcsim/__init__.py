"""dcsim's outputs in Python: read a run or a sweep into pandas DataFrames and plot them.

    import sys; sys.path.insert(0, "tools/python")   # or: PYTHONPATH=tools/python
    import dcsim
    run = dcsim.read_run("out/default")                  # run.summary, run.replicas, ... run.run_info
    sweep = dcsim.read_sweep("out/rcs")                  # sweep.table, sweep.keys, sweep.run(point)
    dcsim.metric_vs_key(sweep, "operations.restart_s")   # goodput_frac with 95% CI error bars

Needs pandas and matplotlib (Debian: python3-pandas, python3-matplotlib). See outputs.py for the files
and their units, plots.py for the charts.
"""

from .outputs import (NotADcsimFolderError, Run, Sweep, find_output, read_run, read_sweep, RUN_CSV_FILES,
                      RUN_JSON_FILES)
from .plots import (goodput_over_time, loss_waterfall, lost_gpu_time, metric_heatmap, metric_vs_key,
                    prefers_log, training_over_time)

__all__ = ["NotADcsimFolderError", "Run", "Sweep", "find_output", "read_run", "read_sweep", "RUN_CSV_FILES",
           "RUN_JSON_FILES", "goodput_over_time", "loss_waterfall", "lost_gpu_time", "metric_heatmap",
           "metric_vs_key", "prefers_log", "training_over_time"]
