"""A skill's whole audit at a commit, kept by that commit and by what it read of the disk.

A history audits a skill at every commit that touches it, an impact at both
ends of every change, a diff or a bump at two refs, a matrix at every release,
and a catalog or a folder of skills is checked again and again at the same
commits: what a skill's audit says at a commit is a function of the commit (its
tree, and the history behind it), the skill and its registry entry as parsed,
this tool, and for a skill read from disk what its checks read there (a link's
target, a page its folder holds: :mod:`anchor_audit.checks.diskreads`).  Kept
whole (:mod:`.model.wire`), signed like every result, with those reads, and only
when it is the code's whole answer (:func:`unsettled`); given back only while
each read answers the same.  A card's validation day is resolved on the default
branch: a commit pushed there later, dated on or before a card's day, is not
seen by a kept audit (nor by the memo of the day itself).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any, Callable

from ..checks.diskreads import Reads, still_so, witnessing
from ..model import Skill, SkillReport, SkillSpec, wire
from ..source import SourceTree
from ..store.codecs import promise_key
from ..store.toolprint import tool_digest
from .judge import Judge

_UNSETTLED = frozenset({"incomplete", "error"})  # statuses a bound or an unreadable file gave: not the code's answer
SUBMODULE_HINT = "=URL_OR_DIR)"  # how a submodule that could not be opened ends its reason (source/submodules.py)
MAX_DECODED = 256  # reports held by digest in a run (content-addressed: never stale)


def kept_key(skill: Skill, entry: SkillSpec | None, tree: SourceTree, promises: bool, facts: bool) -> str | None:
    """The key a skill's whole audit is kept under: this tool, the tree's content key (a commit of a whole
    repository: its tree and the history behind it), the skill and its entry as parsed (a copy on disk: where it
    lies, and the root its links may climb to), what was audited.  None where something else could change the
    answer: a tree with no content key (a working tree, a packaged copy, a shallow or lean history)."""
    content = tree.content_key()
    if content is None:
        return None
    # A page read from the tree is named, not shown (its loader's repr names an address): the commit gives its text.
    skill_said = [repr(replace(skill, tree_pages=())), [name for name, _ in skill.tree_pages]]
    said = [tool_digest(), tree.info.repo, tree.info.ref, content, skill_said, repr(entry), promises, facts]
    return promise_key("skill-audit|" + hashlib.sha256(json.dumps(said).encode("utf-8", "surrogateescape")).hexdigest())


def recalled(judge: Judge, key: str) -> SkillReport | None:
    """The report kept under ``key``, or None (none kept, or a row of another shape: audited again).  A key
    names its report's digest; the report is kept once by its digest, and decoded once a run: most commits of a
    history leave a skill's report as it was."""
    row = judge.memo.recall(key)
    digest = row.get("digest") if row is not None else None
    if not isinstance(digest, str) or (row is not None and not still_so(row.get("reads", {}))):
        return None
    decoded = judge.reports
    if digest not in decoded:
        kept = judge.memo.recall(_report_key(digest), hold=False)
        try:
            found = wire.load(kept["report"]) if kept is not None else None
        except (KeyError, TypeError, ValueError):
            return None
        if not isinstance(found, SkillReport):
            return None
        _hold(judge, digest, found)
    found = decoded[digest]
    return found if isinstance(found, SkillReport) else None


def unsettled(skill: SkillReport) -> str | None:
    """Why ``skill``'s report is not the code's whole answer, or None: it could not be audited, a bound or an
    unreadable file left a result ``incomplete`` or ``error``, a submodule could not be opened (the next run
    may answer otherwise: such a report is never kept)."""
    if skill.error or skill.skipped:
        return f"{skill.name} could not be audited"
    results: list[Any] = [*skill.anchors, *skill.promises, *(e for c in skill.claims for e in c.evidence)]
    for result in results:
        status = str(getattr(result, "status", ""))
        if status in _UNSETTLED:
            return f"{skill.name}: a result is {status}"
        if SUBMODULE_HINT in str(getattr(result, "detail", "")):
            return f"{skill.name}: a submodule could not be opened"
    return None


def keep(judge: Judge, key: str, report: SkillReport, reads: Reads | None = None) -> None:
    """Keep ``report`` under ``key`` when it is settled, with the ``reads`` of the disk it was made from (the
    report itself once, by its digest; with no store to write to, by ``key`` as it is: its digest would cost a
    serialization and a hash of the whole report)."""
    if unsettled(report) is not None:
        return
    said = dict(reads or {})
    if judge.store is None:  # nothing is written (--no-cache, a library's replay): held by its key, not serialized
        _hold(judge, key, report)
        judge.memo.keep(key, {"digest": key, "reads": said})
        return
    data = wire.dump(report)
    digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8", "surrogateescape")).hexdigest()
    if digest not in judge.reports:  # kept or read in this run: its row is there
        judge.memo.keep(_report_key(digest), {"report": data}, hold=False)
        _hold(judge, digest, report)
    judge.memo.keep(key, {"digest": digest, "reads": said})


def kept_or_checked(judge: Judge, said: list[Any], check: Callable[[], Any]) -> Any:
    """``check()``, a model value that depends on nothing but this tool, what ``said`` names (JSON data: a
    folder's pages by content, where it lies) and what it reads of the disk: kept with those reads, and given
    back while each answers the same (the checks of a catalog's folder that need no code)."""
    named = json.dumps([tool_digest(), *said]).encode("utf-8", "surrogateescape")
    key = promise_key(f"checked|{hashlib.sha256(named).hexdigest()}")
    row = judge.memo.recall(key)
    if row is not None and still_so(row.get("reads", {})):
        try:
            return wire.load(row["value"])
        except (KeyError, TypeError, ValueError):
            pass
    with witnessing() as reads:
        value = check()
    judge.memo.keep(key, {"value": wire.dump(value), "reads": dict(reads)})
    return value


def _hold(judge: Judge, digest: str, report: SkillReport) -> None:
    judge.reports[digest] = report
    while len(judge.reports) > MAX_DECODED:
        del judge.reports[next(iter(judge.reports))]


def _report_key(digest: str) -> str:
    return promise_key(f"skill-report|{digest}")
