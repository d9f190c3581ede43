"""What a code change does to the skills that quote it: ``anchor-audit impact BASE HEAD``.

Only a change to a file a skill quotes or conditions (or to the skill itself)
can change a status, so the diff's paths are read first (tree-level: no blob
is read) and only the skills they concern are audited, at BASE and at HEAD.
An impact is a quote, condition, claim or promise whose status changes, or a quote
still holding whose lines the diff touches (a line inserted inside a quoted
range shifts it), each with the code lines in HEAD it concerns and the edit
``fix`` would make, as a unified diff to apply in the same pull request.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from ..audit.judge import Judge
from ..audit.skills import audit
from ..checks.reads import reads
from ..fix.anchorsyaml import heal_registry
from ..fix.skillmd import heal_skill_md
from ..model import (
    AuditReport,
    Changed,
    ChangeKind,
    ConditionStatus,
    EvidenceKind,
    ExitCode,
    LineRange,
    Location,
    Moved,
    Outcome,
    PromiseStatus,
    Relocated,
    Skill,
    SkillReport,
    SkillSpec,
    found_lines,
    holds,
    pointed_at,
)
from ..source.git import GitTree
from ..text.lines import unified_diff
from .compare import compare


@dataclass(frozen=True)
class Impact:
    skill: str
    kind: ChangeKind
    key: str  # PATH:START-END, the condition, or the claim id
    before: Outcome | None  # None: not there at BASE
    after: Outcome | None  # None: not there at HEAD
    path: str | None  # the code file in HEAD it concerns
    lines: LineRange | None  # the code lines in HEAD it concerns
    patch: str = ""  # the healing edit, a unified diff ("" when there is none to make)
    skill_file: str = ""  # the skill's own file and line it concerns (the fence, the card's claim, the prose)
    skill_line: int = 1


@dataclass(frozen=True)
class ImpactReport:
    base: str
    head: str
    changed: tuple[str, ...]  # the paths the diff changes
    impacts: tuple[Impact, ...]
    audited: int  # skills the diff concerns (the others cost nothing)
    healed: tuple[tuple[str, str, str], ...] = ()  # (file, its text, healed): what --apply writes
    heals: tuple[tuple[str, str], ...] = ()  # (skill, quote key): the moved quotes the patch re-anchors

    @property
    def breaks(self) -> bool:
        """Whether a status changes to one that does not hold: a change that only mends (a healed range, a path
        put back) leaves nothing to fix, so a pre-commit hook passes once the skill is healed with the code."""
        return any(i.before != i.after and not holds(i.after) for i in self.impacts)

    @property
    def exit_code(self) -> ExitCode:
        """``impact``'s exit (and the one its reports print): drift when a status changes for the worse."""
        return ExitCode.DRIFT if self.breaks else ExitCode.OK


def impact(
    base_tree: GitTree,
    head_tree: GitTree,
    skills: list[tuple[Skill, SkillSpec | None, str]],
    judge: Judge,
    registry: tuple[Path, str] | None = None,
) -> ImpactReport:
    """The impacts of BASE..HEAD on ``skills`` (each with its SKILL.md text, for the healing patch).

    ``registry`` (anchors.yaml's path and text): the quote keys of moved quotes are renamed there too,
    as ``fix`` would, for the entries that name the skill's folder.
    """
    changed = head_tree.history.changed_paths(base_tree.commit.hexsha)
    concerned = [(s, e, text) for s, e, text in skills if reads(s, e).touched_by(changed)]
    impacts: list[Impact] = []
    healed: list[tuple[str, str, str]] = []
    heals: list[tuple[str, str]] = []
    if concerned:
        # One `git diff -U0` per changed file, however many quotes of however many skills it holds.
        hunks = functools.cache(lambda path: head_tree.history.hunks(base_tree.commit.hexsha, path))
        pairs = [(s, e) for s, e, _ in concerned]
        before = audit(pairs, base_tree, None, judge, facts=False)  # statuses compared: no owners, no dates
        after = audit(pairs, head_tree, None, judge, facts=False)
        registry_text = registry[1] if registry else ""
        for (skill, entry, text), old, new in zip(concerned, before.skills, after.skills, strict=True):
            renamed = {
                m.quote.key: f"{m.path_now}:{m.suggested}" for m in new.anchors if isinstance(m, (Moved, Relocated))
            }
            keys_healed, keys_patch = registry_text, ""
            if registry and entry and renamed and entry.path and entry.path.resolve() == Path(skill.path).resolve():
                keys_healed = heal_registry(registry_text, entry.name, renamed, registry[0])
                keys_patch = _diff(registry_text, keys_healed, str(registry[0]))
            found, heal = _skill_impacts(skill, text, old, new, base_tree, head_tree, changed, hunks, keys_patch)
            impacts += found
            healed += [heal] if heal and found else []
            heals += [(skill.name, key) for key in renamed] if heal and found else []
            registry_text = keys_healed if found else registry_text
        if registry and registry_text != registry[1]:
            healed.append((str(registry[0]), registry[1], registry_text))
    return ImpactReport(
        base_tree.commit.hexsha,
        head_tree.commit.hexsha,
        tuple(sorted(changed)),
        tuple(impacts),
        len(concerned),
        tuple(healed),
        tuple(heals),
    )


def _diff(before: str, after: str, name: str) -> str:
    """The unified diff of one file ("" when nothing changes)."""
    return unified_diff(before, after, name)


def _skill_impacts(
    skill: Skill,
    text: str,
    old: SkillReport,
    new: SkillReport,
    base: GitTree,
    head: GitTree,
    changed: set[str],
    hunks: Callable[[str], list[tuple[int, int, int, int]]],
    keys_patch: str = "",
) -> tuple[list[Impact], tuple[str, str, str] | None]:
    out: list[Impact] = []
    moved = [m for m in new.anchors if isinstance(m, (Moved, Relocated))]
    name = f"{skill.path.rstrip('/')}/SKILL.md"
    healed = heal_skill_md(text, moved, {}, refresh=False) if moved else text
    skill_patch = _diff(text, healed, name)
    patch = skill_patch + keys_patch
    out += _status_impacts(skill.name, old, new, base, head, patch)
    out += _condition_impacts(skill.name, old, new, patch)
    out += _promise_impacts(skill.name, old, new)
    out += _touched_impacts(skill.name, old, new, changed, hunks, {i.key for i in out if i.kind is ChangeKind.ANCHOR},
                            patch)  # fmt: skip
    return [_on_skill(i, old, new, name) for i in out], (name, text, healed) if skill_patch else None


def _status_impacts(
    name: str, old: SkillReport, new: SkillReport, base: GitTree, head: GitTree, patch: str
) -> list[Impact]:
    """Every quote and claim whose status the change changes (a quote where it points at HEAD)."""
    out: list[Impact] = []
    by_key = {m.quote.key: m for m in new.anchors}
    for change in compare(AuditReport(base.info, (old,)), AuditReport(head.info, (new,))).changes:
        if change.kind is ChangeKind.ANCHOR:
            match = by_key.get(change.key)
            at = pointed_at(match) if match else None
            path = at.path if at else match.quote.path if match else None
            where = at.lines if at else None
            out.append(Impact(name, change.kind, change.key, change.before, change.after, path, where, patch))
        elif change.kind is not ChangeKind.PROMISE:  # promises: only those that break or mend (below)
            out.append(Impact(name, change.kind, change.key, change.before, change.after, None, None, patch))
    return out


def _touched_impacts(
    name: str,
    old: SkillReport,
    new: SkillReport,
    changed: set[str],
    hunks: Callable[[str], list[tuple[int, int, int, int]]],
    reported: set[str],
    patch: str,
) -> list[Impact]:
    """The quotes whose status stays, where the diff touches the quoted code (where BASE has it)."""
    out: list[Impact] = []
    at_base = {m.quote.key: found_lines(m) or (m.candidate if isinstance(m, Changed) else None) for m in old.anchors}
    for match in new.anchors:
        quote = match.quote
        if quote.key in reported or quote.path not in changed:
            continue
        lines = at_base.get(quote.key) or quote.declared
        if any(_touches(h, lines) for h in hunks(quote.path)):
            at = pointed_at(match)
            where = at.lines if at else None
            out.append(Impact(name, ChangeKind.ANCHOR, quote.key, match.status, match.status, quote.path, where, patch))
    return out


def _on_skill(impact: Impact, old: SkillReport, new: SkillReport, skill_md: str) -> Impact:
    """``impact`` with the place in the skill it concerns: where an annotation goes when HEAD has no code line."""
    file, line = skill_md, 1
    if impact.kind is ChangeKind.ANCHOR:
        quote = next((m.quote for m in (*new.anchors, *old.anchors) if m.quote.key == impact.key), None)
        line = quote.skill_line if quote else 1
    elif impact.kind is ChangeKind.CLAIM:
        claim = next((c for c in (*new.claims, *old.claims) if c.id == impact.key), None)
        file, line = (new.card_path or old.card_path or skill_md), (claim.card_line if claim else None) or 1
    elif impact.kind is ChangeKind.PROMISE:
        said = next((p for p in (*new.promises, *old.promises) if f"{p.kind} {p.path}" == impact.key), None)
        file, line = (said.file, said.line) if said else (file, line)
    return replace(impact, skill_file=file, skill_line=line)


def _condition_impacts(skill: str, old: SkillReport, new: SkillReport, patch: str) -> list[Impact]:
    def conditions(report: SkillReport) -> dict[str, tuple[Outcome, Location | None]]:
        return {
            e.ref: (ConditionStatus(e.status), e.location)
            for c in report.claims
            for e in c.evidence
            if e.kind is EvidenceKind.CONDITION
        }

    before, after = conditions(old), conditions(new)
    out = []
    for key in sorted(set(before) | set(after)):
        was, now = before.get(key), after.get(key)
        if (was[0] if was else None) != (now[0] if now else None):
            at = now[1] if now else None
            path, lines = (at.path, at.lines) if at else (None, None)
            was_, now_ = (was[0] if was else None), (now[0] if now else None)
            out.append(Impact(skill, ChangeKind.CONDITION, key, was_, now_, path, lines, patch))
    return out


def _promise_impacts(skill: str, old: SkillReport, new: SkillReport) -> list[Impact]:
    """The promises of the prose (a path, a link, a flag, a symbol) the change breaks, or mends."""
    def statuses(report: SkillReport) -> dict[str, PromiseStatus]:
        return {f"{p.kind} {p.path}": p.status for p in report.promises}

    before, after = statuses(old), statuses(new)
    out = []
    for key in sorted(set(before) | set(after)):
        was, now = before.get(key), after.get(key)
        if was is not None and now is not None and was.ok != now.ok:
            out.append(Impact(skill, ChangeKind.PROMISE, key, was, now, None, None))
    return out


def _touches(hunk: tuple[int, int, int, int], lines: LineRange) -> bool:
    """Whether a change to BASE's lines (or an insertion between two of them) falls inside ``lines``."""
    old_start, old_count, _, _ = hunk
    if old_count == 0:  # an insertion after line old_start
        return lines.start <= old_start < lines.end
    return old_start <= lines.end and lines.start <= old_start + old_count - 1
