"""Targeted edits of anchors.yaml: quote keys that follow healed quotes, and the pinned ref."""

from __future__ import annotations

import yaml

from ..yamltext import scalar_text
from .text import Splice, apply_splices, compose, mapping_get


def heal_registry(text: str, skill: str, renamed: dict[str, str]) -> str:
    """anchors.yaml with quote keys ``PATH:S-E`` of ``skill`` renamed (old key -> new key)."""
    skills = mapping_get(compose(text), "skills")
    entry = mapping_get(skills[1], skill) if skills else None
    claims = mapping_get(entry[1], "claims") if entry else None
    if claims is None or not isinstance(claims[1], yaml.MappingNode):
        return text
    splices: list[Splice] = []
    for _, claim in claims[1].value:
        quotes = mapping_get(claim, "quotes")
        if quotes is None:
            continue
        for node in getattr(quotes[1], "value", []):
            key = getattr(node, "value", None)
            normal = _normal_key(key) if isinstance(key, str) else None
            if normal in renamed:
                new_key = renamed[normal]
                splices.append(Splice(node.start_mark.index, node.end_mark.index, scalar_text(node, new_key)))
    return apply_splices(text, splices)


def _normal_key(key: str) -> str:
    path, _, rng = key.rpartition(":")
    return "/".join(p for p in path.split("/") if p not in ("", ".")) + ":" + rng


def rewrite_pin(text: str, ref: str) -> str:
    """anchors.yaml with ``source.ref`` set to ``ref``; comments, layout and quoting kept."""
    source = mapping_get(compose(text), "source")
    found = mapping_get(source[1], "ref") if source else None
    if found is None or not isinstance(found[1], yaml.ScalarNode):
        raise ValueError("anchors.yaml has no source.ref to rewrite")
    node = found[1]
    return apply_splices(text, [Splice(node.start_mark.index, node.end_mark.index, scalar_text(node, ref))])
