"""Examples the prose's citations own: SKILL.md text, the repository (:mod:`.prose_examples_code`) and skill folder
it meets, and the verdicts.

tests/test_citation_examples.py builds each repository with git and each skill folder on disk, and checks
that :func:`anchor_audit.checks.prose.check_citations` says exactly ``expect`` (kind, target, status), in order.
``NOT_CITATIONS`` are texts that must give no citation at all. Add a line here when you teach it something.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..model import PromiseKind, PromiseStatus

PATH, LINK, VERSION, COMMAND = PromiseKind.PATH, PromiseKind.LINK, PromiseKind.VERSION, PromiseKind.COMMAND
SYMBOL, PRIVATE, LINES = PromiseKind.SYMBOL, PromiseStatus.PRIVATE, PromiseKind.LINES
EXISTS, MISSING, UNVERIFIABLE = PromiseStatus.EXISTS, PromiseStatus.MISSING, PromiseStatus.UNVERIFIABLE
EXTERNAL = PromiseStatus.EXTERNAL
HOLDS, DIFFERS = PromiseStatus.HOLDS, PromiseStatus.DIFFERS



@dataclass(frozen=True)
class CitationExample:
    name: str
    body: str  # SKILL.md below its front matter
    expect: tuple[tuple[PromiseKind, str, PromiseStatus], ...]
    skill_files: dict[str, str] = field(default_factory=dict)  # more files in the skill's folder


_TRAIN_SCHEMA = json.dumps({"properties": {"train": {"properties": {
    "strategy": {"type": "string", "default": "ddp"}, "num_gpus": {"type": "integer", "default": 1},
    "sync_bn": {"type": "boolean", "default": False}}}}})  # fmt: skip
_SPEC_SCHEMA = json.dumps({"properties": {"train": {"properties": {
    "num_gpus": {"type": "integer"}, "sources": {"type": "object", "default": {"image_dir": "", "json_file": ""}},
    "plugins": {"type": "collection"}}}}})  # fmt: skip
_CLONES, _RUN = "```bash\ngit clone --depth 1 https://github.com/", ".git\n```\n\nRun `src/acme/launcher/ppo_loop.py`\n"
EXAMPLES = [
    CitationExample(
        "a path in a code span", "Edit `src/acme/launcher/slurm.py`.\n", ((PATH, "src/acme/launcher/slurm.py", EXISTS),)
    ),
    CitationExample(
        "a deleted path", "See `src/acme/launcher/pbs.py`.\n", ((PATH, "src/acme/launcher/pbs.py", MISSING),)
    ),
    CitationExample(
        "brace expansion, one part gone",
        "The backends: `src/acme/launcher/{slurm,local,k8s}.py`.\n",
        (
            (PATH, "src/acme/launcher/slurm.py", EXISTS),
            (PATH, "src/acme/launcher/local.py", EXISTS),
            (PATH, "src/acme/launcher/k8s.py", MISSING),
        ),
    ),
    CitationExample(
        "a glob that still matches", "All of `src/acme/launcher/*.py`.\n", ((PATH, "src/acme/launcher/*.py", EXISTS),)
    ),
    CitationExample(
        "a glob of a deleted folder",
        "All of `src/acme/projection/*.py`.\n",
        ((PATH, "src/acme/projection/*.py", MISSING),),
    ),
    CitationExample(
        "a path written from inside the package", "See `training/config.py`.\n", ((PATH, "training/config.py", EXISTS),)
    ),
    CitationExample("a folder", "Recipes live in `src/acme/training/`.\n", ((PATH, "src/acme/training/", EXISTS),)),
    CitationExample(
        "a path of another tree", "Install into `opt/tools/bin.sh`.\n", ((PATH, "opt/tools/bin.sh", UNVERIFIABLE),)
    ),
    CitationExample("a path nowhere here, in a skill that clones another repository", f"{_CLONES}other/trainer{_RUN}",
                    ((PATH, "src/acme/launcher/ppo_loop.py", UNVERIFIABLE),)),  # fmt: skip
    CitationExample("a path nowhere here, in a skill that clones this one", f"{_CLONES}acme/code{_RUN}",
                    ((PATH, "src/acme/launcher/ppo_loop.py", MISSING),)),  # fmt: skip
    CitationExample(
        "a path in the skill's own folder",
        "Run `scripts/helper.sh` from this folder.\n",
        ((PATH, "scripts/helper.sh", EXISTS),),
        {"scripts/helper.sh": "echo hi\n"},
    ),
    CitationExample(
        "a script and a config in a command; the output is not a citation",
        "```bash\npython scripts/run.py --config scripts/big.yaml --output-dir out/run1.json\n```\n",
        (
            (COMMAND, "scripts/run.py --config, --output-dir", UNVERIFIABLE),  # run.py parses no flags itself
            (PATH, "scripts/run.py", EXISTS),
            (PATH, "scripts/big.yaml", MISSING),
        ),
    ),
    CitationExample(
        "a link into the skill's folder, and one to a file it no longer ships",
        "[the guide](references/guide.md) and [the old one](references/old.md)\n",
        ((LINK, "references/guide.md", EXISTS), (LINK, "references/old.md", MISSING)),
        {"references/guide.md": "# Guide\n\n## Usage notes\n"},
    ),
    CitationExample(
        "an anchor to a heading of SKILL.md, and to one that is gone",
        "## Setup steps\n\nSee [setup](#setup-steps) and [install](#install).\n",
        ((LINK, "#setup-steps", EXISTS), (LINK, "#install", MISSING)),
    ),
    CitationExample(
        "an anchor written in capitals names the heading as GitHub does: anchors compare case-insensitively",
        "## Setup\n\nSee [setup](#Setup).\n",
        ((LINK, "#Setup", EXISTS),),
    ),
    CitationExample(
        "an anchor into another file, by GitHub's slug rules",
        "[notes](references/guide.md#usage-notes), [gone](references/guide.md#faq)\n",
        ((LINK, "references/guide.md#usage-notes", EXISTS), (LINK, "references/guide.md#faq", MISSING)),
        {"references/guide.md": "# Guide\n\n## Usage *notes*\n"},
    ),
    CitationExample(
        "a link above the skill's folder, whose place in the repository is unknown",
        "[the code](../../src/acme/training/config.py)\n",
        ((LINK, "../../src/acme/training/config.py", UNVERIFIABLE),),
    ),
    CitationExample(
        "a link to the audited repository on GitHub",
        "[slurm](https://github.com/acme/code/blob/main/src/acme/launcher/slurm.py) and "
        "[gone](https://github.com/acme/code/blob/main/src/acme/launcher/pbs.py#L3-L9)\n",
        ((LINK, "src/acme/launcher/slurm.py", EXISTS), (LINK, "src/acme/launcher/pbs.py", MISSING)),
    ),
    CitationExample(
        "a module run with python -m: its flags as its argparse parser defines them",
        "```bash\npython -m acme.cli.train --steps 3 --config-file c.yaml --stepz 4\n```\n",
        (
            (COMMAND, "python -m acme.cli.train", EXISTS),
            (COMMAND, "python -m acme.cli.train --steps", EXISTS),
            (COMMAND, "python -m acme.cli.train --config-file", EXISTS),
            (COMMAND, "python -m acme.cli.train --stepz", MISSING),
        ),
    ),
    CitationExample(
        "a module that is gone, one that is not this repository's, and one a launcher runs",
        "```bash\ntorchrun --nproc-per-node 8 -m acme.cli.app\npython -m torch.utils.collect_env\n"
        "python -m torch.distributed.run --nproc_per_node=2 \\\n    -m acme.cli.train \\\n    --steps 1\n```\n",
        (
            (COMMAND, "python -m acme.cli.app", MISSING),
            (COMMAND, "python -m torch.utils.collect_env", EXTERNAL),
            (COMMAND, "python -m acme.cli.train", EXISTS),  # what the launcher runs, not the launcher
            (COMMAND, "python -m acme.cli.train --steps", EXISTS),
        ),
    ),
    CitationExample(
        "a console script [project.scripts] declares, a flag it abbreviates, and a program that is not its",
        "```bash\nacme-train --config c.yaml --model.depth 4\nother-tool --x 1\n```\n",
        (
            (COMMAND, "acme-train", EXISTS),
            (COMMAND, "acme-train --config", EXISTS),
            (COMMAND, "acme-train --model.depth", UNVERIFIABLE),  # an override for the config
        ),
    ),
    CitationExample(
        "a flag prefix two flags share is ambiguous (argparse refuses it); one only one flag has abbreviates it",
        "```bash\npython -m acme.cli.tune --learning 3 --learning-d 0.1\n```\n",
        (
            (COMMAND, "python -m acme.cli.tune", EXISTS),
            (COMMAND, "python -m acme.cli.tune --learning", MISSING),
            (COMMAND, "python -m acme.cli.tune --learning-d", EXISTS),
        ),
    ),
    CitationExample(
        "a click CLI: a group's subcommand, the two halves of a boolean flag, a group it does not have",
        "```bash\nacme-k8s cluster up --no-wait --rayjob\nacme-k8s jobs list\n```\n",
        (
            (COMMAND, "acme-k8s", EXISTS),
            (COMMAND, "acme-k8s cluster", EXISTS),
            (COMMAND, "acme-k8s --no-wait", EXISTS),
            (COMMAND, "acme-k8s --rayjob", EXISTS),
            (COMMAND, "acme-k8s", EXISTS),
            (COMMAND, "acme-k8s jobs", MISSING),
        ),
    ),
    CitationExample(
        "a console script a subproject's own pyproject.toml declares",
        "```bash\nkit-run --rayjob --gone\n```\n",
        ((COMMAND, "kit-run", EXISTS), (COMMAND, "kit-run --rayjob", EXISTS), (COMMAND, "kit-run --gone", MISSING)),
    ),
    CitationExample(
        "a CLI that takes one positional config, called with subcommands it no longer has; subcommands that hold",
        "```bash\nacme finetune llm --dry-run\nacme run.yaml\npython -m acme.cli.tools convert x\n"
        "python -m acme.cli.tools import x\n```\n",
        (
            (COMMAND, "acme", EXISTS),
            (COMMAND, "acme finetune llm", DIFFERS),
            (COMMAND, "acme --dry-run", EXISTS),
            (COMMAND, "acme", EXISTS),
            (COMMAND, "python -m acme.cli.tools", EXISTS),
            (COMMAND, "python -m acme.cli.tools convert", EXISTS),
            (COMMAND, "python -m acme.cli.tools", EXISTS),
            (COMMAND, "python -m acme.cli.tools import", MISSING),
        ),
    ),
    CitationExample(
        "a script whose parser is in a module it imports",
        "```bash\npython scripts/launch.py --steps 2 --nodes 1\n```\n",
        (
            (COMMAND, "scripts/launch.py --steps", EXISTS),
            (COMMAND, "scripts/launch.py --nodes", MISSING),
            (PATH, "scripts/launch.py", EXISTS),
        ),
    ),
    CitationExample(
        "inline line anchors: a path's lines, a tail's, and a range past the file's end",
        "See `src/acme/training/config.py:1-2`, `training/config.py:2` and `scripts/run.py:5-9`.\n",
        (
            (LINES, "src/acme/training/config.py:1-2", EXISTS),
            (LINES, "training/config.py:2", EXISTS),
            (LINES, "scripts/run.py:5-9", DIFFERS),  # with no validation day, only the range is checked
        ),
    ),
    CitationExample(
        "a clause that makes a file, and another in the same line that names one that must exist",
        "Create `src/acme/launcher/mine.py`, then register it in `src/acme/launcher/registry.py`.\n",
        ((PATH, "src/acme/launcher/registry.py", MISSING),),
    ),
    CitationExample(
        "names in the prose: this repository's, one removed, one that became private",
        "Build a `acme.training.config.TrainConfig`, not `acme.training.config.EvalConfig`; then `make_batch()`"
        " (also `acme.training.data.make_batch`).\n",
        (
            (SYMBOL, "acme.training.config.TrainConfig", EXISTS),
            (SYMBOL, "acme.training.config.EvalConfig", MISSING),
            (SYMBOL, "make_batch()", PRIVATE),
            (SYMBOL, "acme.training.data.make_batch", PRIVATE),
        ),
    ),
    CitationExample(
        "a class named alone: this repository's, one only a test defines, one that became private, one nobody's here",
        "Subclass `TrainConfig` (not `FakeTrainer`); plan with `BatchPlan`; torch's `MixedPrecisionPolicy` is not"
        " ours; build one with `TrainConfig(steps=2)`.\n",
        (
            (SYMBOL, "TrainConfig", EXISTS),
            (SYMBOL, "FakeTrainer", UNVERIFIABLE),
            (SYMBOL, "BatchPlan", PRIVATE),
            (SYMBOL, "TrainConfig(steps=2)", EXISTS),
        ),
    ),
    CitationExample(
        "a module's constant: the package's holds; an environment variable the package never assigns is not said",
        "Start from `SMALL_PRESET`; set `MASTER_ADDR` and `WORLD_SIZE` first.\n",
        ((SYMBOL, "SMALL_PRESET", EXISTS),),
    ),
    CitationExample(
        "a call the package no longer defines, whose name only a test helper has",
        "Then `build_scheduler()` and `make_fake_batch()`.\n",
        ((SYMBOL, "build_scheduler()", UNVERIFIABLE), (SYMBOL, "make_fake_batch()", UNVERIFIABLE)),
    ),
    CitationExample(
        "names that are not this repository's: an object's attributes, another package's, a builtin",
        "Set `cfg.model.tp_size`, call `torch.cuda.synchronize()` and `print()`, read `os.environ`.\n",
        (),
    ),
    CitationExample(
        "a namespace package: its own subpackage is checked, another distribution's part is not known",
        "See `ns.part.core.Engine`, `ns.part.core.Motor` and `ns.other.core.Engine`.\n",
        (
            (SYMBOL, "ns.part.core.Engine", EXISTS),
            (SYMBOL, "ns.part.core.Motor", MISSING),
            (SYMBOL, "ns.other.core.Engine", UNVERIFIABLE),
        ),
    ),
    CitationExample(
        "packages whose roots are not src/: a monorepo's python/kit/kit/, and one setuptools is told of",
        "See `kit.core.Tool`, `kit.core.Gone` and `gear.parts.Cog`.\n",
        (
            (SYMBOL, "kit.core.Tool", EXISTS),
            (SYMBOL, "kit.core.Gone", MISSING),
            (SYMBOL, "gear.parts.Cog", EXISTS),
        ),
    ),
    CitationExample(
        "the _target_ values of a YAML example",
        "```yaml\nmodel:\n  _target_: acme.training.config.TrainConfig\n  opt:\n"
        "    _target_: acme.training.config.Gone  # removed\n```\n",
        (
            (SYMBOL, "_target_: acme.training.config.TrainConfig", EXISTS),
            (SYMBOL, "_target_: acme.training.config.Gone  # removed", MISSING),
        ),
    ),
    CitationExample(
        "package pins: one that fits, one below the code's floor, one past its bound, an unpinned one, another's",
        "Use `torch==2.5.1` (or `torch>=2.1`), never `torch==3.0.0`; `pyyaml>=6.0` and `numpy>=1.26`.\n",
        (
            (VERSION, "torch==2.5.1", HOLDS),
            (VERSION, "torch>=2.1", DIFFERS),
            (VERSION, "torch==3.0.0", DIFFERS),
            (VERSION, "pyyaml>=6.0", HOLDS),
        ),  # numpy is not this repository's dependency: its pin says nothing of this code
    ),
    CitationExample(
        "the pins of a pip command, an extra's included",
        '```bash\npip install "torch>=2.4" pytest==7.4.0\n```\n',
        ((VERSION, "torch>=2.4", HOLDS), (VERSION, "pytest==7.4.0", DIFFERS)),
    ),
    CitationExample(
        "a drawn tree: each entry under the folders above it, one file gone",
        "```text\nsrc/acme/\n├── launcher/\n│   ├── slurm.py\n│   └── pbs.py      # the PBS backend\n│\n"
        "└── training/\n    └── config.py\n```\n",
        (
            (PATH, "src/acme/launcher/", EXISTS),
            (PATH, "src/acme/launcher/slurm.py", EXISTS),
            (PATH, "src/acme/launcher/pbs.py", MISSING),
            (PATH, "src/acme/training/", EXISTS),
            (PATH, "src/acme/training/config.py", EXISTS),
        ),
    ),
    CitationExample(
        "defaults the prose states for its commands' flags: in words and in a table's Default column",
        "```bash\npython -m acme.cli.train --steps 3\n```\n\n`--lr` (default: `3e-4`), `--bf16` (default `false`), "
        "`--steps` defaults to 100, `--workers` (int, default 4), `--depth` (default: 8); `--config-file` "
        "enables the file, by default the one beside it.\n\n| Flag | Default |\n|---|---|\n| `--lr` | 0.001 |\n",
        (
            (COMMAND, "python -m acme.cli.train", EXISTS),
            (COMMAND, "python -m acme.cli.train --steps", EXISTS),
            (COMMAND, "--lr default 3e-4", HOLDS),
            (COMMAND, "--bf16 default false", HOLDS),
            (COMMAND, "--steps default 100", DIFFERS),  # the code's default is None
            (COMMAND, "--workers default 4", UNVERIFIABLE),  # computed when it runs
            (COMMAND, "--depth default 8", UNVERIFIABLE),  # no command of the skill defines it
            (COMMAND, "--lr default 0.001", DIFFERS),
        ),
    ),
    CitationExample(
        "defaults a table states for the keys of a spec, against the JSON schema the skill ships",
        "| Spec key | Meaning | Default |\n|---|---|---|\n| `train.strategy` | how GPUs share | `auto` |\n"
        "| `train.num_gpus` | GPUs | 1 |\n| `train.sync_bn` | sync norms | configurable |\n"
        "| `model.depth` | layers | 12 |\n",
        (
            (SYMBOL, "train.strategy", EXISTS),  # a key of the schema
            (COMMAND, "train.strategy default auto", DIFFERS),  # the schema says ddp
            (SYMBOL, "train.num_gpus", EXISTS),
            (COMMAND, "train.num_gpus default 1", HOLDS),
            (SYMBOL, "train.sync_bn", EXISTS),  # its default, "configurable": words; `model.depth`: no schema has it
        ),
        skill_files={"schemas/train.schema.json": _TRAIN_SCHEMA},
    ),
    CitationExample(
        "the keys of a spec, against the JSON schema the skill ships: one it has, one it does not",
        "Set `train.num_gpus`; drop `train.num_nodes`, which this version does not read. The file `train.yaml`.\n"
        "Point `train.sources.image_dir` at the images; `train.plugins.anything` is free.\n",
        (
            (SYMBOL, "train.num_gpus", EXISTS),
            (SYMBOL, "train.num_nodes", UNVERIFIABLE),
            (SYMBOL, "train.sources.image_dir", EXISTS),  # a key only the object's default shows
        ),  # `train.plugins` lists no keys: the schema does not say
        skill_files={"schemas/train.schema.json": _SPEC_SCHEMA},
    ),
    CitationExample("a Python floor the code raised", "Needs Python 3.10+.\n", ((VERSION, "python>=3.10", DIFFERS),)),
    CitationExample("a Python floor that holds", "Needs Python >= 3.11.\n", ((VERSION, "python>=3.11", HOLDS),)),
]

NOT_CITATIONS = [
    "The `Engine` starts; a `ValueError` or `KeyboardInterrupt` ends it.\n",
    "Put it in `path/to/your_config.yaml`.\n",
    "Create `results/summary.md` with the numbers.\n",
    "Create `src/acme/plugins/mine.py`.\n\nThen append your hook to `src/acme/plugins/mine.py`.\n",  # made, then named
    "See https://example.com/docs/page.md for more.\n",
    "Use TP/DP and/or the input/output ratio.\n",
    "[a site](https://example.com/a/b.py)\n",
    "Version `1.2/3.4` and the ratio `tp/dp`.\n",
    "A file `config.py` and the word `acme`.\n",
    "The library `acme.so`, the header `acme_c.h`, the weights `model.safetensors`.\n",
    "```1:2:src/acme/launcher/slurm.py\npython scripts/gone.py\n```\n",
    "```python\nopen('data/input.csv')\n```\n",
    "Write the log to `logs/train.log`.\n",
    "Create this layout:\n\n```\nruns/today/\n├── logs/\n│   └── train.log\n└── result.json\n```\n",
    "```bash\nmkdir -p runs/today/\ncp scripts/run.py runs/today/run.py\n```\n",
]
