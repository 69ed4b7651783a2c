"""Report formats: text, json, SARIF 2.1.0 (validated against the official schema), github."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from jax_cudnn_lint.finding import Finding, Location
from jax_cudnn_lint.lint_rules.registry import RULES, Rule
from jax_cudnn_lint.reports import (
    Report,
    SourceLines,
    escape_data,
    escape_property,
    render_github,
    render_json,
    render_sarif,
    render_text,
    statistics_lines,
    summary_line,
)

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-2.1.0.json").read_text("utf-8"))

FINDING = Finding(
    code="JCD201",
    path="pkg/model.py",
    line=2,
    col=8,
    message="cuDNN attention is differentiated with odd sequence lengths (T=511)",
    evidence=("T = 511 = 512 - 1, slice at line 40", "grad at train.py:9"),
    repro={"api": "dot_product_attention", "q": [2, 511, 4, 64]},
    related=(Location("pkg/train.py", 9, 4, "jax.grad differentiates it"),),
)
ERROR = Finding("JCD900", "pkg/bad.py", 1, 0, "could not read/parse pkg/bad.py: NUL byte")
SOURCES = {
    "pkg/model.py": "x = 1\n\tout = attention(q, k, v)\n",
    "pkg/train.py": "# caf\u00e9\n" * 8 + "    g = jax.grad(loss)\n",
}


@pytest.fixture(autouse=True)
def _rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        RULES,
        "JCD201",
        Rule("JCD201", "attention-odd-length-differentiated", "odd T or S under differentiation"),
    )
    monkeypatch.setitem(RULES, "JCD301", Rule("JCD301", "something-off", "off rule", False, False))


def sarif_errors(document: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft4Validator(SCHEMA)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]


def test_text_columns_are_one_based_and_sorted_with_errors() -> None:
    late_error = Finding("JCD900", "pkg/zzz.py", 1, 0, "could not read/parse pkg/zzz.py: NUL byte")
    text = render_text(Report([FINDING], [ERROR, late_error]))
    assert text.splitlines() == [
        "pkg/bad.py:1:1: JCD900 could not read/parse pkg/bad.py: NUL byte",
        "pkg/model.py:2:9: JCD201 cuDNN attention is differentiated with odd sequence lengths (T=511)",
        "pkg/zzz.py:1:1: JCD900 could not read/parse pkg/zzz.py: NUL byte",
    ]


def test_show_source_caret_keeps_tabs_and_counts_bytes() -> None:
    # `col` is a UTF-8 byte offset (ast); the caret goes under the right character.
    line = "s = 'caf\u00e9'; attention(q)"
    finding = Finding("JCD201", "m.py", 1, len("s = 'caf\u00e9'; ".encode()), "msg")
    text = render_text(Report([finding]), show_source=True, sources=SourceLines({"m.py": line}))
    assert text.splitlines()[1:] == [line, " " * len("s = 'caf\u00e9'; ") + "^"]
    tabbed = render_text(Report([FINDING]), show_source=True, sources=SourceLines(SOURCES))
    assert tabbed.splitlines()[1:] == ["\tout = attention(q, k, v)", "\t       ^"]


def test_text_with_verdicts() -> None:
    verdict = {
        "verdict": "confirmed",
        "detail": "NotImplementedError: Unsupported\nmore",
        "backend": "execute",
        "environment": {},
    }
    text = render_text(Report([FINDING], verdicts=[verdict]))
    assert text.rstrip().endswith("[confirmed by execute: NotImplementedError: Unsupported]")


def test_json_document() -> None:
    verdict = {
        "verdict": "refuted",
        "detail": "ran fine",
        "backend": "trace",
        "environment": {"jax": "0.10.2"},
    }
    doc = json.loads(
        render_json(
            Report([FINDING], [ERROR], verdicts=[verdict], files=3, analysed=2, exit_code=1)
        )
    )
    assert doc["schema"] == "jax-cudnn-lint/report/1"
    assert doc["findings"] == [
        {**FINDING.to_json(), "rule": "attention-odd-length-differentiated", "confirm": verdict}
    ]
    assert doc["errors"] == [
        {"code": "JCD900", "path": "pkg/bad.py", "line": 1, "col": 1, "message": ERROR.message}
    ]
    assert doc["summary"]["files"] == 3 and doc["summary"]["analysed"] == 2
    assert doc["summary"]["confirm"] == {"refuted": 1}


def test_sarif_is_valid_and_complete() -> None:
    verdict = {"verdict": "confirmed", "detail": "raised", "backend": "trace", "environment": {}}
    report = Report([FINDING], [ERROR], verdicts=[verdict], files=3, analysed=2)
    doc = json.loads(render_sarif(report, SourceLines(SOURCES)))
    assert sarif_errors(doc) == []
    [run] = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "jax-cudnn-lint"
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == sorted(RULES)
    rule = driver["rules"][ids.index("JCD201")]
    assert rule["name"] == "attention-odd-length-differentiated"
    assert rule["shortDescription"]["text"] == "odd T or S under differentiation"
    assert rule["helpUri"] == (
        "https://github.com/jax-cudnn-lint/jax-cudnn-lint/blob/main/docs/rules/JCD201.md"
    )
    assert rule["help"]["text"]
    assert driver["rules"][ids.index("JCD301")]["defaultConfiguration"]["enabled"] is False
    [result] = run["results"]
    assert result["ruleId"] == "JCD201" and result["ruleIndex"] == ids.index("JCD201")
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "pkg/model.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 2, "startColumn": 9}
    related = result["relatedLocations"][0]
    assert related["message"]["text"] == "jax.grad differentiates it"
    assert related["physicalLocation"]["region"] == {"startLine": 9, "startColumn": 5}
    assert "T = 511 = 512 - 1" in result["message"]["text"]
    assert result["properties"]["evidence"] == list(FINDING.evidence)
    assert result["properties"]["repro"] == FINDING.repro
    assert result["properties"]["confirm"]["verdict"] == "confirmed"
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is True
    assert invocation["toolExecutionNotifications"][0]["descriptor"]["id"] == "JCD900"


def test_sarif_columns_are_utf16_code_units() -> None:
    line = "s = '\U0001f600\u00e9'; attention(q)"  # an astral character: 2 UTF-16 units
    col = len("s = '\U0001f600\u00e9'; ".encode())
    finding = Finding("JCD201", "m.py", 1, col, "msg")
    doc = json.loads(render_sarif(Report([finding]), SourceLines({"m.py": line})))
    assert sarif_errors(doc) == []
    region = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startColumn"] == len("s = '") + 2 + 1 + len("'; ") + 1
    assert doc["runs"][0]["columnKind"] == "utf16CodeUnits"


def test_sarif_empty_run_and_odd_paths_are_valid(tmp_path: Path) -> None:
    assert sarif_errors(json.loads(render_sarif(Report([])))) == []
    odd = Finding("JCD201", "dir with space/caf\u00e9 #1.py", 1, 0, "m")
    absolute = Finding("JCD201", str(tmp_path / "abs.py"), 1, 0, "m")
    internal = Finding("JCD901", "x.py", 1, 0, "internal error: boom")
    doc = json.loads(render_sarif(Report([odd, absolute], [internal])))
    assert sarif_errors(doc) == []
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in doc["runs"][0]["results"]
    ]
    assert uris[0] == "dir%20with%20space/caf%C3%A9%20%231.py"
    assert uris[1].startswith("file:///")
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is False


def test_sarif_schema_rejects_a_broken_log() -> None:
    # The validator is real: a result without a message is not SARIF.
    doc = json.loads(render_sarif(Report([FINDING])))
    del doc["runs"][0]["results"][0]["message"]
    assert sarif_errors(doc)


def test_github_escaping() -> None:
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    finding = Finding("JCD201", "dir,x/a:b.py", 3, 4, "T=511 (50%)\nfix: pad")
    assert render_github(Report([finding])) == (
        "::error file=dir%2Cx/a%3Ab.py,line=3,col=5,title=JCD201::T=511 (50%25)%0Afix: pad\n"
    )
    refuted = {"verdict": "refuted", "detail": "ok", "backend": "trace", "environment": {}}
    assert render_github(Report([finding], verdicts=[refuted])).startswith("::notice ")


def test_statistics_and_summary() -> None:
    report = Report([FINDING, FINDING], [ERROR], files=10, analysed=4, elapsed=1.234)
    assert statistics_lines(report) == [
        "2     JCD201 attention-odd-length-differentiated",
        "1     JCD900 could not read or parse a file",
    ]
    assert summary_line(report) == "2 findings in 10 files (4 analysed) in 1.23s; 1 file error"
    assert summary_line(Report([], files=1)) == "0 findings in 1 file (0 analysed) in 0.00s"
