"""Targeted edits of anchors.yaml: quote keys that follow healed quotes, and the pinned ref."""

from __future__ import annotations

from typing import Any

import yaml

from ..text.yamltext import scalar_text
from .text import Splice, apply_splices, compose, mapping_get, refuse_block_scalar, verified


def heal_registry(text: str, skill: str, renamed: dict[str, str], name: object = "anchors.yaml") -> str:
    """anchors.yaml with quote keys ``PATH:S-E`` of ``skill`` renamed (old key -> new key); verified by re-reading."""
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
                refuse_block_scalar(node, name, f"the quote key {key!r}")
                new_key = renamed[normal]
                splices.append(Splice(node.start_mark.index, node.end_mark.index, scalar_text(node, new_key)))

    def intended(data: Any) -> Any:
        for claim in (data["skills"][skill].get("claims") or {}).values():
            quotes = claim.get("quotes") if isinstance(claim, dict) else None
            if isinstance(quotes, list):
                claim["quotes"] = [
                    renamed.get(_normal_key(q), q) if isinstance(q, str) else q for q in quotes
                ]  # fmt: skip
        return data

    return verified(name, text, apply_splices(text, splices), intended)


def _normal_key(key: str) -> str:
    path, _, rng = key.rpartition(":")
    return "/".join(p for p in path.split("/") if p not in ("", ".")) + ":" + rng


def rewrite_pin(text: str, ref: str, name: object = "anchors.yaml") -> str:
    """anchors.yaml with ``source.ref`` set to ``ref``; comments, layout and quoting kept."""
    source = mapping_get(compose(text), "source")
    found = mapping_get(source[1], "ref") if source else None
    if found is None or not isinstance(found[1], yaml.ScalarNode):
        raise ValueError("anchors.yaml has no source.ref to rewrite")
    node = found[1]
    refuse_block_scalar(node, name, "source.ref")

    def intended(data: Any) -> Any:
        data["source"]["ref"] = ref
        return data

    edited = apply_splices(text, [Splice(node.start_mark.index, node.end_mark.index, scalar_text(node, ref))])
    return verified(name, text, edited, intended)
