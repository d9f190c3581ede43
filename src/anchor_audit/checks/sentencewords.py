"""What a card's sentence names: the identifiers and literals it states, and the words it uses for what the code
spells otherwise (:data:`SYNONYMS`).  Read by the known constraints, by card sentences' line citations and by the
claims' words (:mod:`anchor_audit.checks.captions`).
"""

from __future__ import annotations

import re

# The words a card uses for what the code spells otherwise (matched as whole words; the short ones case-sensitively).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "TE": ("HAVE_TE",),
    "Transformer Engine": ("HAVE_TE",),
    "TP": ("tensor_model_parallel_size",),
    "PP": ("pipeline_model_parallel_size",),
    "VPP": ("virtual_pipeline_model_parallel_size",),
    "DP": ("data_parallel_size",),
    "CP": ("context_parallel_size",),
    "EP": ("expert_model_parallel_size",),
    "SP": ("sequence_parallel",),
    "sequence parallel": ("sequence_parallel",),
    "sequence parallelism": ("sequence_parallel",),
    "distributed optimizer": ("use_distributed_optimizer",),
    "distributed-optimizer": ("use_distributed_optimizer",),
    "FSDP2": ("use_torch_fsdp2",),
}
# The short words of SYNONYMS as a claim id spells them (``tp``), for :func:`anchor_audit.checks.captions.mentions`.
ABBREVIATIONS: dict[str, tuple[str, ...]] = {w.lower(): spelt for w, spelt in SYNONYMS.items() if " " not in w}
_IDENTIFIER = re.compile(r"`([^`]+)`|\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\b")
_LITERAL = re.compile(r"([<>]=?|==|!=|=)\s*(-?\d+(?:\.\d+)?|True|False|None|true|false)\b")
_WORD_LITERAL = re.compile(r"\b(greater than|more than|at least|less than|at most|be|equal(?:s| to)?)\s+"
                           r"(-?\d+|true|false|none)\b", re.IGNORECASE)  # fmt: skip
_FILE = re.compile(r"/|\.(?:py|sh|cu|cuh|cc|cpp|h|yaml|yml|json|md|toml)$")
_ORDER_WORDS = {"greater than": ">", "more than": ">", "at least": ">=", "less than": "<", "at most": "<="}


def wanted(sentence: str) -> tuple[frozenset[str], frozenset[str]]:
    """What a sentence names (identifiers, the last part of a dotted one too) and the literals it states (a whole
    number compared with ``<``/``>`` or "greater/less than" as ``~N``: itself or its neighbour decides it).  A
    sentence that names one thing only by a word the code spells otherwise ("PP") names too little to decide."""
    names: set[str] = set()
    for span, word in _IDENTIFIER.findall(sentence):
        for token in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span) if span else [word]:
            if "_" in token.strip("_") or span:
                names.add(token)
        if word and "." in word:
            names.add(word.rsplit(".", 1)[1])
    explicit = {n for n in names if len(n) > 2}
    for word, spelt in SYNONYMS.items():
        flags = 0 if len(word) <= 5 else re.IGNORECASE
        if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", sentence, flags):
            names.update(spelt)
    names = {n for n in names if len(n) > 2 and not _FILE.search(n)}  # a file it cites is where, not what
    explicit = {n for n in explicit if not _FILE.search(n)}
    if not explicit and len(names) < 2:
        names = set()
    constants = {_bound(op, n) for op, n in _LITERAL.findall(sentence)}
    constants |= {_bound(_ORDER_WORDS.get(word.lower(), "="), n) for word, n in _WORD_LITERAL.findall(sentence)}
    return frozenset(names), frozenset(_spelt(c) for c in constants)


def _bound(op: str, value: str) -> str:
    """A literal as a gate may state it: ``> 1`` is refused by ``< 2`` or ``<= 1`` (``~+1``: 1 or 2), ``>= 2`` by
    ``< 2`` or ``<= 1`` (``~-2``: 2 or 1); any other, as written."""
    if op in (">", "<="):
        return f"~+{value}"
    if op in ("<", ">="):
        return f"~-{value}"
    return value


def _spelt(constant: str) -> str:
    bare = constant.lstrip("~+-") if constant.startswith("~") else constant
    return bare.capitalize() if bare.lower() in ("true", "false", "none") else constant
