"""One module per command (or family of commands); ``cli.py`` parses arguments and dispatches here."""

from .check import cmd_check
from .fix import cmd_fix
from .maintenance import cmd_cache, cmd_init
from .versions import cmd_bump, cmd_diff, cmd_history

__all__ = ["cmd_bump", "cmd_cache", "cmd_check", "cmd_diff", "cmd_fix", "cmd_history", "cmd_init"]
