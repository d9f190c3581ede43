"""What a card's sentence names: the identifiers and literals it states, and the words it uses for what the code
spells otherwise (:data:`SYNONYMS`).  Read by the known constraints, by card sentences' line citations and by the
claims' words (:mod:`anchor_audit.checks.captions`).
"""

from __future__ import annotations

import functools
import re

from ..spec.cardwords import Aliases

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
    "Torch FSDP2": ("use_torch_fsdp2",),
    "Megatron FSDP": ("use_megatron_fsdp",),
    "BF16": ("bf16",),
    "FP16": ("fp16",),
    "CPU offloading": ("cpu_offloading",),
    "CUDA graphs": ("cuda_graph_impl",),
    "CUDA graph": ("cuda_graph_impl",),
    "TP overlap": ("tp_comm_overlap",),
    "TP communication overlap": ("tp_comm_overlap",),
    "PP overlap": ("overlap_p2p_comm",),
    "EP overlap": ("overlap_moe_expert_parallel_comm",),
    "pipeline parallelism": ("pipeline_model_parallel_size",),
    "virtual pipeline parallelism": ("virtual_pipeline_model_parallel_size",),
    "tensor parallelism": ("tensor_model_parallel_size",),
    "context parallelism": ("context_parallel_size",),
    "expert parallelism": ("expert_model_parallel_size",),
    "activation recomputation": ("recompute_granularity",),
    "activation recompute": ("recompute_granularity",),
    "MTP": ("mtp_num_layers",),
    "multi-token prediction": ("mtp_num_layers",),
}
# A library's version floor as the code tests it: "PyTorch >= 2.6.0 is needed": ``is_torch_min_version("2.6.0")``.
VERSION_FLOORS: dict[str, str] = {
    "PyTorch": "is_torch_min_version",
    "torch": "is_torch_min_version",
    "Transformer Engine": "is_te_min_version",
    "TE": "is_te_min_version",
}
_FLOOR = re.compile(
    rf"(?<![\w-])({'|'.join(re.escape(w) for w in VERSION_FLOORS)})(?: version)?\s*(?:must be|is|be)?\s*"
    r"(?:>=|≥|at least)\s*(\d+\.\d+(?:\.\d+)?)"
)
# The short words of SYNONYMS as a claim id spells them (``tp``), for :func:`anchor_audit.checks.captions.mentions`.
ABBREVIATIONS: dict[str, tuple[str, ...]] = {w.lower(): spelt for w, spelt in SYNONYMS.items() if " " not in w}
_IDENTIFIER = re.compile(r"`([^`]+)`|\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\b")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_LITERAL = re.compile(r"([<>]=?|==|!=|=)\s*(-?\d+(?:\.\d+)?|True|False|None|true|false)\b")
_WORD_LITERAL = re.compile(r"\b(greater than|more than|at least|less than|at most|be|equal(?:s| to)?)\s+"
                           r"(-?\d+|true|false|none)\b", re.IGNORECASE)  # fmt: skip
_SPACE = r"[\s-]+"
_CITATION_PREFIX = re.compile(r"(?<![\w./-])[A-Z][A-Za-z]+ (?=[\w./-]*\w\.\w{1,4}:\d)")
_FILE = re.compile(r"/|\.(?:py|sh|cu|cuh|cc|cpp|h|yaml|yml|json|md|toml)$")
_ORDER_WORDS = {"greater than": ">", "more than": ">", "at least": ">=", "less than": "<", "at most": "<="}


def wanted(sentence: str, aliases: Aliases = ()) -> tuple[frozenset[str], frozenset[str]]:
    """What a sentence names (identifiers, the last part of a dotted one too) and the literals it states (a whole
    number compared with ``<``/``>`` or "greater/less than" as ``~N``: itself or its neighbour decides it).  A
    sentence that names one thing only by a word the code spells otherwise ("PP") names too little to decide.
    ``aliases``: what the card's own words stand for (:func:`spelt_out`)."""
    names = _identifiers(sentence)
    explicit = {n for n in names if len(n) > 2}
    floors = _FLOOR.findall(sentence)
    names |= {VERSION_FLOORS[library] for library, _ in floors}
    explicit |= {VERSION_FLOORS[library] for library, _ in floors}  # a version floor names what it tests
    names |= spelt_out(sentence, aliases)[1]
    names = {n for n in names if len(n) > 2 and not _FILE.search(n)}  # a file it cites is where, not what
    explicit = {n for n in explicit if not _FILE.search(n)}
    if not explicit and len(names) < 2:
        names = set()
    constants = {_bound(op, n) for op, n in _LITERAL.findall(sentence)}
    constants |= {_bound(_ORDER_WORDS.get(word.lower(), "="), n) for word, n in _WORD_LITERAL.findall(sentence)}
    if floors:  # the version as the code writes it, not its first numbers as a bound
        constants = {c for c in constants if not any(v.startswith(c.lstrip("~+-")) for _, v in floors)}
        constants |= {version for _, version in floors}
    return frozenset(names), frozenset(_spelt(c) for c in constants)


def _identifiers(sentence: str) -> set[str]:
    """The identifiers a sentence writes: with an underscore, or in backticks; a dotted one by its last part, as a
    gate reads it (``ddp.average_in_collective`` is ``average_in_collective``: ``ddp`` says where it lives)."""
    names: set[str] = set()
    for span, word in _IDENTIFIER.findall(sentence):
        for token in _DOTTED.findall(span) if span else [word]:
            last = token.rsplit(".", 1)[-1]
            if "_" in last.strip("_") or span:
                names.add(last)
    return names


@functools.lru_cache(maxsize=4096)  # a sentence is spelt out for its names, its words and what it says
def spelt_out(sentence: str, aliases: Aliases = ()) -> tuple[str, frozenset[str]]:
    """(``sentence`` with each phrase of :data:`SYNONYMS` and each version floor it uses blanked, the longest
    phrase first, so that "TP overlap" is not also "TP"; the identifiers they stand for).  The card's own
    ``aliases`` (:mod:`anchor_audit.spec.cardwords`) come before the table ("TE" may be a value on one card); the
    word before a line citation says where (``MCore transformer_config.py:10``), not what."""
    names: set[str] = set()
    sentence = _CITATION_PREFIX.sub(" ", _FLOOR.sub(" ", sentence))
    table = {**SYNONYMS, **dict(aliases)}
    for word in sorted(table, key=len, reverse=True):
        flags = 0 if len(word) <= 5 else re.IGNORECASE
        spaced = _SPACE.join(map(re.escape, word.split()))  # "in batch packing": "in-batch packing" too
        pattern = re.compile(rf"(?<![\w-]){spaced}(?![\w-])", flags)
        if pattern.search(sentence):
            names.update(table[word])
            sentence = pattern.sub(" ", sentence)
    return sentence, frozenset(names)


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


_SUFFIXES = ("ation", "ions", "ion", "ing", "ed", "es", "e", "er")


def stem(word: str) -> str:
    """A word without the ending its forms differ by, four letters left at least (``packing``, ``packed``: ``pack``)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


_SWITCHES = ("enable", "use", "is", "has")  # what a setting's name that turns a feature on starts with


def spoken(name: str, words: frozenset[str]) -> frozenset[str]:
    """The stems by which a sentence's ``words`` say setting ``name`` in words (``enable_offline_packing``:
    "offline packed"): each word of its name but a switch's first (``enable``, ``use``), at least two, said in some
    form; empty where they are not all said."""
    stems = _name_stems(name)
    return stems if stems and stems <= _word_stems(words) else frozenset()


@functools.lru_cache(maxsize=65536)
def _name_stems(name: str) -> frozenset[str]:
    """The stems of a setting's words but a switch's first; empty for a name of fewer than two such words."""
    parts = [p for p in name.lower().split("_") if p]
    if parts and parts[0] in _SWITCHES:
        parts = parts[1:]
    return frozenset(stem(p) for p in parts) if len(parts) >= 2 else frozenset()


@functools.lru_cache(maxsize=256)
def _word_stems(words: frozenset[str]) -> frozenset[str]:
    """The stems of a sentence's single words ("in-batch": ``in``, ``batch``); asked of every gate's names."""
    return frozenset(stem(part) for w in words if "_" not in w for part in w.split("-"))


def said_words(sentence: str) -> frozenset[str]:
    """A sentence's words, lower case, and each run of two to four of them joined by ``_`` ("async save" is
    ``async_save``): what a gate's setting or value is spelt as when the sentence says it in words."""
    words = [w.lower() for w in re.findall(r"[\w+-]+(?:\.[\w+-]+)*", sentence)]
    runs = ("_".join(words[i : i + n]) for n in range(2, 5) for i in range(len(words) - n + 1))
    return frozenset([*words, *runs])
