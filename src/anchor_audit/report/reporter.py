"""What a command tells the user besides its report: warnings, notes and progress, all on stderr."""

from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING, TextIO

from ..source import Progress, no_progress
from ..text.escape import one_line

if TYPE_CHECKING:
    from rich.status import Status


class Reporter:
    """One line per message, ``anchor-audit: ...``, escaped and with credentials redacted.

    Progress shows on a terminal only (never in a CI log), and not with ``quiet``.
    """

    def __init__(self, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.said = 0  # messages written: a run that said something is not remembered (runs/remembered.py)

    def say(self, message: str) -> None:
        self.said += 1
        try:
            print(f"anchor-audit: {one_line(message)}", file=self.stream)
        except OSError:
            pass  # the stream itself is gone: the exit code still tells

    def warn(self, message: str) -> None:
        self.say(f"warning: {message}")

    def progress(self) -> Progress:
        """A progress sink: a rich status line on a terminal, else nothing."""
        if self.quiet or not (hasattr(self.stream, "isatty") and self.stream.isatty()):
            return no_progress
        from rich.console import Console
        from rich.text import Text  # plain text: a folder named "[link=...]" is never rich markup

        console = Console(file=self.stream, no_color="NO_COLOR" in os.environ)
        shown: list[Status] = []
        lock = threading.Lock()  # repositories fetched side by side report from their threads

        def show(message: str, fraction: float | None) -> None:
            with lock:
                _show(message, fraction)

        def _show(message: str, fraction: float | None) -> None:
            text = one_line(message)
            if message and fraction is not None and 0 < fraction < 1:  # a bar with the count the message gives
                done = round(fraction * 20)
                text += f"  [{'#' * done}{'-' * (20 - done)}] {fraction:.0%}"
            if shown and message:
                shown[0].update(Text(text))  # one line that changes, not one per step
                return
            while shown:
                shown.pop().stop()
            if message:
                status = console.status(Text(text))
                status.start()
                shown.append(status)

        return show
