"""A small Language Server Protocol client for the tests: ``anchor-audit lsp`` as a subprocess, JSON-RPC on its stdio.

Every byte the server writes to stdout must be a framed message (``Content-Length`` header, JSON body): anything
else is recorded in ``garbage`` and fails the test that checks it.  Requests the server sends (capability
registration) are answered with null, as a plain editor would.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable


class LspClient:
    def __init__(self, cwd: Path, env: dict[str, str] | None = None, command: list[str] | None = None) -> None:
        command = command or [sys.executable, "-m", "anchor_audit", "lsp"]
        self.process = subprocess.Popen(
            command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )  # fmt: skip
        self.garbage: list[bytes] = []
        self.notifications: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []  # every notification, in order
        self.server_requests: list[dict[str, Any]] = []
        self._responses: dict[int, dict[str, Any]] = {}
        self._arrived = threading.Condition()
        self._next = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # ---------------------------------------------------------------- the wire

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            header = stream.readline()
            if not header:
                return
            if not header.startswith(b"Content-Length:"):
                self.garbage.append(header)
                continue
            length = int(header.split(b":", 1)[1])
            while (line := stream.readline()) not in (b"\r\n", b""):
                if not line.lower().startswith(b"content-type:"):
                    self.garbage.append(line)
            message = json.loads(stream.read(length))
            if "id" in message and "method" in message:  # a request of the server's
                self.server_requests.append(message)
                self._send({"id": message["id"], "result": None})
            elif "id" in message:
                with self._arrived:
                    self._responses[message["id"]] = message
                    self._arrived.notify_all()
            else:
                self.seen.append(message)
                self.notifications.put(message)

    # ---------------------------------------------------------------- what a test says

    def request(self, method: str, params: Any, timeout: float = 60) -> Any:
        self._next += 1
        number = self._next
        self._send({"id": number, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        with self._arrived:
            while number not in self._responses:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no answer to {method} in {timeout} s; stderr: {self.stderr_so_far()}")
                self._arrived.wait(left)
        answer = self._responses.pop(number)
        if "error" in answer:
            raise AssertionError(f"{method} failed: {answer['error']}")
        return answer.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def wait_for(self, method: str, where: Callable[[dict[str, Any]], bool] = lambda p: True,
                 timeout: float = 60) -> dict[str, Any]:  # fmt: skip
        """The params of the next notification ``method`` that ``where`` accepts (earlier ones are dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {method} in {timeout} s; stderr: {self.stderr_so_far()}")
            try:
                message = self.notifications.get(timeout=left)
            except queue.Empty:
                continue
            if message.get("method") == method and where(message["params"]):
                return message["params"]

    def diagnostics(self, path: Path, where: Callable[[list[dict[str, Any]]], bool] = lambda d: True,
                    timeout: float = 60) -> list[dict[str, Any]]:  # fmt: skip
        uri = path.resolve().as_uri()
        found = self.wait_for("textDocument/publishDiagnostics",
                              lambda p: p["uri"] == uri and where(p["diagnostics"]), timeout)  # fmt: skip
        return found["diagnostics"]

    def initialize(self, root: Path, options: Any = None) -> dict[str, Any]:
        result = self.request("initialize", {
            "processId": os.getpid(), "rootUri": root.resolve().as_uri(), "initializationOptions": options,
            "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}},
                             "textDocument": {"publishDiagnostics": {}}},
        })  # fmt: skip
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str | None = None, language: str = "markdown") -> str:
        text = path.read_text(encoding="utf-8") if text is None else text
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.resolve().as_uri(), "languageId": language, "version": 1, "text": text}})  # fmt: skip
        return text

    def change(self, path: Path, text: str, version: int) -> None:
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": path.resolve().as_uri(), "version": version}, "contentChanges": [{"text": text}]})

    def save(self, path: Path) -> None:
        self.notify("textDocument/didSave", {"textDocument": {"uri": path.resolve().as_uri()}})

    def stderr_so_far(self) -> str:
        return "(see the test's captured output)" if self.process.poll() is None else self.stop()

    def stop(self) -> str:
        """Shut the server down as a client does (shutdown, exit); its stderr."""
        if self.process.poll() is None:
            try:
                self.request("shutdown", None, timeout=20)
                self.notify("exit", None)
            except (TimeoutError, OSError, AssertionError):
                pass
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode("utf-8", "replace")


def apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """``text`` with the protocol's TextEdits applied (positions in UTF-16 units; the tests' texts are ASCII)."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def at(position: dict[str, int]) -> int:
        return min(offsets[position["line"]] + position["character"], len(text)) if position["line"] < len(lines) \
            else len(text)  # fmt: skip

    for edit in sorted(edits, key=lambda e: at(e["range"]["start"]), reverse=True):
        start, end = at(edit["range"]["start"]), at(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text
