"""Reconcile card.yaml with the verdicts, by targeted text edits.

Every byte the verdicts do not decide stays: comments, key order, quoting.
What changes:

* ``validated_on`` becomes the audited commit's date;
* a claim whose registered evidence holds gets ``code_verified`` (replacing
  ``doc_only``, or added to its tags);
* a ``code_verified`` claim that is broken keeps its tags and is marked with a
  comment on its line, ``# anchor-audit: broken at REF (SHA)``; the mark goes
  when the claim holds again.  It is never silently downgraded to doc_only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from ..model import AnchorStatus, Card, ClaimVerdict, EvidenceKind, LineRange, SourceInfo, Verdict
from ..text.yamltext import scalar_text
from .text import Splice, apply_splices, compose, mapping_get, refuse_block_scalar, verified

MARK = "# anchor-audit:"
_MARK_RE = re.compile(r"[ \t]*# anchor-audit:[^\r\n]*")


@dataclass(frozen=True)
class CardChange:
    claim: str  # "" for validated_on
    message: str
    changed: bool = True  # False: only reported


def reconcile_card(
    text: str, claims: tuple[ClaimVerdict, ...], source: SourceInfo, name: object = "card.yaml"
) -> tuple[str, list[CardChange]]:
    """The new card text and what changed (or was only reported); verified by reading it back."""
    root = compose(text, name)
    tagged: set[str] = set()  # claims given code_verified
    splices: list[Splice] = []
    changes: list[CardChange] = []
    newline = "\r\n" if "\r\n" in text else "\n"

    if source.date is not None:
        found = mapping_get(root, "validated_on")
        if found is None:
            prefix = "" if not text or text.endswith("\n") else newline
            splices.append(Splice(len(text), len(text), f'{prefix}validated_on: "{source.date}"{newline}'))
            changes.append(CardChange("", f"validated_on set to {source.date}"))
        elif isinstance(found[1], yaml.ScalarNode) and found[1].value != source.date:
            node = found[1]
            refuse_block_scalar(node, name, "validated_on")
            style = node if node.style else _double_quoted(node)
            splices.append(Splice(node.start_mark.index, node.end_mark.index, scalar_text(style, source.date)))
            changes.append(CardChange("", f"validated_on {node.value} -> {source.date}"))
    else:
        changes.append(CardChange("", "validated_on left as it is: a release wheel has no commit date", False))

    status = mapping_get(root, "validation_status")
    tags_by_claim = {}
    if status and isinstance(status[1], yaml.MappingNode):
        tags_by_claim = {k.value: (k, v) for k, v in status[1].value}
    for claim in claims:
        entry = tags_by_claim.get(claim.id)
        if entry is None:
            continue
        key, tags = entry
        splices += _mark(text, key, tags, claim, source, changes)
        # Only registered evidence (quotes, conditions) earns code_verified: card.yaml's own file paths verify
        # its file_exists tag, which it has already.
        registered = not claim.evidence or any(e.kind is not EvidenceKind.FILE for e in claim.evidence)
        if claim.verdict is Verdict.CODE_VERIFIED and "code_verified" not in claim.declared and registered:
            splices += _add_code_verified(text, tags, newline)
            tagged.add(claim.id)
            changes.append(CardChange(claim.id, "registered evidence holds: tagged code_verified"))

    def intended(data: Any) -> Any:
        if source.date is not None:
            data["validated_on"] = source.date
        for claim_id in tagged:
            data["validation_status"][claim_id] = _with_code_verified(data["validation_status"][claim_id])
        return data

    return verified(name, text, apply_splices(text, splices), intended), changes


def _with_code_verified(tags: Any) -> Any:
    """What :func:`_add_code_verified` makes of a claim's tags, as data."""
    if isinstance(tags, list):
        if "doc_only" in tags:
            at = tags.index("doc_only")
            return [*tags[:at], "code_verified", *tags[at + 1 :]]
        return [*tags, "code_verified"]
    if tags in ("doc_only", "", None):
        return "code_verified"
    return [tags, "code_verified"]


def _double_quoted(node: yaml.ScalarNode) -> yaml.ScalarNode:
    return yaml.ScalarNode(node.tag, node.value, node.start_mark, node.end_mark, style='"')


def _line_end(text: str, index: int) -> int:
    end = text.find("\n", index)
    end = len(text) if end == -1 else end
    return end - 1 if end > 0 and text[end - 1] == "\r" else end


def _mark(
    text: str,
    key: yaml.ScalarNode,
    tags: yaml.Node,
    claim: ClaimVerdict,
    source: SourceInfo,
    changes: list[CardChange],
) -> list[Splice]:
    """Add, refresh or remove the broken mark at the end of the claim's key line.

    The mark is looked for only in the comment after the last node on that
    line: a quoted claim id may itself contain ``#`` or even the mark's text.
    """
    # The line where the key ends: a quoted id may run over several lines, and a comment inside it is not one.
    line_end = _line_end(text, key.end_mark.index)
    comment_start = key.end_mark.index
    if tags.start_mark.line == key.end_mark.line:
        comment_start = tags.end_mark.index if tags.end_mark.line == key.end_mark.line else line_end
    line_start = comment_start
    line = text[line_start:line_end]
    existing = _MARK_RE.search(line)
    broken = claim.verdict is Verdict.BROKEN and "code_verified" in claim.declared
    if broken:
        at = source.ref + (f" ({source.commit[:12]})" if source.commit else "")
        mark = f"  {MARK} broken at {at}"
        changes.append(CardChange(claim.id, f"code_verified but broken: marked, tags kept ({claim.mismatch})"))
        if existing:
            return [Splice(line_start + existing.start(), line_start + existing.end(), mark)]
        return [Splice(line_end, line_end, mark)]
    if existing and claim.verdict is Verdict.CODE_VERIFIED:
        changes.append(CardChange(claim.id, "holds again: broken mark removed"))
        return [Splice(line_start + existing.start(), line_start + existing.end(), "")]
    return []


def _add_code_verified(text: str, tags: yaml.Node, newline: str) -> list[Splice]:
    if isinstance(tags, yaml.SequenceNode):
        for item in tags.value:
            if isinstance(item, yaml.ScalarNode) and item.value == "doc_only":
                return [Splice(item.start_mark.index, item.end_mark.index, scalar_text(item, "code_verified"))]
        if tags.flow_style:
            end = tags.end_mark.index - 1  # before the closing ]
            sep = ", " if tags.value else ""
            return [Splice(end, end, f"{sep}code_verified")]
        if tags.value:
            last = tags.value[-1]
            line_start = text.rfind("\n", 0, last.start_mark.index) + 1
            dash = text[line_start : last.start_mark.index]
            at = _line_end(text, last.end_mark.index)
            return [Splice(at, at, f"{newline}{dash}code_verified")]
    if isinstance(tags, yaml.ScalarNode):  # a single tag written as a string
        value = "code_verified" if tags.value in ("doc_only", "") else None
        if value:
            return [Splice(tags.start_mark.index, tags.end_mark.index, scalar_text(tags, value))]
        return [Splice(tags.start_mark.index, tags.end_mark.index, f"[{tags.value}, code_verified]")]
    return []


def comment_range_heals(card: Card, claims: tuple[ClaimVerdict, ...], quoted: frozenset[str]
                        ) -> list[tuple[int, LineRange, LineRange]]:  # fmt: skip
    """The ranges card.yaml's comments cite whose code only moved (no SKILL.md quote of the same key heals
    them): (the comment's line, the range written, the range the code is at now)."""
    lines = {c.id: {r: a.line for a in c.anchors for r in a.ranges} for c in card.claims}
    out = []
    for claim in claims:
        for item in claim.evidence:
            if item.kind is not EvidenceKind.QUOTE or item.status is not AnchorStatus.MOVED or item.ref in quoted:
                continue
            old = _range(item.ref.rsplit(":", 1)[-1]) if ":" in item.ref else None
            new = item.location.lines if item.location is not None else None
            line = lines.get(claim.id, {}).get(old) if old is not None else None
            if old is not None and new is not None and line:
                out.append((line, old, new))
    return out


def heal_comment_ranges(text: str, heals: list[tuple[int, LineRange, LineRange]], name: object = "card.yaml"
                        ) -> tuple[str, list[str]]:  # fmt: skip
    """``text`` (the card ``name``) with each cited range rewritten in the comment of its line (after the ``#``),
    and what was."""
    lines = text.splitlines(keepends=True)
    done = []
    for line, old, new in heals:
        if not 0 < line <= len(lines) or "#" not in lines[line - 1]:
            continue
        code, hash_, comment = lines[line - 1].partition("#")
        was, now = _written(old), _written(new)
        healed = re.sub(rf"(?<![\d-]){re.escape(was)}(?![\d-])", now, comment, count=1)
        if healed != comment:
            lines[line - 1] = code + hash_ + healed
            done.append(f"{name}:{line}: a comment's range {was} -> {now} (the code it cited moved)")
    return "".join(lines), done


def _range(text: str) -> LineRange | None:
    found = re.fullmatch(r"(\d+)(?:-(\d+))?", text)
    return LineRange(int(found.group(1)), int(found.group(2) or found.group(1))) if found else None


def _written(lines: LineRange) -> str:
    return str(lines.start) if lines.start == lines.end else f"{lines.start}-{lines.end}"

