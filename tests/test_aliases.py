"""The renamed result columns: the old names still read, with one FutureWarning, for one release
(ccarena._aliases, docs/results.md "Renamed columns"), and stores written before the rename open
under the new names."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import ccarena
from ccarena import RunResult, _aliases, api, plots
from ccarena._columns import ALIASES_REMOVED_IN, RENAMED
from ccarena.experiment.store import Store
from ccarena.experiment.tables import grid_table

ROOT = Path(__file__).resolve().parents[1]
RENO_PAIR = ROOT / "scenarios" / "reno-pair.toml"
SHORT = ["duration=4s", "warmup=1s"]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3])


def test_the_aliases_go_in_the_next_minor_release() -> None:
    # Fails once the version reaches ALIASES_REMOVED_IN: then the old names are to be removed.
    now = _version(ccarena.__version__)
    assert _version(ALIASES_REMOVED_IN) == (now[0], now[1] + 1, 0)


def _read_old(read: Any, message: str) -> Any:
    """What ``read()`` returns, checking it warned exactly once, with ``message``, at this file."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = read()
    assert [str(w.message) for w in caught] == [message]
    assert caught[0].category is FutureWarning
    assert caught[0].filename == __file__  # the warning points at the line that used the old name
    return value


def _message(table: str, old: str, new: str) -> str:
    return f"{table} column {old!r} is now {new!r}; the old name goes in the next release ({ALIASES_REMOVED_IN})"


@pytest.mark.parametrize(("table", "old", "new"), [(t, o, n) for t, names in RENAMED.items() for o, n in names.items()])
def test_an_old_name_reads_the_new_column_with_one_warning(raw: dict[str, Any], table: str, old: str, new: str) -> None:
    df = getattr(RunResult(raw), table)
    assert old not in df.columns and new in df.columns
    expected = df[new]
    pd.testing.assert_series_equal(_read_old(lambda: df[old], _message(table, old, new)), expected)
    pd.testing.assert_series_equal(_read_old(lambda: getattr(df, old), _message(table, old, new)), expected)
    both = _read_old(lambda: df[[old, "t_s" if "series" in table else "src"]], _message(table, old, new))
    assert list(both.columns) == [new, "t_s" if "series" in table else "src"]


def test_slices_copies_and_filtered_rows_keep_the_old_names(raw: dict[str, Any]) -> None:
    r = RunResult(raw)
    message = _message("flows", "id", "flow_id")
    for part in (r.main_flows, r.flows[r.flows["goodput_bps"] > 0], r.flows.copy(), r.flows.head(2), r.flows.iloc[1:]):
        assert type(part) is _aliases.AliasedFrame
        assert _read_old(lambda part=part: part["id"], message).tolist() == part["flow_id"].tolist()


def test_new_names_and_other_columns_read_without_a_warning(raw: dict[str, Any]) -> None:
    r = RunResult(raw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert r.flows["flow_id"].tolist() == [0, 1, 2]
        assert r.flows[["flow_id", "delay_mean_s"]].shape == (3, 2)
        assert r.flows.group.tolist() == ["a", "a", "b"]
        assert r.link_series["link"].iloc[0] == "bottleneck"
    with pytest.raises(KeyError):
        r.flows["no_such_column"]
    with pytest.raises(AttributeError):
        r.flows.no_such_column  # noqa: B018 - the attribute read is the test


def test_the_derived_delay_twin_is_gone_but_still_reads(raw: dict[str, Any]) -> None:
    flows = RunResult(raw).flows
    assert list(flows.columns).count("delay_mean_s") == 1 and "mean_delay_s" not in flows.columns
    old = _read_old(lambda: flows["mean_delay_s"], _message("flows", "mean_delay_s", "delay_mean_s"))
    assert old.tolist() == pytest.approx([0.025, 0.03, 0.05])


def test_a_column_that_really_has_an_old_name_is_read_as_it_is() -> None:
    own = _aliases.aliased(pd.DataFrame({"id": [7], "flow_id": [1]}), "flows")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert own["id"].tolist() == [7]


def test_the_json_summary_carries_the_old_keys_beside_the_new(raw: dict[str, Any]) -> None:
    s = RunResult(raw).summary()
    for flow in s["flows"]:
        assert (flow["id"], flow["mean_delay_s"]) == (flow["flow_id"], flow["delay_mean_s"])
    assert [link["name"] for link in s["links"]] == [link["link"] for link in s["links"]]


def test_parquet_files_carry_only_the_new_names(raw: dict[str, Any], tmp_path: Path) -> None:
    out = RunResult(raw).to_parquet(tmp_path / "run")
    for table, names in RENAMED.items():
        columns = set(pd.read_parquet(out / f"{table}.parquet").columns)
        assert set(names.values()) <= columns and not set(names) & columns, table


def test_goodput_series_reads_its_old_flow_column(raw: dict[str, Any]) -> None:
    gs = plots.goodput_series(RunResult(raw))
    assert list(gs.columns) == ["flow_id", "t_s", "goodput_bps"]
    assert _read_old(lambda: gs["flow"], _message("goodput_series", "flow", "flow_id")).tolist() == gs["flow_id"].tolist()


def test_a_plan_reads_the_old_names_too() -> None:
    p = api.plan(RENO_PAIR, overrides=SHORT)
    assert p.columns["flows"][0] == "flow_id" and p.columns["flow_series"][0] == "flow_id" and p.columns["links"][0] == "link"
    assert _read_old(lambda: p.flows["id"], _message("flows", "id", "flow_id")).tolist() == [0, 1]
    assert _read_old(lambda: p.links["name"], _message("links", "name", "link")).iloc[0] == "bottleneck"


# --- campaigns -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> ccarena.ExperimentResult:
    exp = ccarena.Experiment(RENO_PAIR, grid={"flows[0].cc": ["reno", "cubic"]}, replications=2, overrides=SHORT, name="pair")
    return exp.run(tmp_path_factory.mktemp("store"), jobs=1, series=True)


def test_experiment_tables_read_the_old_names(campaign: ccarena.ExperimentResult) -> None:
    res = campaign
    assert "delay_mean_s" in res.metrics and "run_delay_mean_s" in res.runs and "mean_delay_s" not in res.runs
    cases = [
        (res.runs, "runs", "id", "flow_id"),
        (res.runs, "runs", "mean_delay_s", "delay_mean_s"),
        (res.runs, "runs", "run_mean_delay_s", "run_delay_mean_s"),
        (res.metrics, "metrics", "mean_delay_s", "delay_mean_s"),
        (res.links, "links", "name", "link"),
        (res.series(), "flow_series", "flow", "flow_id"),
    ]
    for df, table, old, new in cases:
        pd.testing.assert_series_equal(_read_old(lambda df=df, old=old: df[old], _message(table, old, new)), df[new])


def test_summary_and_compare_take_the_old_metric_name(campaign: ccarena.ExperimentResult) -> None:
    res = campaign
    message = f"metric 'mean_delay_s' is now 'delay_mean_s'; the old name goes in the next release ({ALIASES_REMOVED_IN})"
    old = _read_old(lambda: res.summary(["mean_delay_s"]), message)
    pd.testing.assert_frame_equal(old, res.summary(["delay_mean_s"]))
    assert set(old["metric"]) == {"delay_mean_s"}
    grouped = _read_old(lambda: res.summary(["mean_delay_s"], per="group"), message)
    pd.testing.assert_frame_equal(grouped, res.summary(["delay_mean_s"], per="group"))
    paired = _read_old(lambda: res.compare("flows[0].cc", "cubic", "reno", "mean_delay_s"), message)
    pd.testing.assert_frame_equal(paired, res.compare("flows[0].cc", "cubic", "reno", "delay_mean_s"))
    # what `ccarena sweep -m mean_delay_s` prints
    headers, rows, _ = _read_old(lambda: grid_table(res, ["mean_delay_s"]), message)
    assert (headers, rows) == grid_table(res, ["delay_mean_s"])[:2]


#: How the version before the rename named the stored columns and metrics: new name → old.
OLD_STORED = {
    "flows": {"flow_id": "id"},
    "flow_series": {"flow_id": "flow"},
    "links": {"link": "name"},
}


def _as_written_before_the_rename(store: Store, key: str) -> None:
    """Rewrite a stored run as the previous version wrote it: old column names, the derived
    ``mean_delay_s`` beside ``delay_mean_s`` in ``flows``, the metric ``mean_delay_s``."""
    tables = {}
    for path in sorted((store.runs_dir / key).glob("*.parquet")):
        df = pd.read_parquet(path).rename(columns=OLD_STORED.get(path.stem, {}))
        if path.stem == "flows":
            df["mean_delay_s"] = df["delay_mean_s"]
        tables[path.stem] = df
    info = json.loads((store.runs_dir / key / "run.json").read_text())
    info = {k: v for k, v in info.items() if k not in ("files", "checksum")}
    info["metrics"] = {("mean_delay_s" if k == "delay_mean_s" else k): v for k, v in info["metrics"].items()}
    store.write_run(key, tables, info)


def test_a_store_written_before_the_rename_opens_with_the_new_names(campaign: ccarena.ExperimentResult, tmp_path: Path) -> None:
    import shutil

    old_root = tmp_path / "old"
    shutil.copytree(campaign.store.root, old_root)
    store = Store(old_root)
    for row in campaign.plan:
        _as_written_before_the_rename(store, row["key"])
    assert "id" in pd.read_parquet(old_root / "runs" / campaign.plan[0]["key"] / "flows.parquet").columns
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading an old store is not a use of an old name
        reopened = ccarena.open_store(old_root)
        series = reopened.series()
    for name in ("runs", "links", "metrics"):
        pd.testing.assert_frame_equal(getattr(reopened, name), getattr(campaign, name), check_exact=True, obj=name)
    pd.testing.assert_frame_equal(series, campaign.series(), check_exact=True)
