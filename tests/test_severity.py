"""The order every many-finding view keeps: claims broken first, links last, and what a cut leaves out."""

from __future__ import annotations

from anchor_audit.findings.rules import RULES
from anchor_audit.findings.severity import SEVERITY, left_out, rank, severity, worst_first


def test_findings_are_ordered_claims_then_quotes_then_paths_then_links_then_the_rest() -> None:
    codes = ["AA407", "AA303", "AA406", "AA101", "AA201", "AA102", "AA409"]
    assert worst_first(codes, str) == ["AA201", "AA101", "AA102", "AA406", "AA409", "AA407", "AA303"]
    assert severity("AA201") < severity("AA102") < severity("AA406") < severity("AA407") < severity("AA303")


def test_a_skill_with_one_broken_claim_ranks_above_one_with_many_broken_links() -> None:
    skills = {"links": ["AA407"] * 55, "claim": ["AA201"], "quotes": ["AA102", "AA101"], "both": ["AA201", "AA407"]}
    assert sorted(skills, key=lambda name: rank(skills[name])) == ["both", "claim", "quotes", "links"]


def test_a_cut_says_what_it_left_out_by_each_skills_worst_class() -> None:
    said = left_out([["AA407", "AA102"], ["AA407"], ["AA407"], ["AA303"]])
    assert said == "1 with quotes and line citations changed or moved, 2 with links broken, 1 with other findings"


def test_every_code_a_class_names_is_a_rule() -> None:
    assert {code for _, codes in SEVERITY for code in codes} <= set(RULES)
