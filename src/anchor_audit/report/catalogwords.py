"""What the many-skill reports (terminal and Markdown) say of each skill and component, in words.

One place for the counting, so the terminal's lines and Markdown's rows say
the same: why a skill drifts (``3 quotes moved, 1 changed · 6 evidence paths
missing · out of sync (2 files differ: ...)``), and per component how many
skills were audited, skipped, in sync and drifting.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..checks.links import BY_LAYOUT
from ..findings import Finding, counts_as_drift, findings
from ..model import AuditReport, ComponentInfo, SkillReport, SyncFacts

# What N findings of a code are called in a skill's line; codes not here are named by their rule.
_QUOTES = {"AA101": "moved", "AA107": "relocated", "AA102": "changed", "AA103": "missing", "AA104": "unverifiable",
           "AA105": "incomplete", "AA106": "unreadable"}  # fmt: skip
_PHRASES = {
    "AA201": ("claim broken", "claims broken"),
    "AA202": ("claim unverifiable", "claims unverifiable"),
    "AA203": ("card mismatch", "card mismatches"),
    "AA205": ("claim unlinked", "claims unlinked"),
    "AA206": ("validated_on the code contradicts", "validated_on the code contradicts"),
    "AA207": ("validated_versions range contradicted", "validated_versions ranges contradicted"),
    "AA208": ("anchor stale on its validation day", "anchors stale on their validation day"),
    "AA401": ("evidence path missing", "evidence paths missing"),
    "AA402": ("reference missing", "references missing"),
    "AA403": ("test count differs", "test counts differ"),
    "AA405": ("symbol missing", "symbols missing"),
    "AA406": ("path missing", "paths missing"),
    "AA407": ("link broken", "links broken"),
    "AA408": ("version differs", "versions differ"),
    "AA409": ("command fails to parse", "commands fail to parse"),
    "AA410": ("folder rename written into its paths", "folder renames written into its paths"),
    "AA412": ("line citation drifted", "line citations drifted"),
    "AA413": ("page unreached", "pages unreached"),
}


@dataclass(frozen=True)
class ComponentCounts:
    info: ComponentInfo
    audited: int
    skipped: int
    in_sync: int
    drifting: int


def drift_by_skill(report: AuditReport) -> dict[str, list[Finding]]:
    """The findings that count as drift, by skill name (only skills that have some)."""
    out: dict[str, list[Finding]] = {}
    for f in findings(report):
        if counts_as_drift(f, report):
            out.setdefault(f.skill, []).append(f)
    return out


def why(skill: SkillReport, drift: list[Finding]) -> str:
    """Why ``skill`` drifts, in words, the quotes first and the sync last."""
    layout = sum(1 for f in drift if by_layout(f))
    codes = Counter(f.code for f in drift if not by_layout(f))
    parts = []
    quotes = [(n, _QUOTES[c]) for c, n in sorted(codes.items()) if c in _QUOTES]
    if quotes:  # "3 quotes moved, 1 changed"
        (n, word), rest = quotes[0], quotes[1:]
        parts.append(f"{count(n, 'quote')} {word}" + "".join(f", {m} {w}" for m, w in rest))
    for code, n in sorted(codes.items()):
        if code in _PHRASES:
            one, many = _PHRASES[code]
            parts.append(f"{n} {one if n == 1 else many}")
        elif code not in _QUOTES and code not in ("AA301", "AA302", "AA303"):
            parts.append(f"{n} {next(f for f in drift if f.code == code).rule.name}")
    if layout:
        parts.append(f"{count(layout, 'link')} broken by the catalog's layout")
    if "AA301" in codes:
        parts.append("unreadable")
    if "AA302" in codes:
        parts.append("skipped")
    if skill.sync is not None and skill.sync.differs and "AA303" in codes:
        parts.append(sync_short(skill.sync))
    if skill.owners is not None:  # set only for drift upstream can heal (a re-sync is the catalog's)
        parts.append(f"ask {', '.join(skill.owners.names)}")
    return " · ".join(parts)


def sync_short(sync: SyncFacts) -> str:
    """A copy's sync in a few words: ``3 files out of sync (behind: c8327cfc2 of 2026-07-08, 1 since)``."""
    if sync.absent:
        return "folder absent upstream"
    files = count(len(sync.files), "file")
    if sync.matches is not None:
        return f"{files} out of sync (behind: {sync.matches[:9]} of {sync.matches_date}, {sync.behind} since)"
    return f"{files} out of sync (ahead/diverged)"


def by_layout(finding: Finding) -> bool:
    """Whether ``finding`` is a link that holds in the repository and breaks only in the catalog's copy."""
    return finding.code == "AA407" and BY_LAYOUT in finding.message


def layout_only(drift: list[Finding]) -> bool:
    """Whether the skill's only drift is links its catalog's layout breaks (and its copy's sync)."""
    return any(by_layout(f) for f in drift) and all(by_layout(f) or f.code == "AA303" for f in drift)


def sync_only(drift: list[Finding]) -> bool:
    """Whether the skill's only drift is its catalog copy's sync."""
    return bool(drift) and all(f.code == "AA303" for f in drift)


def component_counts(report: AuditReport, drifting: dict[str, list[Finding]]) -> list[ComponentCounts]:
    by_name = {s.name: s for s in report.skills}
    rows = []
    for info in report.components:
        mine = [by_name[n] for n in info.skills if n in by_name]
        rows.append(ComponentCounts(
            info,
            audited=sum(1 for s in mine if s.checked),
            skipped=sum(1 for s in mine if s.skipped is not None),
            in_sync=sum(1 for s in mine if s.sync is not None and not s.sync.differs),
            drifting=sum(1 for s in mine if s.checked and s.name in drifting),
        ))  # fmt: skip
    return rows


def repo_name(url: str) -> str:
    """``https://github.com/OWNER/NAME`` -> ``OWNER/NAME`` (what a reader knows a repository by)."""
    return url.removeprefix("https://github.com/")


def count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"
