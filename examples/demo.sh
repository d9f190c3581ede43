#!/usr/bin/env bash
# A two-minute tour of anchor-audit on the demo fixtures: no network, nothing written outside a temp folder.
#
#   bash examples/demo.sh
#
# It builds a small git repository from fixtures/demo/src with two tags, v1 (what the demo skill was written
# against) and v2 (imports added above the quoted code, and the TP gate's threshold changed), then audits,
# diffs, and shows what `fix` would heal.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
audit=(python -m anchor_audit)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export ANCHOR_AUDIT_CACHE="$work/cache" GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.invalid \
       GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.invalid

git init -q -b main "$work/code"
cp -r "$here/fixtures/demo/src" "$work/code/src"
git -C "$work/code" add -A && git -C "$work/code" commit -q -m "demo sources" && git -C "$work/code" tag v1
sed -i 's/^from dataclasses import dataclass$/import os\nimport sys\nfrom dataclasses import dataclass/' "$work/code/src/demo/overlap.py"
sed -i 's/if model.tp_size < 2:/if model.tp_size < 4:/' "$work/code/src/demo/overlap.py"
git -C "$work/code" commit -q -am "add imports; raise the TP threshold" && git -C "$work/code" tag v2

cp -r "$here/fixtures/demo/skills" "$work/skills"
sed "s#https://git.example.invalid/demo-trainer.git#code#" "$here/fixtures/demo/anchors.yaml" > "$work/anchors.yaml"
cd "$work"

echo "== 1. check at v1: everything holds (exit 0)"
"${audit[@]}" check --ref v1 && echo "exit 0"

echo; echo "== 2. check at v2: two quotes moved, the TP gate changed (exit 1)"
"${audit[@]}" check --ref v2 || echo "exit $?"

echo; echo "== 3. diff v1 v2 as Markdown for a pull request (exit 1: a claim breaks)"
"${audit[@]}" diff v1 v2 --format markdown || echo "exit $?"

echo; echo "== 4. fix at v2, dry run: the moved quotes would be healed, the changed one is left for a person"
"${audit[@]}" fix --ref v2 || echo "exit $?"
