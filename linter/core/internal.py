"""Internal errors: a bug of k8slb's is said to be one (exit 2), never passed off as
findings, and never stops the other files from being linted."""

from __future__ import annotations

import os

DEBUG_ENV = "K8SLB_DEBUG"  # set (or --verbose): each internal error comes with its traceback


def debugging() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def internal_error(doing: str, error: BaseException) -> str:
    """One line for the user ("internal error while parsing x.yaml (...)"); the traceback
    follows only when debugging. Call it in the `except` block that caught `error`."""
    line = f"internal error while {doing} ({type(error).__name__}: {error}); please report it"
    if debugging():
        import traceback

        line += "\n" + "".join(traceback.format_exception(error)).rstrip("\n")
    else:
        line += f" (set {DEBUG_ENV}=1 for the traceback)"
    return line
