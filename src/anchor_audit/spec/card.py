"""card.yaml: its claims and their tags, the code its comments tie claims to, its evidence, and the releases
it says each claim holds for; remembered by its text like SKILL.md."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..errors import SpecError
from ..model import Card, CardAnchor, CardClaim, LineRange, VersionRange
from ..model.versionspec import specifier_problem
from ..source.file import strip_hash_comment
from ..store.memo import Memo
from .cardwords import card_aliases
from .repopath import repo_path_problem
from .yamldoc import YamlDoc, load_yaml

# What a run remembers by content (the result cache's): a key, and how to compute what it names.


@dataclass(frozen=True)
class Content:
    """A file's text as a memo knows it: by the text itself, or by git's blob id, which names one text (a skill
    read from a tree is then not read at all when its parse is remembered); ``load`` gives the text."""

    identity: str
    load: Callable[[], str]
    blob: bool = False

    @staticmethod
    def of(text: str) -> Content:
        return Content(text, lambda: text)

    def key(self, kind: str, path: object) -> str:
        """The memo key of this file's parse: ``kind`` (with its version), the path its errors name, the content."""
        digest = hashlib.sha256(f"{path}\0{self.identity}".encode("utf-8", "surrogateescape")).hexdigest()
        return f"{kind}{'-blob' if self.blob else ''}|{digest}"


def remembered_card(text: str | Content, path: Path, memo: Memo | None) -> Card:
    """:func:`parse_card`, remembered by the card's content (and its path, which its errors name), like SKILL.md:
    a catalog's thousand cards, a history's same card at every commit, are each parsed once."""
    content = text if isinstance(text, Content) else Content.of(text)
    if memo is None:
        return parse_card(content.load(), path)

    def read() -> dict[str, Any]:
        card = parse_card(content.load(), path)
        return {
            "validated_on": card.validated_on,
            "claims": [[c.id, list(c.tags), c.line, [[a.file, [r.as_list() for r in a.ranges], a.prefix, a.line]
                                                     for a in c.anchors]] for c in card.claims],
            "evidence": list(card.evidence), "evidence_lines": list(card.evidence_lines),
            "versions": [[v.claim, list(v.specifiers), v.line] for v in card.validated_versions],
            "constraints": [list(c) for c in card.constraints],
            "title": card.title, "aliases": [[phrase, list(names)] for phrase, names in card.aliases],
        }  # fmt: skip

    said = memo(content.key("card/5", path), read)
    claims = tuple(
        CardClaim(cid, tuple(tags), line, tuple(CardAnchor(f, tuple(LineRange(*r) for r in ranges), prefix, at)
                                                for f, ranges, prefix, at in anchors))
        for cid, tags, line, anchors in said["claims"]
    )  # fmt: skip
    versions = tuple(VersionRange(claim, tuple(specs), line) for claim, specs, line in said["versions"])
    constraints = tuple((text, line) for text, line in said["constraints"])
    aliases = tuple((phrase, tuple(names)) for phrase, names in said["aliases"])
    return Card(path, said["validated_on"], claims, tuple(said["evidence"]), tuple(said["evidence_lines"]), versions,
                constraints, said["title"], aliases)  # fmt: skip


def parse_card(text: str, path: Path) -> Card:
    """The claims and evidence of a card.yaml.  Unknown tags are kept."""
    doc = load_yaml(text, str(path))
    data = doc.data
    if data is None:
        return Card(path, None, (), ())
    if not isinstance(data, dict):
        raise SpecError(f"{path}:1: card.yaml must be a mapping")
    claims = []
    text_lines = text.split("\n")  # once: each claim's comment is looked up in it
    status = data.get("validation_status", {}) or {}
    if not isinstance(status, dict):
        raise SpecError(f"{doc.where(('validation_status',))}: expected a mapping of claim id to tags")
    for claim_id, tags in status.items():
        where = ("validation_status", claim_id)
        if isinstance(tags, str):
            tags = [tags]
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise SpecError(f"{doc.where(where)}: expected a list of tags")
        comment_lines = [doc.line(where + (i,)) for i in range(len(tags))] if isinstance(status[claim_id], list) else []
        anchors = tuple(a for n in sorted(set(comment_lines or [doc.line(where)])) for a in card_anchors(text_lines, n))
        claims.append(CardClaim(str(claim_id), tuple(tags), doc.line(where), anchors))
    evidence = data.get("evidence", []) or []
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        raise SpecError(f"{doc.where(('evidence',))}: expected a list of repository paths")
    validated = data.get("validated_on")
    lines = tuple(doc.line(("evidence", i)) for i in range(len(evidence)))
    versions = _version_ranges(doc, data.get("validated_versions"))
    said = data.get("known_constraints", []) or []
    if not isinstance(said, list):
        raise SpecError(f"{doc.where(('known_constraints',))}: expected a list of sentences")
    constraints = tuple((s, doc.line(("known_constraints", i))) for i, s in enumerate(said) if isinstance(s, str))
    constraints += _interactions(doc, data.get("interactions"))
    return Card(path, None if validated is None else str(validated), tuple(claims), tuple(evidence), lines, versions,
                constraints, _title(data), card_aliases(data.get("feature_meaning"), data.get("summary")))  # fmt: skip


def _interactions(doc: YamlDoc, value: Any) -> tuple[tuple[str, int], ...]:
    """``interactions``: what the card's feature needs and refuses, read like known constraints.  A mapping of
    ``required``, ``conditional`` and ``incompatible`` to lists of sentences (each said with its word:
    "incompatible: cpu_offloading with PP > 1"), or a list of ``{name, constraint}`` entries; what is not text is
    not read (the card's own vocabulary, not anchor-audit's to refuse)."""
    out: list[tuple[str, int]] = []
    if isinstance(value, dict):
        for word, said in value.items():
            if isinstance(word, str) and isinstance(said, list):
                out += [(f"{word}: {s}", doc.line(("interactions", word, i))) for i, s in enumerate(said)
                        if isinstance(s, str) and s.strip()]  # fmt: skip
    elif isinstance(value, list):
        for i, entry in enumerate(value):
            said = entry.get("constraint") if isinstance(entry, dict) else None
            if isinstance(said, str) and said.strip():
                out.append((said.strip(), doc.line(("interactions", i, "constraint"))))
    return tuple(out)


def _title(data: dict[str, Any]) -> str:
    """What the card says it is about (``title:``), where that is text."""
    title = data.get("title")
    return title if isinstance(title, str) else ""


def _version_ranges(doc: YamlDoc, value: Any) -> tuple[VersionRange, ...]:
    """``validated_versions``: one specifier (or a list of them) for the skill, or a mapping of claim id to one."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        where = ("validated_versions",)
        return (VersionRange(None, _specifiers(doc, where, value), doc.line(where)),)
    return tuple(VersionRange(str(claim), _specifiers(doc, ("validated_versions", claim), said),
                              doc.line(("validated_versions", claim))) for claim, said in value.items())  # fmt: skip


def _specifiers(doc: YamlDoc, where: tuple[Any, ...], value: Any) -> tuple[str, ...]:
    said = [value] if isinstance(value, str) else value
    if not isinstance(said, list) or not all(isinstance(v, str) for v in said):
        raise SpecError(f"{doc.where(where)}: expected a version specifier like \">=0.3.0,<0.6.0\", or a list of them")
    for text in said:
        problem = specifier_problem(text)
        if problem is not None:
            raise SpecError(f"{doc.where(where)}: {problem}")
    return tuple(said)


# "# config.py:1524-1531", "# train.py:231-255, 338-350", "# MCore transformer_config.py:1928-1931"
_CARD_ANCHOR = re.compile(
    r"(?:(?P<prefix>[A-Za-z][\w-]*)\s+)?(?P<file>[\w./-]+\.\w+):(?P<ranges>\d{1,9}(?:-\d{1,9})?(?:\s*,\s*\d{1,9}(?:-\d{1,9})?)*)"
)


def card_anchors(text: str | list[str], line: int) -> tuple[CardAnchor, ...]:
    """The anchors the comment on ``line`` of a card.yaml (its text, or its lines split at ``\\n``) names."""
    lines = text.split("\n") if isinstance(text, str) else text
    if not 1 <= line <= len(lines):
        return ()
    raw = lines[line - 1].rstrip("\r")
    code = strip_hash_comment(raw)
    comment = raw[len(code) :].strip().lstrip("#").strip()
    out = []
    for match in _CARD_ANCHOR.finditer(comment):
        ranges = []
        for part in match.group("ranges").split(","):
            start, _, end = part.strip().partition("-")
            first, last = int(start), int(end or start)
            if 1 <= first <= last:
                ranges.append(LineRange(first, last))
        if ranges and repo_path_problem(match.group("file")) is None:
            out.append(CardAnchor(match.group("file"), tuple(ranges), match.group("prefix") or "", line))
    return tuple(out)
