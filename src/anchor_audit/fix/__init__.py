"""``anchor-audit fix``: verdicts -> edited SKILL.md, anchors.yaml and card.yaml.

Planning reads the files and computes new bytes with the pure helpers in
:mod:`.skill` and :mod:`.card`; :func:`anchor_audit.text.fsutil.apply_edits`
writes them atomically, refusing files that changed since they were read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..errors import NotCarried, UnreadableFile
from ..model import (
    AuditReport,
    EvidenceKind,
    Exact,
    Healable,
    LineRange,
    Mismatch,
    Moved,
    PromiseKind,
    Relocated,
    Skill,
    SkillReport,
    SkillSpec,
    Spec,
    UnreadableSkill,
    Verdict,
)
from ..source import SourceTree
from ..source.file import SourceFile
from ..spec.skill import parse_skill_md
from ..text.fsutil import FileEdit, WriteConflict
from .anchorsyaml import heal_registry
from .cardyaml import comment_range_heals, heal_comment_ranges, reconcile_card
from .skillmd import heal_paths, heal_skill_md
from .text import DiskText

_HEALED_BY_CARD = (Mismatch.EVIDENCE_HOLDS,)  # --update-card tags these claims code_verified


@dataclass
class FixPlan:
    edits: list[FileEdit] = field(default_factory=list)
    done: list[str] = field(default_factory=list)  # what the edits heal
    left: list[str] = field(default_factory=list)  # drift fix cannot heal
    notes: list[str] = field(default_factory=list)


def plan_fix(
    report: AuditReport,
    skills: Sequence[tuple[Skill, SkillSpec | None] | UnreadableSkill],
    spec: Spec | None,
    tree: SourceTree,
    refresh: bool = False,
    update_card: bool = False,
) -> FixPlan:
    plan = FixPlan()
    registry = DiskText.read(spec.path) if spec else None
    registry_text = registry.text if registry else ""
    for item, result in zip(skills, report.skills, strict=True):
        if isinstance(item, UnreadableSkill):
            plan.left.append(f"{item.path}: cannot be read: {item.error}")
            continue
        skill, entry = item
        skill_md = Path(skill.path) / "SKILL.md"
        disk = DiskText.read(skill_md)
        if parse_skill_md(disk.text.replace("\r\n", "\n"), str(skill_md)) != skill.quotes:
            raise WriteConflict(f"{skill_md}: changed on disk since anchor-audit read it; nothing written, run again")
        moved = [m for m in result.anchors if isinstance(m, (Moved, Relocated))]
        plan.left += [f"{skill_md}:{m.quote.skill_line}: {m.quote.key} is {m.status.value}; not rewritten"
                      for m in result.anchors if not isinstance(m, (Exact, Moved, Relocated))]  # fmt: skip
        if entry is not None and moved:
            registry_text, moved = _registry_keys(plan, registry_text, skill, entry, moved, spec)
        sources = _sources(tree, {m.path_now for m in moved}) if refresh else {}
        _heal_skill_md(plan, skill_md, disk, moved, result, sources, refresh)
        _heal_card(plan, skill, result, report, update_card)
    if registry is not None and spec is not None and registry_text != registry.text:
        plan.edits.insert(0, FileEdit(spec.path, registry.raw, registry.encode(registry_text)))
    return plan


def _registry_keys(
    plan: FixPlan, registry_text: str, skill: Skill, entry: SkillSpec, moved: list[Healable], spec: Spec | None
) -> tuple[str, list[Healable]]:
    """anchors.yaml with the keys of ``skill``'s moved quotes healed, and the moved quotes SKILL.md may heal.

    An entry with no path is this skill's by name; one naming another folder is that folder's. Its quote keys and
    this SKILL.md's fences are healed together or not at all: one without the other breaks claims."""
    renamed = {m.quote.key: f"{m.path_now}:{m.suggested}" for m in moved}
    healed = heal_registry(registry_text, entry.name, renamed, spec.path if spec else "anchors.yaml")
    if entry.path is None or entry.path.resolve() == Path(skill.path).resolve():
        return healed, moved
    if healed != registry_text:
        plan.left.append(
            f"{Path(skill.path) / 'SKILL.md'}: {len(moved)} moved quote{'s' if len(moved) != 1 else ''} not "
            f"rewritten: the anchors.yaml entry {entry.name} names them but belongs to {entry.path}; healing the "
            "fences without its keys would break its claims (fix that folder, or give this one an entry with its path)"
        )
        return registry_text, []
    return registry_text, moved


def _heal_skill_md(
    plan: FixPlan,
    skill_md: Path,
    disk: DiskText,
    moved: list[Healable],
    result: SkillReport,
    sources: dict[str, SourceFile],
    refresh: bool,
) -> None:
    """SKILL.md's moved quotes and renamed paths healed, into ``plan``."""
    new_text = heal_skill_md(disk.text, moved, sources, refresh)
    renames = [(p.line, p.path, p.heal) for p in result.promises if p.heal and p.kind is not PromiseKind.EVIDENCE]
    new_text, renamed_paths = heal_paths(new_text, renames)
    plan.done += [f"{skill_md}:{line}: path {old} -> {new}" for line, old, new in renamed_paths]
    if new_text != disk.text:
        plan.edits.append(FileEdit(skill_md, disk.raw, disk.encode(new_text)))
    plan.done += [_healed_line(skill_md, m) for m in moved]


def _heal_card(plan: FixPlan, skill: Skill, result: SkillReport, report: AuditReport, update_card: bool) -> None:
    """card.yaml's moved evidence paths (and, ``update_card``, its tags) healed, into ``plan``; then what it says of
    each claim."""
    evidence = [(p.line, p.path, p.heal) for p in result.promises if p.heal and p.kind is PromiseKind.EVIDENCE]
    card_healed = set()
    quoted = frozenset(q.key for q in skill.quotes)
    comments = comment_range_heals(skill.card, result.claims, quoted) if skill.card is not None else []
    if comments and not update_card:  # a comment's range is read on validated_on: moving it moves that day too
        plan.left += [f"{skill.card.path if skill.card else 'card.yaml'}:{line}: a comment cites lines {old} the "
                      f"code has at {new.start}-{new.end} now; `fix --update-card --write` rewrites the range with "
                      "validated_on (the card then says it was validated at this ref)" for line, old, new in comments]
        comments = []
    if skill.card is not None and (update_card or evidence or comments):
        card_healed = _update_card(plan, skill, result, report, evidence, update_card, comments)
    healed_paths = {path for _, path, _ in evidence} if skill.card is not None else set()
    _claims(plan, skill, result, healed_paths, card_healed)


def _claims(plan: FixPlan, skill: Skill, result: SkillReport, healed_paths: set[str], card_healed: set[str]) -> None:
    """What ``plan`` says of each claim: healed with its evidence paths, else left for a person if it fails."""
    for claim in result.claims:
        failing = [e for e in claim.evidence if not e.ok]
        if claim.verdict is Verdict.BROKEN and failing and all(
            e.kind is EvidenceKind.FILE and e.ref in healed_paths for e in failing
        ):  # broken only by evidence paths this fix renames: it holds once they are
            plan.done.append(f"{skill.name}: claim {claim.id} holds once its evidence paths are healed")
        elif claim.verdict in (Verdict.BROKEN, Verdict.UNVERIFIABLE):
            plan.left.append(f"{skill.name}: claim {claim.id} is {claim.verdict.value}")
        elif claim.mismatch and claim.id not in card_healed:
            plan.left.append(f"{skill.name}: claim {claim.id}: {claim.mismatch}")


def _healed_line(skill_md: Path, m: Healable) -> str:
    new_range = f"{m.suggested.start}:{m.suggested.end}"
    if isinstance(m, Relocated):
        return f"{skill_md}:{m.quote.skill_line}: {m.quote.key} relocated: -> {new_range}:{m.found_path}"
    return f"{skill_md}:{m.quote.skill_line}: {m.quote.key} moved: range -> {new_range}"


def _update_card(
    plan: FixPlan,
    skill: Skill,
    result: SkillReport,
    report: AuditReport,
    renames: list[tuple[int, str, str]],
    reconcile: bool,
    comments: Sequence[tuple[int, LineRange, LineRange]] = (),
) -> set[str]:
    """card.yaml's moved evidence paths renamed, and (``reconcile``) its tags reconciled with the verdicts,
    into ``plan``; the claims whose mismatch that heals."""
    assert skill.card is not None
    card_disk = DiskText.read(skill.card.path)
    renamed_text, renamed = heal_paths(card_disk.text, renames)
    plan.done += [f"{skill.card.path}:{line}: evidence {old} -> {new}" for line, old, new in renamed]
    renamed_text, ranges = heal_comment_ranges(renamed_text, list(comments), skill.card.path)
    plan.done += ranges
    if not reconcile:
        if renamed_text != card_disk.text:
            plan.edits.append(FileEdit(skill.card.path, card_disk.raw, card_disk.encode(renamed_text)))
        return set()
    new_card, changes = reconcile_card(renamed_text, result.claims, report.source, skill.card.path)
    if new_card != card_disk.text:
        plan.edits.append(FileEdit(skill.card.path, card_disk.raw, card_disk.encode(new_card)))
    for c in changes:
        if c.changed and new_card == card_disk.text:
            continue  # already so: nothing to fix, nothing to say
        line = f"{skill.card.path}: {c.claim + ': ' if c.claim else ''}{c.message}"
        (plan.done if c.changed else plan.notes).append(line)
    return {c.id for c in result.claims if c.mismatch in _HEALED_BY_CARD}


def _sources(tree: SourceTree, paths: set[str]) -> dict[str, SourceFile]:
    out: dict[str, SourceFile] = {}
    for path in sorted(paths):
        try:
            source = tree.read(path)
        except (NotCarried, UnreadableFile):
            continue
        if source is not None:
            out[path] = source
    return out
