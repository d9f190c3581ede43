"""The rules: every finding code anchor-audit reports, what it means, why it matters and what to do.

The one source of that text: ``anchor-audit explain CODE`` prints it, SARIF's ``rules`` carry it
(``shortDescription``, ``fullDescription``, ``help``), and a test checks that every code has all of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import TextEnum


class Family(TextEnum):
    """What a rule is about: the hundreds digit of its code (AA1xx quotes, AA2xx claims, ...)."""

    QUOTE = "quote"
    CLAIM = "claim"
    SKILL = "skill"  # the skill as a whole: unreadable, skipped, out of sync
    PROMISE = "promise"  # evidence paths, @references, test counts, symbols, the prose's citations
    IMPACT = "impact"  # what a code change does to the skills (impact's findings, on the code's lines)


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    level: str  # SARIF level: error | warning | note
    summary: str  # what it means, in one line
    why: str  # why it matters
    act: str  # what to do about it
    drift: bool = True  # counts toward exit code 1

    @property
    def family(self) -> Family:
        return _FAMILIES[self.code[2]]


_FAMILIES = {"1": Family.QUOTE, "2": Family.CLAIM, "3": Family.SKILL, "4": Family.PROMISE, "5": Family.IMPACT}


def _rule(code: str, name: str, level: str, summary: str, why: str, act: str, drift: bool = True) -> Rule:
    return Rule(code, name, level, summary, why, act, drift)


RULES: dict[str, Rule] = {
    r.code: r
    for r in (
        _rule("AA101", "quote-moved", "warning",
              "The quoted code moved: the quote's START:END no longer fits it.",
              "An agent that opens the file at those lines reads other code than the skill shows.",
              "Run `anchor-audit fix --write` to rewrite the range (the finding names the new one)."),
        _rule("AA102", "quote-changed", "error",
              "The quoted code is no longer in its file.",
              "The skill teaches code that is not there any more: an agent copying it writes code that does not "
              "match the repository.",
              "Read the change (the finding shows the closest code now, and `history` the commit that changed it), "
              "then rewrite the quote and its prose."),
        _rule("AA103", "quote-missing", "error",
              "The quoted file is not at the audited ref.",
              "Every quote of that file, and every claim resting on it, points at nothing.",
              "Find where the code went (`history` names the commit) and re-quote it, or drop the quote."),
        _rule("AA104", "quote-unverifiable", "note",
              "The source cannot show the quoted file (a wheel has no docs/).",
              "Nothing is known about the quote at this ref; it is neither holding nor drifting.",
              "Audit against the repository (`--repo`, `--ref`) instead of a release wheel, or leave it."),
        _rule("AA105", "quote-incomplete", "warning",
              "Checking the quote would pass one of anchor-audit's bounds.",
              "The quote was not checked to the end, so its status is not known.",
              "Quote a shorter range; the finding says which bound was reached."),
        _rule("AA106", "quote-error", "warning",
              "The quoted file cannot be audited (binary, not UTF-8, a link).",
              "A quote of a file that is not text cannot be kept in step with it.",
              "Quote a text file, or remove the quote."),
        _rule("AA107", "quote-relocated", "warning",
              "The quoted code left its file and is now in another one.",
              "The fence names the old file: an agent following it opens the wrong one.",
              "Run `anchor-audit fix --write`: it rewrites the fence to the new file and range."),
        _rule("AA201", "claim-broken", "error",
              "Evidence registered for the claim fails.",
              "The skill states something about the code that its own evidence now contradicts.",
              "Read the failing quote or condition in the finding; fix the code, the skill's claim, or the "
              "registry entry in anchors.yaml."),
        _rule("AA202", "claim-unverifiable", "warning",
              "Some evidence registered for the claim could not be checked.",
              "The claim may hold or not: nobody checked.",
              "Make the evidence checkable here (another source, a reachable submodule), or say why in "
              "anchors.yaml."),
        _rule("AA203", "card-mismatch", "error",
              "card.yaml's tags contradict the verdict.",
              "Readers of the card (and the catalog) are told the claim is verified when it is not, or the reverse.",
              "Run `anchor-audit fix --update-card --write`, or correct the tag by hand."),
        _rule("AA204", "unknown-tag", "note",
              "card.yaml uses a tag anchor-audit does not know; kept.",
              "The tag says nothing anchor-audit can check.",
              "Use code_verified, doc_only, file_exists or test_verified, or leave it as a note.",
              drift=False),
        _rule("AA205", "claim-unlinked", "note",
              "A code_verified claim has no registered evidence.",
              "The card says verified, but nothing backs the word yet.",
              "Run `anchor-audit init SKILL_DIR` to draft its evidence in anchors.yaml, then confirm it.",
              drift=False),
        _rule("AA206", "validation-contradicted", "error",
              "The card's validated_on day is on or after the commit that removed a path the skill relies on.",
              "The date says the skill was checked against code that was already gone: its other claims may "
              "rest on the same stale reading.",
              "Re-validate the skill against the code as it is (heal or drop the path), then set validated_on; "
              "`anchor-audit check --ref validated` shows the code of that day."),
        _rule("AA207", "validated-versions-contradicted", "error",
              "The card's validated_versions says a claim holds for the release audited, and it is broken there.",
              "A reader picks the skill by the range the card gives: at this release the claim misleads them.",
              "Run `anchor-audit matrix SKILL_DIR --repo R --write-card` to write the ranges the releases show, "
              "or heal the claim."),
        _rule("AA208", "anchor-stale-on-validation-day", "warning",
              "Code a claim cites did not say what the claim rests on at the card's own validated_on commit: a "
              "card comment's lines named nothing of the claim, or a quote's gates were not in its file yet.",
              "What was cited was never the evidence, so its holding at the ref proves nothing; where the code "
              "landed later, the card was validated before it existed.",
              "Read the claim against the code at the ref and cite the lines that decide it; then set "
              "validated_on."),
        _rule("AA301", "skill-unreadable", "error",
              "The skill cannot be read (a bad fence, card.yaml, a link).",
              "Nothing of the skill was checked.",
              "Fix the file and line the finding names."),
        _rule("AA302", "skill-skipped", "warning",
              "The code the skill is about could not be had (unreachable).",
              "The skill was not audited at all; its drift, if any, is unseen.",
              "Give the repository with `--mirror OWNER/NAME=DIR`, or make it reachable."),
        _rule("AA303", "catalog-out-of-sync", "warning",
              "The catalog's copy differs from the repository's.",
              "The catalog serves a skill its upstream no longer publishes (or one it never did).",
              "Re-sync the copy from upstream; fix drift upstream, where the next sync takes it from. The "
              "finding says whether the copy is behind (it names the upstream commit it matches) or ahead."),
        _rule("AA304", "catalog-unlisted", "note",
              "A folder of the catalog's skills/ that no components.d entry names; not audited.",
              "Nothing says where its code is, so nothing of it can be checked; a sync may prune it.",
              "Add a components.d entry naming its repository, or keep it listed in the catalog's exception "
              "file with a reason (the finding names the file, when one lists it).",
              drift=False),
        _rule("AA401", "evidence-missing", "error",
              "A card.yaml evidence path is not at the audited ref.",
              "The card cites a file as proof that is not there.",
              "Use the path the finding names (moved, or the one namesake) or `fix --write`, which renames a "
              "moved path; else remove it."),
        _rule("AA402", "reference-missing", "error",
              "An @path reference of SKILL.md is not at the audited ref.",
              "An agent told to read the file finds nothing.",
              "Point the reference at the file's new place, or remove it."),
        _rule("AA403", "test-count-differs", "warning",
              "A pytest file defines another number of tests than promised.",
              "An agent that runs the tests and compares the count sees a failure that is not one.",
              "Update the N of \"N passed\" to the count the finding gives."),
        _rule("AA404", "promise-unverifiable", "note",
              "A promise cannot be checked here.",
              "It may hold or not; nothing is claimed either way.",
              "Nothing, or audit against a source that has the file.",
              drift=False),
        _rule("AA405", "symbol-missing", "error",
              "A name or field the skill's examples use is not in the code.",
              "Code an agent writes from the example fails to import or to run.",
              "Use the name the code has now (a private rename is named in the finding), or fix the example."),
        _rule("AA406", "path-missing", "error",
              "A repository path SKILL.md's prose names is not at the audited ref.",
              "An agent told to open or edit the file cannot find it.",
              "Use the path the finding names (moved, unrenamed, the one namesake); `fix --write` writes it when "
              "it is certain."),
        _rule("AA407", "link-broken", "error",
              "A link of SKILL.md (or its #anchor) does not resolve.",
              "Readers and agents following the link reach nothing; in a catalog, the copy's layout may be why.",
              "Point the link at the target's place (`fix --write` when the target moved); a catalog's layout "
              "break is fixed upstream or by the catalog's sync."),
        _rule("AA408", "version-differs", "warning",
              "A version the skill states is not what the code requires.",
              "An agent installs a Python or a package the code does not accept.",
              "Write the version the finding gives (the repository's pyproject.toml)."),
        _rule("AA409", "command-missing", "error",
              "A module, script, subcommand, flag or default a command of the skill uses (or a spec key's default "
              "its schema gives) is not here.",
              "The command an agent runs fails to start, or behaves otherwise than the skill says.",
              "Rewrite the command as the code's parser defines it (the finding names the closest flag)."),
        _rule("AA410", "folder-rename-in-paths", "error",
              "A rename of the skill's folder was applied inside the repository paths it cites, where the code "
              "kept the old name.",
              "Every such path is missing, and each claim resting on one reads as broken, for one slip.",
              "Run `anchor-audit fix` (or `fix --catalog`, for the upstream repository): it writes the paths the "
              "code has."),
        _rule("AA411", "constraint-broken", "error",
              "A sentence of card.yaml's known_constraints or interactions was decided by a gate of the card's "
              "evidence on its "
              "validation day, and that gate is gone or changed at the audited ref.",
              "The skill tells agents a constraint the code no longer enforces (or enforces otherwise).",
              "Read the gate the finding names at the ref; update the sentence, or re-verify the card."),
        _rule("AA412", "line-citation-drifted", "warning",
              "A line citation of the prose or of card.yaml (`config.py:1524-1531`, a card comment's range) no longer "
              "points at the lines it cited on the card's validation day: they moved (the finding names where), "
              "changed, or are gone.",
              "A reader who opens the file at those lines reads other code than the skill meant.",
              "Run `anchor-audit fix --write` to rewrite a range that only moved; else re-read the code and "
              "cite the lines that say it."),
        _rule("AA413", "page-unreached", "note",
              "A Markdown page of the skill's folder that no chain of links from SKILL.md reaches.",
              "An agent reads SKILL.md and follows its links: a page nothing leads to is never read, and what it "
              "says is lost (or it is left over, and ships for nothing).",
              "Link it from SKILL.md or from a page SKILL.md links, or remove it.",
              drift=False),
        _rule("AA501", "skill-made-stale", "error",
              "A code change (impact BASE HEAD) changes the status of a skill's quote, condition, claim or citation.",
              "Merged as it is, the change leaves a skill teaching what the code no longer does; its level is that "
              "of the status it leads to (a quote that only moved is a warning).",
              "Apply the healing patch in the same pull request (`impact --apply`), or update the skill; the "
              "finding names the skill and the quote or claim."),
        _rule("AA502", "quoted-code-touched", "note",
              "A code change touches lines a skill quotes, and their status stays.",
              "The quote still holds, but a reviewer of the code may want the skill's author to look.",
              "Nothing, or ask the skill's owner to read the change.",
              drift=False),
    )
}  # fmt: skip
