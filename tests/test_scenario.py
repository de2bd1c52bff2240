"""Loading scenarios and ``KEY=VALUE`` overrides (pure Python; no simulation)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ccarena
from ccarena import ScenarioError
from ccarena.scenario import apply_overrides, load, parse_override_value, to_json

BASE = {
    "name": "x",
    "seed": 1,
    "topology": {"kind": "dumbbell", "bottleneck_rate": "10Mbps"},
    "flows": [{"cc": "reno", "count": 1}, {"cc": "newreno", "count": 2}],
}


def test_scenario_error_is_a_value_error() -> None:
    assert issubclass(ScenarioError, ValueError)
    assert issubclass(ScenarioError, ccarena.Error)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1Gbps", "1Gbps"),
        ("reno", "reno"),
        ('"reno"', "reno"),
        ("3", 3),
        ("-2", -2),
        ("0.5", 0.5),
        ("true", True),
        ("false", False),
        ("[30, 60, 90]", [30, 60, 90]),
        ('{kind="file", size="5MB"}', {"kind": "file", "size": "5MB"}),
        ("", ""),
        ("hello world", "hello world"),
    ],
)
def test_override_values_are_toml_when_they_parse(text: str, value: object) -> None:
    assert parse_override_value(text) == value


def test_overrides_with_dots_brackets_and_numbers() -> None:
    out = apply_overrides(
        BASE,
        ["topology.bottleneck_rate=1Gbps", "flows[0].cc=reno2", "flows.1.count=3", "seed=4",
         'flows[1].app={kind="file", size="5MB"}'],
    )
    assert out["topology"]["bottleneck_rate"] == "1Gbps"
    assert out["flows"][0]["cc"] == "reno2"
    assert out["flows"][1]["count"] == 3
    assert out["flows"][1]["app"] == {"kind": "file", "size": "5MB"}
    assert out["seed"] == 4
    assert BASE["seed"] == 1 and BASE["flows"][0]["cc"] == "reno"  # the input is not modified


def test_overrides_create_missing_tables_and_apply_in_order() -> None:
    out = apply_overrides(BASE, ["topology.loss.kind=bernoulli", "topology.loss.p=0.01", "seed=2", "seed=3"])
    assert out["topology"]["loss"] == {"kind": "bernoulli", "p": 0.01}
    assert out["seed"] == 3


def test_override_value_may_contain_equals_sign() -> None:
    assert apply_overrides(BASE, ["name=a=b"])["name"] == "a=b"


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ("flows[5].cc=reno", "flows[5]"),  # index out of range
        ("flows.9.cc=reno", "flows[9]"),
        ("name.first=x", "name.first"),  # key into a string
        ("seed[0]=1", "seed[0]"),
        ("topology[0]=1", "topology[0]"),  # index into a table
        ("flows.cc=reno", "flows.cc"),  # key into a list
    ],
)
def test_bad_override_paths_name_the_path(override: str, named: str) -> None:
    with pytest.raises(ScenarioError, match=r".") as err:
        apply_overrides(BASE, [override])
    assert named in str(err.value)


@pytest.mark.parametrize("override", ["noequals", "=3", "flows[0]..cc=1", "flows[x].cc=1", "a b=1", ".a=1"])
def test_malformed_overrides_are_scenario_errors(override: str) -> None:
    with pytest.raises(ScenarioError):
        apply_overrides(BASE, [override])


def test_load_from_path_text_and_dict(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('name = "from-file"\nduration = "1s"\n')
    assert load(path)["name"] == "from-file"
    assert load(str(path))["name"] == "from-file"
    assert load('name = "from-text"')["name"] == "from-text"
    d = {"name": "from-dict", "flows": [{"cc": "reno"}]}
    loaded = load(d)
    loaded["flows"][0]["cc"] = "changed"
    assert d["flows"][0]["cc"] == "reno"  # a deep copy


def test_load_errors_are_scenario_errors(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load(tmp_path / "missing.toml")
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load("missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n")
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load(bad)
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load("name = 'x'\nflows = [")


def test_to_json_rejects_what_json_cannot_carry() -> None:
    assert json.loads(to_json(BASE)) == BASE
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.p"):
        to_json({"flows": [{"p": float("nan")}]})
    with pytest.raises(ScenarioError):
        to_json(load("when = 2024-01-01"))


def test_core_errors_are_raised_as_the_package_scenario_error() -> None:
    # The binding raises ccarena.errors.ScenarioError itself, so `except ccarena.Error` catches it.
    with pytest.raises(ccarena.Error, match=r"flows\[0\]\.cc"):
        ccarena.validate({**BASE, "duration": "1s", "topology": {**BASE["topology"], "bottleneck_delay": "10ms"}, "flows": [{"cc": "no-such-cc"}]})


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("topology.queu=1", "topology.queu: unknown field `queu`, expected one of `bottleneck_rate`, `bottleneck_delay`, `access_rate`, `access_delay`, `kind`, `queue`, `access_queue`, `loss`, `schedule`, `bottleneck_trace`; did you mean `queue`?"),
        ("durtion=1s", "durtion: unknown field `durtion`, expected one of `name`, `duration`, `seed`, `sample_interval`, `warmup`, `topology`, `flows`, `background`, `jitter`, `stack`; did you mean `duration`?"),
        ("flows[0].cc=nan", 'flows[0].cc: unknown congestion control "nan": expected one of reno, cubic, bic, highspeed, scalable, htcp, hybla, illinois, vegas, veno, westwood, yeah, lp, fast, compound, libra, dctcp, ledbat, bbr, newreno'),
    ],
    ids=["topology-key-taken-before-serde", "top-level", "nan-is-a-name"],
)
def test_an_unknown_key_names_every_allowed_key_and_the_nearest(override: str, message: str) -> None:
    with pytest.raises(ccarena.ScenarioError) as err:
        ccarena.validate(Path(__file__).resolve().parents[1] / "scenarios" / "reno-pair.toml", overrides=[override])
    assert str(err.value) == message
