"""Text as it is on disk: byte order mark and line endings kept through an edit."""

from __future__ import annotations

from dataclasses import dataclass

import yaml

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class DiskText:
    """A decoded file that re-encodes to the same bytes when nothing was changed."""

    raw: bytes
    text: str  # without the BOM; line endings as in the file
    bom: bool

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


def scalar_text(node: yaml.ScalarNode, value: str) -> str:
    """``value`` written in the same quoting style as ``node``."""
    if node.style == '"':
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if node.style == "'":
        return "'" + value.replace("'", "''") + "'"
    return value


def compose(text: str) -> yaml.Node | None:
    """The YAML node tree (marks give exact character offsets for targeted edits)."""
    return yaml.compose(text, Loader=yaml.SafeLoader)


def mapping_get(node: yaml.Node | None, key: str) -> tuple[yaml.ScalarNode, yaml.Node] | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return key_node, value_node
    return None
