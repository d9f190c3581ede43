"""Config attribute chains of a skill's Python examples, followed through the repository's own classes."""

from __future__ import annotations

from pathlib import Path

from anchor_audit.checks.attrchains import check_chains
from anchor_audit.source.git import open_git
from anchor_audit.spec.skill import load_skill

from .hostile.conftest import make_code_repo, make_skill

CODE = {
    "src/acme/__init__.py": "",
    "src/acme/config/__init__.py": "from .container import Container\n",  # a re-export
    "src/acme/config/container.py": (
        "from dataclasses import dataclass\nfrom typing import Optional\n\nfrom acme.config.model import ModelConfig\n"
        "from .train import TrainConfig\n\n\n@dataclass\nclass Container:\n    model: ModelConfig\n"
        '    train: Optional["TrainConfig"] = None\n    name: str = "x"\n'
    ),
    "src/acme/config/model.py": (
        "from dataclasses import dataclass\n\nfrom acme.config.base import Base\n\n\n@dataclass\n"
        "class ModelConfig(Base):\n    tensor_parallel: int = 1\n\n    def __post_init__(self):\n"
        "        self.derived = 2\n"
    ),
    "src/acme/config/base.py": "class Base:\n    seed: int = 0\n",
    "src/acme/config/train.py": "class TrainConfig:\n    steps: int = 1\n",
    "src/acme/config/wrapped.py": "from torch.nn import Module\n\n\nclass Wrapped(Module):\n    own: int = 1\n",
    "src/acme/recipes.py": "from acme.config.container import Container\n\n\ndef pretrain_config() -> Container:\n    ...\n",
}

EXAMPLE = """\
```python
from acme.recipes import pretrain_config
from acme.config import Container
from acme.config.wrapped import Wrapped

cfg = pretrain_config()
cfg.model.tensor_parallel = 2
cfg.model.seed = 3
cfg.model.derived = 4
cfg.model.tensor_paralel = 2
cfg.train.steps = 10
cfg.name.upper = 1
direct = Container(model=None)
direct.train.stepz = 1
w = Wrapped()
w.own += 1
w.anything = 1
other.x.y = 1
other.z = 2
```
"""


def test_chains_are_followed_through_fields_annotations_bases_and_re_exports(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code", CODE)
    tree = open_git(str(repo.path), "v1")
    skill = load_skill(make_skill(tmp_path / "skill", EXAMPLE))
    got = [(r.path, r.status.value, r.detail) for r in check_chains(skill, tree)]
    assert [(path, status) for path, status, _ in got] == [
        ("cfg.model.tensor_parallel", "exists"),  # the function's return annotation types cfg
        ("cfg.model.seed", "exists"),  # inherited from a base in another module
        ("cfg.model.derived", "exists"),  # self.derived = ... in a method
        ("cfg.model.tensor_paralel", "missing"),
        ("cfg.train.steps", "exists"),  # Optional["TrainConfig"], imported relatively
        ("cfg.name.upper", "unverifiable"),  # str: not a class of this repository
        ("direct.train.stepz", "missing"),  # Container through the package's re-export
        ("w.own", "exists"),
        ("w.anything", "unverifiable"),  # Wrapped inherits from torch
        ("other.*", "unverifiable"),  # one note for the variable, not one per line
    ]
    details = {path: detail for path, _, detail in got}
    assert details["cfg.model.tensor_parallel"] == "src/acme/config/model.py:8"
    assert details["cfg.model.seed"] == "src/acme/config/base.py:2"
    assert details["cfg.model.tensor_paralel"] == "ModelConfig (src/acme/config/model.py) has no field tensor_paralel"
    assert details["direct.train.stepz"] == "TrainConfig (src/acme/config/train.py) has no field stepz"
    assert details["other.*"] == "the type of other is not known from the examples: 2 attribute chains"
