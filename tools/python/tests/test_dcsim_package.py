"""Unit tests of the dcsim Python package (tools/python/dcsim) on outputs the test makes with the dcsim
binary: a run of scenarios/default.json (2 replicas) and a sweep of scenarios/restart-checkpoint-sweep.json
(9 points, 2 replicas each).

Run by ctest ("scenario: python package ..."); by hand, from the repository root:
    DCSIM_BINARY=build/tools/dcsim /usr/bin/python3 -m unittest discover -s tools/python/tests -v
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

SOURCE = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(SOURCE / "tools" / "python"))

import dcsim  # noqa: E402

BINARY = os.environ.get("DCSIM_BINARY", str(SOURCE / "build" / "tools" / "dcsim"))


def dcsim_command(*args):
    result = subprocess.run([BINARY, *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"dcsim {' '.join(args)} failed ({result.returncode}): {result.stderr}")


def csv_rows(path):
    """The file's rows as lists of strings, header first (Python's csv module, independent of pandas)."""
    with open(path, newline="") as f:
        return list(csv.reader(f))


class PackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        base = os.environ.get("DCSIM_TEST_OUTPUT_DIR")
        if base:
            Path(base).mkdir(parents=True, exist_ok=True)
        cls.tmp = Path(tempfile.mkdtemp(prefix="python-package-", dir=base))
        cls.run_dir = cls.tmp / "run"
        cls.sweep_dir = cls.tmp / "sweep"
        dcsim_command("run", str(SOURCE / "scenarios" / "default.json"), "--replicas", "2", "-q", "-j", "2",
                      "--out", str(cls.run_dir))
        dcsim_command("sweep", str(SOURCE / "scenarios" / "restart-checkpoint-sweep.json"), "--replicas", "2",
                      "-q", "-j", "2", "--out", str(cls.sweep_dir))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)
        plt.close("all")

    def test_read_run_frames_match_the_csv_files(self):
        run = dcsim.read_run(self.run_dir)
        for name in dcsim.RUN_CSV_FILES:
            rows = csv_rows(self.run_dir / f"{name}.csv")
            frame = run[name]
            self.assertIsNotNone(frame, name)
            self.assertEqual(list(frame.columns), rows[0], name)
            self.assertEqual(len(frame), len(rows) - 1, name)
        # Every number is the double dcsim wrote (round-trip parsing), checked cell by cell on summary.csv.
        for frame_row, text_row in zip(run.summary.itertuples(index=False), csv_rows(self.run_dir / "summary.csv")[1:]):
            for value, text in zip(frame_row, text_row):
                if isinstance(value, float):
                    self.assertTrue(np.isnan(value) if text == "" else value == float(text), (value, text))
                else:
                    self.assertEqual(str(value), text)
        self.assertEqual(run.jobs, ["pretrain"])
        self.assertEqual(sorted(run.replicas.replica.unique()), [0, 1])
        self.assertEqual(len(run.replicas), 2 * 2)  # pretrain and cluster, per replica
        # summary.csv's mean is the mean over replicas.csv's rows.
        for job in ["pretrain", "cluster"]:
            for metric in ["goodput_frac", "ledger_productive_gpu_h"]:
                mean = run.metric(metric).loc[job, "mean"]
                self.assertAlmostEqual(mean, run.replicas.loc[run.replicas.job == job, metric].mean(), delta=1e-12)
        # An empty cell is NaN (mfu_frac is undefined on the cluster row), never 0.
        self.assertTrue(run.replicas.loc[run.replicas.job == "cluster", "mfu_frac"].isna().all())
        # JSON files as dicts.
        self.assertEqual(run.run_info["replicas"], 2)
        self.assertEqual(run.run_info["seed"], 1)
        self.assertIn("dcsim_version", run.run_info)
        with open(self.run_dir / "scenario.json") as f:
            self.assertEqual(run.scenario, json.load(f))
        self.assertEqual(run["complete"], run.complete)
        self.assertIn("summary.csv", [f["name"] for f in run.complete["files"]])
        with self.assertRaises(KeyError):
            run["nonsense"]

    def test_ledger_states_sum_to_the_gpu_time_held(self):
        # default.json: 1,024 GPUs held by pretrain for 336 h, in every replica.
        run = dcsim.read_run(self.run_dir)
        held = dcsim.lost_gpu_time(run, "pretrain").sum()
        self.assertAlmostEqual(held, 1024 * run.scenario["duration_h"], delta=1e-6)

    def test_read_sweep_one_row_per_point_with_the_varied_keys(self):
        sweep = dcsim.read_sweep(self.sweep_dir)
        self.assertEqual(sweep.keys, ["operations.restart_s", "jobs.0.checkpoint.interval_s"])
        rows = csv_rows(self.sweep_dir / "sweep.csv")
        self.assertEqual(len(sweep.table), len(rows) - 1)
        points = sweep.points
        self.assertEqual(list(points.index), list(range(9)))
        self.assertEqual(list(points["operations.restart_s"]), [120] * 3 + [600] * 3 + [1800] * 3)
        self.assertEqual(list(points["jobs.0.checkpoint.interval_s"]), ["auto", "600", "7200"] * 3)
        goodput = sweep.metric("goodput_frac")
        self.assertEqual(len(goodput), 9)
        self.assertTrue((goodput.replicas == 2).all())
        # Each point's run is its folder, and sweep.csv repeats its summary.csv.
        for point in [0, 4, 8]:
            run = sweep.run(point)
            self.assertEqual(run.folder.name, f"point-{point:03d}")
            self.assertEqual(run.metric("goodput_frac").loc["pretrain", "mean"],
                             goodput.loc[goodput.point == point, "mean"].iloc[0])
            self.assertIsNone(run.run_info)  # sweep points have no run.json
        self.assertIs(sweep.run(4), sweep.run(4))  # read once

    def test_compressed_outputs_read_as_the_plain_ones(self):
        # The same run and sweep with --compress gzip and zstd: pandas reads each file as it is (by its
        # suffix), and the package's frames equal the plain outputs' frames cell for cell.
        import pandas as pd
        plain = dcsim.read_run(self.run_dir)
        for method, suffix in (("gzip", ".gz"), ("zstd", ".zst")):
            folder = self.tmp / f"run-{method}"
            dcsim_command("run", str(SOURCE / "scenarios" / "default.json"), "--replicas", "2", "-q", "-j", "2",
                          "--compress", method, "--out", str(folder))
            names = sorted(p.name for p in folder.iterdir())
            self.assertEqual(names, sorted([f"{n}.csv{suffix}" for n in dcsim.RUN_CSV_FILES]
                                           + ["complete.json", "run.json", "scenario.json"]))
            run = dcsim.read_run(folder)
            for name in dcsim.RUN_CSV_FILES:
                pd.testing.assert_frame_equal(run[name], plain[name], check_exact=True, obj=f"{method} {name}")
                direct = pd.read_csv(folder / f"{name}.csv{suffix}")  # as is: pandas infers the compression
                pd.testing.assert_frame_equal(direct, pd.read_csv(self.run_dir / f"{name}.csv"), check_exact=True)
        sweep_gz = self.tmp / "sweep-gzip"
        dcsim_command("sweep", str(SOURCE / "scenarios" / "restart-checkpoint-sweep.json"), "--replicas", "2",
                      "-q", "-j", "2", "--compress", "gzip", "--out", str(sweep_gz))
        self.assertTrue((sweep_gz / "sweep.csv.gz").is_file())
        self.assertFalse((sweep_gz / "sweep.csv").exists())
        sweep, zipped = dcsim.read_sweep(self.sweep_dir), dcsim.read_sweep(sweep_gz)
        self.assertEqual(zipped.keys, sweep.keys)
        pd.testing.assert_frame_equal(zipped.table, sweep.table, check_exact=True)
        pd.testing.assert_frame_equal(zipped.run(4).summary, sweep.run(4).summary, check_exact=True)
        # Two forms of one file: which is meant cannot be told.
        both = self.tmp / "both"
        shutil.copytree(self.tmp / "run-gzip", both)
        shutil.copy(self.run_dir / "summary.csv", both / "summary.csv")
        with self.assertRaises(dcsim.NotADcsimFolderError) as e:
            dcsim.read_run(both)
        self.assertEqual(str(e.exception), f"{both / 'summary.csv'}: both summary.csv and summary.csv.gz exist: "
                         "which one to read cannot be told (remove one)")

    def test_errors_name_the_missing_file(self):
        empty = self.tmp / "empty"
        empty.mkdir(exist_ok=True)
        with self.assertRaises(dcsim.NotADcsimFolderError) as e:
            dcsim.read_run(empty)
        self.assertEqual(str(e.exception), f"{empty / 'summary.csv'}: no such file: not a dcsim run folder")
        self.assertIsInstance(e.exception, FileNotFoundError)
        self.assertEqual(e.exception.filename, str(empty / "summary.csv"))

        with self.assertRaises(dcsim.NotADcsimFolderError) as e:
            dcsim.read_sweep(self.run_dir)
        self.assertEqual(str(e.exception),
                         f"{self.run_dir / 'sweep.csv'}: no such file: not a dcsim sweep folder (a run folder: use read_run)")
        with self.assertRaises(dcsim.NotADcsimFolderError) as e:
            dcsim.read_run(self.sweep_dir)
        self.assertIn("(a sweep folder: use read_sweep)", str(e.exception))
        with self.assertRaises(dcsim.NotADcsimFolderError) as e:
            dcsim.read_run(self.tmp / "no-such-folder")
        self.assertIn("no-such-folder: not a folder", str(e.exception))

        # A file that complete.json lists but the folder lacks: named.
        broken = self.tmp / "broken"
        shutil.copytree(self.run_dir, broken)
        (broken / "events.csv").unlink()
        with self.assertRaises(dcsim.NotADcsimFolderError) as e:
            dcsim.read_run(broken)
        self.assertEqual(str(e.exception),
                         f"{broken / 'events.csv'}: no such file, but complete.json lists it (the run is incomplete)")
        # A CSV that is not one.
        shutil.copy(self.run_dir / "events.csv", broken / "events.csv")
        (broken / "ledger.csv").write_bytes(b"\x00\xff\xfe garbage\n\"unclosed")
        with self.assertRaises(dcsim.NotADcsimFolderError) as e:
            dcsim.read_run(broken)
        self.assertTrue(str(e.exception).startswith(f"{broken / 'ledger.csv'}: cannot read the CSV file"))
        with self.assertRaises(dcsim.NotADcsimFolderError) as e:
            dcsim.read_sweep(self.sweep_dir).point_folder(42)
        self.assertIn("point-042: no folder for point 42", str(e.exception))

    def test_metric_vs_key_draws_the_means_and_intervals(self):
        sweep = dcsim.read_sweep(self.sweep_dir)
        ax = dcsim.metric_vs_key(sweep, "operations.restart_s", job="pretrain")
        goodput = sweep.metric("goodput_frac", "pretrain")
        lines = ax.get_lines()
        self.assertEqual(len(ax.containers), 3)  # one error-bar series per checkpoint interval
        for container, interval in zip(ax.containers, ["auto", "600", "7200"]):
            x, y = container.lines[0].get_data()
            expected = goodput[goodput["jobs.0.checkpoint.interval_s"] == interval]
            self.assertEqual(list(x), [120, 600, 1800])
            np.testing.assert_array_equal(y, expected["mean"].to_numpy())
            # The error bar spans exactly the 95% interval, clipped to a fraction's [0, 1].
            segments = container.lines[2][0].get_segments()
            np.testing.assert_allclose([s[0][1] for s in segments], expected.ci95_low.clip(lower=0), rtol=0, atol=1e-15)
            np.testing.assert_allclose([s[1][1] for s in segments], expected.ci95_high.clip(upper=1), rtol=0, atol=1e-15)
        self.assertTrue(lines)
        # 120, 600, 1800 s span more than a decade unevenly: a log axis, as in dcsim report.
        self.assertEqual(ax.get_xscale(), "log")
        self.assertTrue(dcsim.prefers_log([600, 1800, 7200]))
        self.assertFalse(dcsim.prefers_log(range(100, 1001, 100)))
        self.assertFalse(dcsim.prefers_log([0, 2, 4]))
        with self.assertRaises(KeyError):
            dcsim.metric_vs_key(sweep, "cluster.racks")

    def test_heatmap_holds_the_means(self):
        sweep = dcsim.read_sweep(self.sweep_dir)
        ax = dcsim.metric_heatmap(sweep, "jobs.0.checkpoint.interval_s", "operations.restart_s")
        cells = ax.images[0].get_array()
        goodput = sweep.metric("goodput_frac", "pretrain")
        np.testing.assert_array_equal(np.asarray(cells), goodput["mean"].to_numpy().reshape(3, 3))
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], ["auto", "600", "7200"])

    def test_run_plots(self):
        run = dcsim.read_run(self.run_dir)
        series = dcsim.training_over_time(run)
        self.assertEqual(len(series), run.timeseries.time_s.nunique())
        self.assertTrue(((series.training_frac >= 0) & (series.training_frac <= 1)).all())
        ax = dcsim.goodput_over_time(run)
        self.assertEqual(ax.get_xlabel(), "simulated time (h)")
        ax = dcsim.loss_waterfall(run)
        # Bars: 100%, one per state that held GPU-time, productive; they end where productive starts.
        hours = dcsim.lost_gpu_time(run, "pretrain")
        bars = ax.patches
        self.assertEqual(len(bars), 1 + int((hours.drop("productive") > 0).sum()) + 1)
        self.assertAlmostEqual(bars[-1].get_height(), hours["productive"] / hours.sum(), delta=1e-12)
        self.assertAlmostEqual(bars[-1].get_height(), run.metric("goodput_frac").loc["pretrain", "mean"],
                               delta=1e-12)


    def test_service_waterfall_keeps_serving(self):
        # An inference service's ledger (serving, moving, down): the waterfall ends at serving. Mean over
        # 2 replicas: serving 95 GPU-h, moving 3, down 2, so serving keeps 95% of the 100 GPU-h held.
        import pandas as pd
        ledger = pd.DataFrame({"replica": [0, 0, 0, 1, 1, 1], "job": ["chat"] * 6,
                               "state": ["serving", "moving", "down"] * 2,
                               "gpu_hours": [96.0, 2.0, 2.0, 94.0, 4.0, 2.0]})
        summary = pd.DataFrame({"scenario": ["s"], "job": ["chat"], "metric": ["served_frac"], "mean": [1.0],
                                "ci95_low": [1.0], "ci95_high": [1.0], "replicas": [2]})
        run = dcsim.Run(folder=Path("synthetic"), summary=summary, ledger=ledger)
        ax = dcsim.loss_waterfall(run)
        self.assertEqual(len(ax.patches), 4)  # held, moving, down, serving
        self.assertAlmostEqual(ax.patches[-1].get_height(), 0.95, delta=1e-12)
        self.assertEqual(ax.get_xticklabels()[-1].get_text(), "serving\n95.00%")


if __name__ == "__main__":
    unittest.main()
