"""What became of a path a skill cites that is not at the ref, and the one path that certainly stands in its place.

Asked in this order: the history (one walk of the commit's deletions: moved, with renames followed to a path
that is here, or deleted, and in which commit), the skill's own new name written inside the path
(``scripts/acme-resiliency_plugins.py`` where the code has ``resiliency_plugins.py``), then namesakes: a file
of the same stem beside it (``index.md`` that became ``index.mdx``), the files of its name elsewhere. A heal
is a path ``fix`` may write in place of the cited one: certain, never a guess among several.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from typing import Iterator

from ..model import Citation, FolderRename, PromiseResult, PromiseStatus, ReferenceKind, Skill
from ..source import Removal, SourceTree
from ..source.listing import Listing
from ..spec.repopath import unwritable

MAX_CANDIDATES = 3  # files of the same name a missing path's detail names
# The citations a path written in place of another heals: a path of the prose, an @path, a card's evidence path.
HEALABLE = (ReferenceKind.PATH, ReferenceKind.AT_PATH, ReferenceKind.EVIDENCE)


def healed(
    out: list[PromiseResult], missing: list[tuple[int, Citation]], skill: Skill, tree: SourceTree, listing: Listing
) -> list[PromiseResult]:
    """``out`` with what the history says of each path that is not here (asked once for all): moved (its new
    path the heal), or deleted (then missing, even where the path alone could be another tree's); and else the
    one namesake in the same place as the heal of a missing path."""
    folder = (skill.repo_folder or "").strip("/")
    # A path written from the skill's own folder (``deploy/info.yaml``) is that folder's before it is any other's
    # of the same tail (another skill's ``deploy/info.yaml`` moved in another commit).
    own = {c.target: f"{folder}/{c.target}" for _, c in missing if folder and not c.target.startswith(f"{folder}/")}
    gone = tree.removals([*(c.target for _, c in missing), *own.values()]) if missing else {}
    later = _added_later(tree, [c.target for _, c in missing], gone, own, skill)
    for at, c in missing:
        removal = gone.get(own.get(c.target, "")) or gone.get(c.target)
        if removal is None and c.target in later:  # the code this skill describes came after this commit
            out[at] = _not_yet(out[at], *later[c.target])
            continue
        renamed = with_skill_renamed(c.target, skill, tree) if removal is None or removal.now is None else None
        if renamed is not None:
            heal = renamed.candidate if c.kind in HEALABLE and c.text.strip("`@") == c.target else None
            heal, why = writable(heal, renamed.why)
            out[at] = replace(out[at], status=PromiseStatus.MISSING, detail=why, heal=heal,
                              renamed=(renamed.written, renamed.code_has), now=renamed.candidate)  # fmt: skip
            continue
        if removal is None and out[at].status is PromiseStatus.UNVERIFIABLE:
            continue
        detail = out[at].detail if removal is None else removed_said(removal, c.target)
        if removal is not None and removal.now is None and out[at].detail.startswith("not at the ref; "):
            detail += "; " + out[at].detail.removeprefix("not at the ref; ")  # what is there instead, if any
        moved = removal.now if removal is not None and removal.was == c.target else None  # a tail's: said only
        heal, detail = writable(_sole_candidate(c, listing, moved), detail)
        out[at] = replace(out[at], status=PromiseStatus.MISSING, detail=detail, heal=heal, now=moved)
    return out


def _added_later(
    tree: SourceTree, targets: list[str], gone: dict[str, Removal], own: dict[str, str], skill: Skill
) -> dict[str, tuple[str, str, SkillRename | None]]:
    """Of ``targets`` the history removed none of, those the default branch adds after this commit: when, and
    under which form of the skill's name where the path has its new one (:func:`with_skill_renamed`)."""
    fresh = [t for t in targets if not (gone.get(own.get(t, "")) or gone.get(t))]
    added = tree.added_after(fresh) if fresh else {}
    out: dict[str, tuple[str, str, SkillRename | None]] = {t: (*added[t], None) for t in fresh if t in added}
    forms = {t: list(_renamed_forms(t, skill)) for t in fresh if t not in added}  # asked only where needed
    candidates = [r.candidate for rs in forms.values() for r in rs]
    added = tree.added_after(candidates) if candidates else {}
    for target, renames in forms.items():
        renamed = next((r for r in renames if r.candidate in added), None)
        if renamed is not None:
            out[target] = (*added[renamed.candidate], renamed)
    return out


def _not_yet(result: PromiseResult, sha: str, day: str, written: SkillRename | None) -> PromiseResult:
    """A path the default branch adds after this commit (``written``: in the old form of the skill's name)."""
    why = f"not yet there: added in commit {sha[:10]} on {day}, after this one"
    if written is not None:
        why = (
            f"not yet there: added as {written.candidate} in commit {sha[:10]} on {day}, after this one (the "
            f"skill's name {written.written} is written inside the path, where the code has {written.code_has})"
        )
    if result.detail.startswith("not at the ref; "):  # what is there that day instead, if anything
        why += "; " + result.detail.removeprefix("not at the ref; ")
    return replace(result, status=PromiseStatus.MISSING, detail=why, landed=(sha, day))


def healed_links(
    out: list[PromiseResult], missing: list[tuple[int, Citation]], skill: Skill, tree: SourceTree
) -> list[PromiseResult]:
    """``out`` with what the history says of each missing relative link's target (where the skill's folder lies
    in the repository is known): moved, the link rewritten relative to the same folder is the heal; deleted,
    in which commit. A link the catalog's layout broke has a target that is there, and is left as it is."""
    assert skill.repo_folder is not None or not missing
    where = {at: posixpath.normpath(f"{skill.repo_folder}/{c.target}") for at, c in missing}
    inside = {at: path for at, path in where.items() if not path.startswith("../")}
    gone = tree.removals(sorted(set(inside.values()))) if inside else {}
    for at, _ in missing:
        removal = gone.get(inside.get(at, ""))
        if removal is None or removal.was != inside[at]:
            continue
        detail = removed_said(removal, inside[at])
        copy = skill.disk is not None and skill.disk_root != skill.disk  # a catalog's: healed upstream, not here
        heal = posixpath.relpath(removal.now, skill.repo_folder) if removal.now is not None and not copy else None
        if heal is not None and removal.now is not None and removal.now.endswith("/") and not heal.endswith("/"):
            heal += "/"
        said = f"the link's target {inside[at]}: {detail}"
        if heal is not None and removal.now is not None:  # the repository's path is what must read back
            kept, said = writable(removal.now, said)
            heal = heal if kept is not None else None
        out[at] = replace(out[at], detail=said, heal=heal)
    return out


def writable(heal: str | None, detail: str) -> tuple[str | None, str]:
    """A heal that reads back as the same path once written into the skill, or none, the detail saying why: the
    new path is the code repository's file name, which its author chose."""
    problem = unwritable(heal.rstrip("/")) if heal else None
    if heal is None or problem is None:
        return heal, detail
    return None, f"{detail}; not healed: {problem}"


@dataclass(frozen=True)
class SkillRename:
    """A cited path that is here once the skill's name inside it is read as the shorter form the code has."""

    candidate: str  # the path that is there
    written: str  # the skill's name as the path has it (``nemo-mbridge-resiliency``)
    code_has: str  # the form the code's paths have (``resiliency``)

    @property
    def why(self) -> str:
        return (f"the skill's name {self.written} is written inside the path, where the code has {self.code_has}: "
                f"{self.candidate} is there")  # fmt: skip


def with_skill_renamed(path: str, skill: Skill, tree: SourceTree) -> SkillRename | None:
    """``path`` with the skill's folder name inside it read as a shorter form of that name, when that path is
    here: a rename of the skill's folder (``resiliency`` -> ``nemo-mbridge-resiliency``) applied inside the
    paths it cites (``scripts/nemo-mbridge-resiliency_plugins.py``)."""
    return next((r for r in _renamed_forms(path, skill) if in_tree(tree, r.candidate)), None)


def _renamed_forms(path: str, skill: Skill) -> Iterator[SkillRename]:
    """``path`` with the skill's folder name inside it read as each shorter form of that name, longest first."""
    for name in dict.fromkeys([posixpath.basename(skill.path.rstrip("/")), skill.name]):
        if len(name) < 3 or name not in path:
            continue
        cuts = [m.start() for m in re.finditer(r"[-_.]", name)]
        forms = [name[at + 1 :] for at in cuts] + [name[:at] for at in reversed(cuts)]  # longest first
        for form in (f for f in forms if len(f) >= 3):
            yield SkillRename(path.replace(name, form), name, form)


def folder_rename(skill: Skill, promises: tuple[PromiseResult, ...], tree: SourceTree) -> FolderRename | None:
    """The skill's paths written with its new folder name where the code has the old one, as one fact: which
    paths, in which files, and (where the skill's folder in the repository is known and its history has it) the
    commit that renamed the folder."""
    renamed = [p for p in promises if p.renamed is not None]
    if not renamed:
        return None
    written, code_has = renamed[0].renamed  # type: ignore[misc]
    pairs = tuple(dict.fromkeys((p.path, p.heal or p.path.replace(written, code_has)) for p in renamed))
    files = tuple(dict.fromkeys(posixpath.basename(p.file) for p in renamed))
    commit = day = None
    if skill.repo_folder and written in posixpath.basename(skill.repo_folder):
        old = posixpath.join(posixpath.dirname(skill.repo_folder), posixpath.basename(skill.repo_folder).replace(
            written, code_has))  # fmt: skip
        asked = [f"{old}/", f"{old}/SKILL.md"]  # the folder as git moved it, else its SKILL.md alone
        for was, removal in tree.removals(asked).items():
            now = f"{skill.repo_folder}{was[len(old):]}".rstrip("/")  # where the renamed folder has it
            if removal.now is not None and removal.now.rstrip("/") == now:
                commit, day = removal.commit, removal.day
                break
    return FolderRename(written, code_has, pairs, files, commit, day)


def removed_said(removal: Removal, cited: str) -> str:
    """What the history did with a path that is not here: moved (where to), or deleted."""
    was = "" if removal.was == cited else f" (as {removal.was})"
    if removal.now is not None:
        return f"moved to {removal.now} in commit {removal.commit[:10]}{was}"
    return f"deleted in commit {removal.commit[:10]}{was}"


def _sole_candidate(c: Citation, listing: Listing, moved: str | None) -> str | None:
    """The one file a missing path can only mean: where the history moved it, else the same stem beside it
    (``index.md`` -> ``index.mdx``), else the one file of its name in the repository; None when there is not
    exactly one, or the path is written in a form fix cannot rewrite in place (a glob, a brace expansion, a
    folder)."""
    path = c.target
    if c.kind not in HEALABLE or c.text.strip("`") not in (path, f"./{path}", f"@{path}"):
        return None
    if "*" in path or path.endswith("/"):
        return None
    if moved is not None:
        return moved
    beside = _same_stem_beside(path, listing)
    if beside:
        return beside[0] if len(beside) == 1 else None
    named = _same_name(path, listing)
    return named[0] if len(named) == 1 and _same_place(path, named[0]) else None


def _same_stem_beside(path: str, listing: Listing) -> list[str]:
    """Files beside ``path`` with its stem and another extension (``index.md`` that became ``index.mdx``)."""
    folder, _, name = path.rstrip("/").rpartition("/")
    stem = name.rsplit(".", 1)[0]
    return sorted(p for p in listing.in_folder(folder) if p.rpartition("/")[2].startswith(f"{stem}."))


def _same_name(path: str, listing: Listing) -> list[str]:
    """Files anywhere with ``path``'s file name."""
    return sorted(listing.named(path.rstrip("/").rpartition("/")[2]))


def _same_place(old: str, new: str) -> bool:
    """Whether ``new`` is where ``old`` moved, not a namesake: ``old``'s folders all in ``new``'s, in order
    (``pkg/x.py`` -> ``pkg/runtime/x.py``), or the same parent folder and half of the others
    (``a/b/old-name/c/x.sh`` -> ``a/b/new-name/c/x.sh``)."""
    was, now = old.split("/")[:-1], new.split("/")[:-1]
    rest = iter(now)
    if was and all(folder in rest for folder in was):
        return True
    return bool(was and now) and was[-1] == now[-1] and 2 * len(set(was) & set(now)) >= len(was)


def namesakes(path: str, listing: Listing) -> str | None:
    """Where files of the path's name are (None: nowhere)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if "*" in name:
        return "nothing here matches it"
    renamed = _same_stem_beside(path, listing)
    if renamed:  # index.md that became index.mdx, an .rst that became .md
        return f"not at the ref; {', '.join(renamed[:MAX_CANDIDATES])} is there, in the same folder"
    in_folders = listing.under_folders_named(name)  # a folder of that name, for a folder's path
    same = sorted(set(_same_name(path, listing)) | in_folders)
    if not same:
        return None
    shown = ", ".join(same[:MAX_CANDIDATES]) + (f" (+{len(same) - MAX_CANDIDATES} more)" if len(same) > 3 else "")
    return f"not at the ref; a file of that name is at {shown}"


def in_tree(tree: SourceTree, path: str) -> bool:
    path = path.strip("/")
    return bool(path) and (tree.blob_id(path) is not None or tree.is_folder(path))
