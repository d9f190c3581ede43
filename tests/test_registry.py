"""anchors.yaml: the shipped JSON Schema, key-path errors, the semantic checks."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import jsonschema
import pytest
import yaml

from anchor_audit.errors import SpecError
from anchor_audit.spec.registry import load_spec, parse_spec
from anchor_audit.spec.schema import anchors_schema, validate

from .conftest import DEMO, ROOT

HEAD = dedent(
    """\
    source:
      repo: .
      ref: v1
    skills:
      x:
        claims:
          y:
            conditions:
    """
)


def parse(text: str):
    return parse_spec(text, Path("anchors.yaml"))


def error_of(text: str) -> str:
    with pytest.raises(SpecError) as err:
        parse(text)
    message = str(err.value)
    assert "\n" not in message
    return message


def test_schema_is_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(anchors_schema())


@pytest.mark.parametrize("path", [ROOT / "anchors.yaml", DEMO / "anchors.yaml"])
def test_shipped_registries_validate_with_jsonschema_too(path: Path) -> None:
    data = yaml.safe_load(path.read_text())
    jsonschema.Draft202012Validator(anchors_schema()).validate(data)
    spec = load_spec(path)
    assert spec.warnings == ()
    assert all(claim.id for skill in spec.skills for claim in skill.claims)


def test_project_registry_covers_the_four_code_verified_claims_of_both_skills() -> None:
    spec = load_spec(ROOT / "anchors.yaml")
    assert [s.name for s in spec.skills] == ["tp-dp-comm-overlap-reference", "nemo-mbridge-perf-tp-dp-comm-overlap"]
    reference, published = spec.skills
    assert reference.path == ROOT / "fixtures" / "reference" / "tp-dp-comm-overlap-reference"
    assert published.path is None  # audited wherever the user has it
    assert (spec.source.repo, spec.source.ref) == ("https://github.com/NVIDIA-NeMo/Megatron-Bridge", "v0.6.0")
    for skill in spec.skills:
        claims = {c.id: c for c in skill.claims}
        for cid in ("tp_overlap_gating", "dp_overlap_defaults", "pp_overlap_auto_selection", "launch_env_wiring"):
            assert claims[cid].quotes and claims[cid].conditions, (skill.name, cid)
        assert not claims["overlap_perf_claims"].has_evidence
    # One set of conditions (YAML anchors), two sets of quotes.
    def described(skill):  # noqa: ANN001, ANN202
        return [[c.describe() for c in claim.conditions] for claim in skill.claims]

    assert described(reference) == described(published)
    assert reference.claims[0].quotes != published.claims[0].quotes


BAD = [
    (HEAD + "          - path: a.py\n            if: [a, b]\n",
     "anchors.yaml:10: skills.x.claims.y.conditions[0].if: expected a string"),
    ("source:\n  repo: .\nskills: {}\n", "anchors.yaml:1: source: missing required key 'ref'"),
    ("source: {repo: ., ref: v1}\nskills:\n  x:\n    claims:\n      y:\n        quotes: [a.py:10]\n",
     "anchors.yaml:6: skills.x.claims.y.quotes[0]: 'a.py:10' is not of the form PATH:START-END"),
    ("source: {repo: ., ref: v1}\nskills:\n  x:\n    claims:\n      y:\n        quotes: [a.py:9-3]\n",
     "anchors.yaml:6: skills.x.claims.y.quotes[0]: range 9-3: START must be at least 1 and at most END"),
    ("source: {repo: ., ref: v1}\nskills:\n  x:\n    claims:\n      y:\n        quotes: [../a.py:1-3]\n",
     "climbs out of the repository"),
    (HEAD + "          - path: a.py\n            if: a\n            has: [b = 1]\n",
     "skills.x.claims.y.conditions[0]: a condition needs exactly one of if, has, defines (found if and has)"),
    (HEAD + "          - path: a.py\n            has: [b = 1]\n            then: [c = 2]\n",
     "anchors.yaml:11: skills.x.claims.y.conditions[0].then: 'then' only goes with 'if'"),
    (HEAD + "          - path: a.py\n            if: a <\n",
     "anchors.yaml:10: skills.x.claims.y.conditions[0].if: not a Python expression: 'a <'"),
    (HEAD + "          - path: a.py\n            if: a\n            then: [if x]\n",
     "skills.x.claims.y.conditions[0].then[0]: not a Python statement"),
    (HEAD + "          - path: /abs.py\n            defines: X\n",
     "skills.x.claims.y.conditions[0].path: path '/abs.py' is absolute"),
    ("source: {repo: ., ref: v1}\nskills: {}\nsource: {}\n", "anchors.yaml:3: source: duplicate key"),
    ("source: [\n", "anchors.yaml:2: not valid YAML"),
    ("", "anchors.yaml:1: the registry is empty"),
    ("- a\n- b\n", "anchors.yaml:1: (top level): expected a mapping"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_registry(text: str, message: str) -> None:
    assert message in error_of(text)


def test_our_validator_agrees_with_jsonschema_on_shape_errors() -> None:
    validator = jsonschema.Draft202012Validator(anchors_schema())
    for text, _ in BAD[:3] + SOURCES:
        data = yaml.safe_load(text)
        try:
            parse(text)
            ours = bool(validate(data))
        except SpecError:
            ours = True  # the second pass says what the schema's anyOf says (in one line, with the line)
        assert ours == bool(list(validator.iter_errors(data))), text


SOURCES = [
    ("source: {catalog: cat}\nskills: {}\n", None),
    ("source: {catalog: cat, repo: .}\nskills: {}\n", "anchors.yaml:1: source.repo: a catalog source names no repo"),
    ("source: {ref: v1}\nskills: {}\n", "anchors.yaml:1: source: missing required key 'repo' (or give catalog: DIR)"),
]


@pytest.mark.parametrize(("text", "message"), SOURCES)
def test_a_source_is_a_repository_at_a_ref_or_a_catalog(text: str, message: str | None, tmp_path: Path) -> None:
    if message is None:
        (tmp_path / "anchors.yaml").write_text(text)
        assert load_spec(tmp_path / "anchors.yaml").source.catalog == tmp_path / "cat"  # relative to the file
    else:
        assert error_of(text).startswith(message)


def test_an_unknown_key_is_an_error_naming_the_nearest_known_one() -> None:
    # A misspelt key would silently drop what it holds (`quote:` loses the claim's evidence).
    assert error_of("source: {repo: ., ref: v1}\nskils: {}\n") == "anchors.yaml:2: skils: unknown key (did you mean 'skills'?)"
    body = "source: {repo: ., ref: v1}\nskills:\n  s:\n    claims:\n      c:\n        quote: [a.py:1-2]\n"
    assert error_of(body) == "anchors.yaml:6: skills.s.claims.c.quote: unknown key (did you mean 'quotes'?)"


def test_alias_bomb_is_refused_quickly() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 9):
        bomb += f"{chr(97 + i)}: &{chr(97 + i)} [*{chr(96 + i)}, *{chr(96 + i)}, *{chr(96 + i)}, *{chr(96 + i)}, *{chr(96 + i)}, *{chr(96 + i)}, *{chr(96 + i)}, *{chr(96 + i)}, *{chr(96 + i)}, *{chr(96 + i)}]\n"
    assert "document too large" in error_of(bomb)


def test_deep_nesting_is_refused() -> None:
    assert "nested deeper than" in error_of("a: " + "[" * 200 + "]" * 200 + "\n")


def test_skill_path_is_relative_to_the_registry(tmp_path: Path) -> None:
    spec = parse_spec("source: {repo: ., ref: v1}\nskills:\n  s:\n    path: skills/s\n", tmp_path / "anchors.yaml")
    assert spec.skills[0].path == tmp_path / "skills" / "s"
