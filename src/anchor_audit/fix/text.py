"""Text as it is on disk: byte order mark and line endings kept through an edit."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml

from ..errors import AuditError, SpecError
from ..text.fsutil import WriteConflict, read_input

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class DiskText:
    """A decoded file that re-encodes to the same bytes when nothing was changed."""

    raw: bytes
    text: str  # without the BOM; line endings as in the file
    bom: bool

    @classmethod
    def read(cls, path: Path, limit: int = 16 * 1024 * 1024) -> "DiskText":
        """The file at ``path`` as it is now, to be edited.

        Anything that makes it unfit to edit (gone, a folder now, not UTF-8
        any more) is a :class:`WriteConflict`: it changed since it was audited.
        """
        try:
            return cls.decode(read_input(path, limit, "a text file"))
        except (AuditError, UnicodeDecodeError) as exc:
            why = "not UTF-8 any more" if isinstance(exc, UnicodeDecodeError) else str(exc)
            raise WriteConflict(
                f"{path}: changed on disk since anchor-audit read it ({why}); nothing written"
            ) from None

    @classmethod
    def decode(cls, raw: bytes) -> "DiskText":
        bom = raw.startswith(BOM)
        return cls(raw, raw[len(BOM) :].decode("utf-8") if bom else raw.decode("utf-8"), bom)

    def encode(self, text: str) -> bytes:
        return (BOM if self.bom else b"") + text.encode("utf-8")

    @property
    def newline(self) -> str:
        return "\r\n" if "\r\n" in self.text else "\n"


@dataclass(frozen=True)
class Splice:
    """Replace text[start:end] by ``new``."""

    start: int
    end: int
    new: str


def apply_splices(text: str, splices: list[Splice]) -> str:
    for splice in sorted(splices, key=lambda s: s.start, reverse=True):
        text = text[: splice.start] + splice.new + text[splice.end :]
    return text


def compose(text: str, path: object = "the file") -> yaml.Node | None:
    """The YAML node tree (marks give exact character offsets for targeted edits).

    Text that no longer parses was edited since the audit read it: a :class:`WriteConflict`.
    """
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        raise WriteConflict(
            f"{path}: changed on disk since anchor-audit read it (not valid YAML); nothing written"
        ) from None


def mapping_get(node: yaml.Node | None, key: str) -> tuple[yaml.ScalarNode, yaml.Node] | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return key_node, value_node
    return None


def refuse_block_scalar(node: yaml.Node, name: object, what: str) -> None:
    """A ``|`` or ``>`` scalar spans lines and keeps its indentation: anchor-audit does not rewrite one."""
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        raise SpecError(
            f"{name}:{node.start_mark.line + 1}: {what} is a block scalar ({node.style}); anchor-audit does not "
            "rewrite one; write it on one line and run again; nothing written"
        )


def verified(name: object, before: str, after: str, intended: Callable[[Any], Any]) -> str:
    """``after``, once it reads back as ``intended(the data before)``; else :class:`SpecError`, nothing written.

    Every targeted YAML edit ends here: legal YAML the splicer does not
    understand (a flow mapping, an end-of-document marker, a key that spans
    lines) is refused rather than rewritten into something that means
    something else, or nothing.
    """
    if after == before:
        return after
    try:
        want = intended(copy.deepcopy(yaml.safe_load(before)))
        same = yaml.safe_load(after) == want
    except (yaml.YAMLError, KeyError, TypeError, AttributeError):  # not the shape the edit was made for
        same = False
    if not same:
        raise SpecError(
            f"{name}: anchor-audit cannot edit this YAML safely (the edited text would not read back as intended: "
            "a flow-style mapping, a '...' document end or a key over several lines?); nothing written"
        )
    return after
