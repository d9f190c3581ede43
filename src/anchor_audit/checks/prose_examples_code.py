"""The small repository the prose checkers' examples (:mod:`.prose_examples`) meet: a package with the shapes skills
cite (a launcher with a module per backend, scripts, configurations, parsers, console scripts), file by file."""

from __future__ import annotations

# A small package with the shapes skills cite: a launcher with per-backend modules, scripts, configs.
CODE = {
    "pyproject.toml": (
        '[project]\nname = "acme"\nrequires-python = ">=3.11"\ndependencies = ["torch>=2.4,<3", "PyYAML"]\n'
        '[project.optional-dependencies]\ntest = ["pytest>=8"]\n'
    ),
    "src/acme/launcher/slurm.py": "def submit():\n    pass\n",
    "src/acme/launcher/local.py": "def run():\n    pass\n",
    "src/acme/training/config.py": "class TrainConfig:\n    steps: int = 1\n",
    "src/acme/training/presets.py": "SMALL_PRESET = {'steps': 2}\n",
    "scripts/run.py": "print('run')\n",
    "docs/guide.md": "# Guide\n\n## Usage notes\n\ntext\n",
    "docs/api/index.mdx": "# API\n",
    "src/acme/cli/train.py": (
        "import argparse\n\ndef main():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--steps', type=int)\n    p.add_argument('--config-file', '-c')\n"
        "    p.add_argument('--lr', type=float, default=3e-4)\n    p.add_argument('--bf16', action='store_true')\n"
        "    p.add_argument('--workers', default=os.cpu_count())\n    p.parse_args()\n"
    ),
    "src/acme/cli/__init__.py": "",
    "src/acme/cli/tune.py": (
        "import argparse\n\np = argparse.ArgumentParser()\np.add_argument('--learning-rate')\n"
        "p.add_argument('--learning-decay')\np.parse_args()\n"
    ),
    "src/acme/cli/clicky.py": (
        "import click\n\n@click.group()\ndef main():\n    pass\n\n@main.group()\ndef cluster():\n    pass\n\n"
        '@cluster.command("up")\n@click.option("--wait/--no-wait", default=True)\n'
        '@click.option("--rayjob/--raycluster", default=False)\ndef cluster_up(wait, rayjob):\n    pass\n'
    ),
    "src/acme/cli/main.py": (
        "import argparse\n\ndef main():\n    p = argparse.ArgumentParser()\n    p.add_argument('config')\n"
        "    p.add_argument('--dry-run', action='store_true')\n    p.parse_args()\n"
    ),
    "src/acme/cli/tools.py": (
        "import argparse\n\ndef main():\n    p = argparse.ArgumentParser()\n    sub = p.add_subparsers()\n"
        "    sub.add_parser('convert')\n    sub.add_parser('export')\n"
    ),
    "src/acme/__init__.py": "",
    "src/acme/training/data.py": "def _make_batch(cfg):\n    return cfg\n\n\nclass _BatchPlan:\n    pass\n",
    "tests/fixtures.py": "class FakeTrainer:\n    pass\n",
    "tests/helpers.py": "def build_scheduler(cfg):\n    return cfg\n",
    "src/acme/test_helpers.py": "def make_fake_batch(n):\n    return n\n",
    "src/acme/training/__init__.py": "",
    "src/ns/part/__init__.py": "",  # a namespace package this repository adds one subpackage to
    "src/ns/part/core.py": "class Engine:\n    pass\n",
    "scripts/launch.py": "from launch_args import parse\n\nparse()\n",
    "scripts/launch_args.py": (
        "import argparse\n\ndef parse():\n    p = argparse.ArgumentParser()\n    p.add_argument('--steps')\n"
    ),
}
CODE |= {  # a monorepo's package under python/NAME/, and a root only pyproject.toml's setuptools table names
    "python/kit/kit/__init__.py": "",
    "python/kit/kit/core.py": "class Tool:\n    pass\n",
    "lib2/gear/__init__.py": "",
    "lib2/gear/parts.py": "class Cog:\n    pass\n",
}
CODE |= {  # a subproject with a pyproject.toml of its own, declaring its own console script
    "tools/kit/pyproject.toml": '[project]\nname = "kit"\n\n[project.scripts]\nkit-run = "kitcli.main:main"\n',
    "tools/kit/src/kitcli/__init__.py": "",
    "tools/kit/src/kitcli/main.py": (
        "import argparse\n\ndef main():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--rayjob', action='store_true')\n    p.parse_args()\n"
    ),
}
CODE["pyproject.toml"] += '\n[tool.setuptools.packages.find]\nwhere = ["lib2"]\n'
CODE["pyproject.toml"] += '\n[project.scripts]\nacme-train = "acme.cli.train:main"\nacme = "acme.cli.main:main"\n'
CODE["pyproject.toml"] += 'acme-k8s = "acme.cli.clicky:main"\n'
