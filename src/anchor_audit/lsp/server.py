"""``anchor-audit lsp``: a language server over stdio for SKILL.md, card.yaml and anchors.yaml (pygls).

Every check runs on one worker thread, in the order asked; a check that a
newer edit of the same skill has overtaken is not run, and one overtaken
while running is not published (the newer one is).  The protocol's own
thread only records what the editor holds and hands work to the worker, so
the editor never waits on git.  The worker owns the session, its result store
and its git processes; diagnostics it makes are sent from the protocol's
thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..commands.context import run_context
from ..errors import AuditError
from ..report.reporter import Reporter
from . import features
from .session import REGISTRY, SKILL_FILES, Session, Settings, SkillCheck, skill_folder

T = TypeVar("T")
SHUTDOWN_WAIT = 2.0  # seconds shutdown waits for a running check before it answers
CODE_SUFFIXES = (".py", ".pyi", ".toml", ".cfg", ".md", ".yaml", ".yml", ".json", ".sh", ".txt", ".rst")


class AuditServer(LanguageServer):
    """The server: what the editor holds, the worker that checks, what was last published per skill."""

    def __init__(self, cache_dir: str | None = None) -> None:
        super().__init__("anchor-audit", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.cache_dir = cache_dir
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="anchor-audit-check")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.session: Session | None = None  # made and used on the worker only
        self.root = Path.cwd()
        self.settings = Settings()
        self.wanted: dict[Path, int] = {}  # skill folder -> the newest check asked for it
        self.results: dict[Path, SkillCheck] = {}
        self._count = itertools.count(1)
        self._closing = contextlib.ExitStack()

    # -------------------------------------------------------------- on the protocol's thread

    def texts(self) -> dict[Path, str]:
        """The text of every open document that is a skill's file, the registry or the baseline."""
        out = {}
        for doc in list(self.workspace.text_documents.values()):
            path = features.path_of(doc.uri)
            if path is not None:
                out[path.resolve()] = doc.source
        return out

    def open_folders(self) -> set[Path]:
        return {folder for path in self.texts() if (folder := skill_folder(path)) is not None}

    def schedule(self, folders: set[Path]) -> None:
        """Check each of ``folders`` on the worker, with the editor's text as it is now."""
        texts = self.texts()
        for folder in sorted(folders):
            number = next(self._count)
            self.wanted[folder] = number
            self.worker.submit(self._check, folder, number, texts)

    def on_worker(self, job: Callable[[], T]) -> "asyncio.Future[T]":
        return asyncio.wrap_future(self.worker.submit(job))

    def publish(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        params = types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        if self.loop is not None and threading.current_thread() is not threading.main_thread():
            self.loop.call_soon_threadsafe(self.text_document_publish_diagnostics, params)
        else:
            self.text_document_publish_diagnostics(params)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        params = types.LogMessageParams(type=kind, message=message)
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.window_log_message, params)

    # -------------------------------------------------------------- on the worker

    def start_session(self, settings: Settings) -> None:
        self.worker.submit(self._start_session, settings)

    def _start_session(self, settings: Settings) -> None:
        if self.session is None:  # the cache and its result store are the worker's: SQLite stays on one thread
            self._ctx = self._closing.enter_context(run_context(Reporter(quiet=True), self.cache_dir, True))
        self.session = Session(self.root, settings, self._ctx)

    def _check(self, folder: Path, number: int, texts: dict[Path, str]) -> None:
        if self.wanted.get(folder) != number or self.session is None:
            return  # a newer edit of this skill is queued: this one is not worth running
        skill_md = folder / "SKILL.md"
        try:
            check = self.session.check(folder, {p.name: t for p, t in texts.items() if p.parent == folder})
        except AuditError as exc:
            text = features.text_of(skill_md, texts)
            self.publish(features.uri_of(skill_md), [features.problem_diagnostic(str(exc), text)])
            return
        except Exception as exc:  # one skill's failure is its own, never the server's
            self.log(f"anchor-audit: internal error checking {folder}: {type(exc).__name__}: {exc}")
            return
        finally:
            self.session.judge.flush()
        if self.wanted.get(folder) != number:
            return  # overtaken while it ran: the newer check publishes
        self.results[folder] = check
        for file, found in features.diagnostics(check, texts).items():
            self.publish(features.uri_of(file), found)

    def _registry_changed(self, text: str | None) -> None:
        """anchors.yaml edited or closed: read again, and what check would refuse in it said on its own line."""
        if self.session is None:
            return
        self.session.registry_changed(text)
        path = self.session.registry_path
        if path is None:
            return
        try:
            self.session.spec()
            found: list[types.Diagnostic] = []
        except AuditError as exc:
            written = text if text is not None else features.text_of(path, {})
            found = [features.registry_diagnostic(str(exc), path, written)]
        self.publish(features.uri_of(path), found)

    def _code_changed(self, paths: list[Path], texts: dict[Path, str]) -> set[Path]:
        """The skill folders to check again after ``paths`` of the code changed (none unless a working tree is read)."""
        from ..checks.reads import reads

        session = self.session
        if session is None or not session.code_changed():
            return set()
        top = session.worktree_dir()
        changed = {p.resolve().relative_to(top).as_posix() for p in paths if p.resolve().is_relative_to(top)}
        again = set()
        for folder, check in list(self.results.items()):
            if check.skill is None or reads(check.skill, check.entry).touched_by(changed):
                again.add(folder)
        return again


def build_server(cache_dir: str | None = None) -> AuditServer:
    """The server with every feature registered (``anchor-audit lsp`` starts it on stdio)."""
    server = AuditServer(cache_dir)
    for feature, options, handler in _FEATURES:
        server.feature(feature, options)(handler)
    return server


def _initialize(ls: AuditServer, params: types.InitializeParams) -> None:
    ls.loop = asyncio.get_running_loop()
    folders = params.workspace_folders or []
    uri = folders[0].uri if folders else params.root_uri
    root = features.path_of(uri) if uri else None
    ls.root = root if root is not None and root.is_dir() else Path.cwd()
    settings, said = Settings.read(params.initialization_options, ls.root)
    ls.settings = settings
    ls.start_session(settings)
    for line in said:
        ls.log(f"anchor-audit: {line}")


def _initialized(ls: AuditServer, params: types.InitializedParams) -> None:
    watch = ls.client_capabilities.workspace
    if watch and watch.did_change_watched_files and watch.did_change_watched_files.dynamic_registration:
        glob = types.FileSystemWatcher(glob_pattern="**/*")
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=[glob])
        registration = types.Registration("anchor-audit-files", types.WORKSPACE_DID_CHANGE_WATCHED_FILES, options)
        ls.client_register_capability(types.RegistrationParams([registration]))


def _did_open(ls: AuditServer, params: types.DidOpenTextDocumentParams) -> None:
    _edited(ls, params.text_document.uri, saved=False)


def _did_change(ls: AuditServer, params: types.DidChangeTextDocumentParams) -> None:
    _edited(ls, params.text_document.uri, saved=False)


def _did_save(ls: AuditServer, params: types.DidSaveTextDocumentParams) -> None:
    _edited(ls, params.text_document.uri, saved=True)


def _did_close(ls: AuditServer, params: types.DidCloseTextDocumentParams) -> None:
    path = features.path_of(params.text_document.uri)
    if path is not None and path.name == REGISTRY:
        ls.worker.submit(ls._registry_changed, None)
        ls.schedule(set(ls.results))


def _watched(ls: AuditServer, params: types.DidChangeWatchedFilesParams) -> None:
    paths = [p for change in params.changes if (p := features.path_of(change.uri)) is not None]
    paths = [p for p in paths if ".git" not in p.parts]  # git's own files: a commit, a fetch
    _code_saved(ls, [p for p in paths if skill_folder(p) is None and p.name != REGISTRY])


def _configuration(ls: AuditServer, params: types.DidChangeConfigurationParams) -> None:
    settings, said = Settings.read(params.settings, ls.root)
    for line in said:
        ls.log(f"anchor-audit: {line}")
    ls.settings = settings
    ls.start_session(settings)
    ls.schedule(ls.open_folders() | set(ls.results))


async def _hover(ls: AuditServer, params: types.HoverParams) -> types.Hover | None:
    path = features.path_of(params.text_document.uri)
    folder = skill_folder(path) if path is not None else None
    if path is None or folder is None:
        return None
    line = params.position.line
    texts = ls.texts()
    return await ls.on_worker(
        lambda: _on_result(ls, folder, texts, lambda c, s: features.hover(c, path, line, s))
    )


async def _code_action(ls: AuditServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    path = features.path_of(params.text_document.uri)
    folder = skill_folder(path) if path is not None else None
    if path is None or folder is None:
        return None
    texts, first, last = ls.texts(), params.range.start.line, params.range.end.line
    found = await ls.on_worker(
        lambda: _on_result(ls, folder, texts, lambda c, s: features.code_actions(c, path, first, last, texts, s))
    )
    return found or None


def _shutdown(ls: AuditServer, params: Any = None) -> None:
    """Answered at once: the checks still queued do nothing, and the store is closed on the thread that opened it
    once a check running now is done (waited for a moment only; ``exit`` ends the process even if it is not)."""
    ls.wanted.clear()
    closing = ls.worker.submit(ls._closing.close)
    ls.worker.shutdown(wait=False, cancel_futures=True)
    with contextlib.suppress(Exception):
        closing.result(timeout=SHUTDOWN_WAIT)


def _on_result(
    ls: AuditServer, folder: Path, texts: dict[Path, str], answer: Callable[[SkillCheck, Session], T | None]
) -> T | None:
    """``answer`` of the skill's latest check (made now if it has none yet), on the worker."""
    folder = folder.resolve()
    if folder not in ls.results and ls.session is not None:
        ls.wanted[folder] = number = next(ls._count)
        ls._check(folder, number, texts)
    check = ls.results.get(folder)
    if check is None or ls.session is None:
        return None
    return answer(check, ls.session)


def _edited(ls: AuditServer, uri: str, saved: bool) -> None:
    path = features.path_of(uri)
    if path is None:
        return
    path = path.resolve()
    if path.name in SKILL_FILES:
        ls.schedule({path.parent})
    elif path.name == REGISTRY:
        ls.worker.submit(ls._registry_changed, ls.texts().get(path))
        ls.schedule(ls.open_folders() | set(ls.results))
    elif ls.session is not None and ls.session.baseline_path == path and saved:
        ls.worker.submit(ls.session.baseline_changed)
        ls.schedule(set(ls.results))
    elif saved:
        _code_saved(ls, [path])


def _code_saved(ls: AuditServer, paths: list[Path]) -> None:
    """A file of the code saved: the skills that read it checked again, against the working tree as it is now."""
    if not paths:
        return
    texts = ls.texts()

    def again() -> None:
        folders = ls._code_changed(paths, texts)
        if ls.loop is not None and folders:
            ls.loop.call_soon_threadsafe(ls.schedule, folders)

    ls.worker.submit(again)


_CODE_ACTIONS = types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll]
)
_FEATURES: list[tuple[str, Any, Callable[..., Any]]] = [
    (types.INITIALIZE, None, _initialize),
    (types.INITIALIZED, None, _initialized),
    (types.TEXT_DOCUMENT_DID_OPEN, None, _did_open),
    (types.TEXT_DOCUMENT_DID_CHANGE, None, _did_change),
    (types.TEXT_DOCUMENT_DID_SAVE, None, _did_save),
    (types.TEXT_DOCUMENT_DID_CLOSE, None, _did_close),
    (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, None, _watched),
    (types.WORKSPACE_DID_CHANGE_CONFIGURATION, None, _configuration),
    (types.TEXT_DOCUMENT_HOVER, None, _hover),
    (types.TEXT_DOCUMENT_CODE_ACTION, _CODE_ACTIONS, _code_action),
    (types.SHUTDOWN, None, _shutdown),
]
