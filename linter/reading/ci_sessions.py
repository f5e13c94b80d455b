"""The shell sessions of CI definitions other than GitHub Actions', read for the `helm
install` commands they run (chart_installers.py), as a workflow's `run` steps are:

- CircleCI's `.circleci/config.yml`: each `run` step of its `jobs` and of its reusable
  `commands` (`run: COMMAND`, or `run: {command: COMMAND, working_directory: DIR}`), a
  shell of its own. A job runs in its `working_directory` (CircleCI's default `~/project`),
  where its `checkout` step puts the repository, so a step starts at the repository's top
  (or at its own `working_directory` under it); a job whose `checkout` names another
  `path` is not read. The job's folder as the script may write it (`~/project`,
  `$HOME/project`, `${HOME}/project`, the job's own literal `working_directory`, and
  `$CIRCLE_WORKING_DIRECTORY`, which CircleCI sets to it) is read as the repository's top
  (`pushd $HOME/project/charts`).
- GitLab's `.gitlab-ci.yml`: each job's `before_script` and `script` (GitLab runs them in
  one shell), from the repository's top, where a job starts (`$CI_PROJECT_DIR`, which
  GitLab sets to it, read as the top).

CircleCI's and GitLab's own expressions (`<< parameters.tag >>`, `!reference`) are not
read: a word holding one is not literal, and refuses what it is in. Bounded by the file's
size (chart_installers.MAX_FILE_BYTES) and the YAML composer's limits."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

from k8slb.reading.build_files import gitlab_job_shell, step_line, yaml_documents
from k8slb.reading.repository import inside

CIRCLECI = (".circleci", ("config.yml", "config.yaml"))  # its folder at the top, its files
GITLAB = (".gitlab-ci.yml", ".gitlab-ci.yaml")  # at the top
_CIRCLECI_HOME = "~/project"  # a job's working_directory, unless it says
_CIRCLECI_FOLDER = ("CIRCLE_WORKING_DIRECTORY",)  # variables CircleCI sets to it
_GITLAB_FOLDER = ("CI_PROJECT_DIR",)  # GitLab's, to where the job starts

# A session: its first line in the file, its text (one line of the file a line), and the
# folders it may start in.
Session = tuple[int, str, list[str], bool]


def is_ci_file(folder: str, name: str, top: str) -> bool:
    """Whether a file of the walk is a CircleCI or GitLab definition this module reads."""
    if folder == top:
        return name in GITLAB
    return (
        os.path.dirname(folder) == top
        and os.path.basename(folder) == CIRCLECI[0]
        and (name in CIRCLECI[1])
    )


def ci_sessions(path: str, text: str, top: str) -> Iterator[Session]:
    """The shell sessions of a CircleCI or GitLab file at the repository's `top`."""
    if os.path.basename(path) in GITLAB:
        yield from _gitlab_sessions(path, text, top)
    else:
        yield from _circleci_sessions(path, text, top)


def _circleci_sessions(path: str, text: str, top: str) -> Iterator[Session]:
    for document in yaml_documents(path, text):
        if not isinstance(document, dict):
            continue
        for section in ("jobs", "commands"):
            listed = document.get(section)
            for job in listed.values() if isinstance(listed, dict) else []:
                steps = job.get("steps") if isinstance(job, dict) else None
                if not isinstance(steps, list) or _checked_out_apart(steps):
                    continue
                # (a reusable command runs in the working_directory of the job using it)
                given = job.get("working_directory") if section == "jobs" else None
                home = given if isinstance(given, str) else _CIRCLECI_HOME
                forms = [*_home_forms(home), *_variable_forms(_CIRCLECI_FOLDER)]
                if section == "commands":
                    forms = _variable_forms(_CIRCLECI_FOLDER)
                for step in steps:
                    made = _circleci_step(step, top, forms)
                    if made is not None:
                        yield made


def _circleci_step(step: object, top: str, forms: Sequence[str]) -> Session | None:
    """A run step's session, from the job's folder (the top) or the step's own."""
    run = step.get("run") if isinstance(step, dict) else None
    folder: str | None = "."
    if isinstance(run, str):
        script, at = run, step_line(step, "run")
    elif isinstance(run, dict) and isinstance(run.get("command"), str):
        script, at = run["command"], step_line(run, "command")
        given = run.get("working_directory", ".")
        folder = _in_top(given, top, forms) if isinstance(given, str) else None
    else:
        return None
    if folder is None:
        return None
    first = at + (1 if "\n" in script.rstrip("\n") else 0)
    return first, _placed(script, forms, top), [os.path.normpath(os.path.join(top, folder))], False


def _checked_out_apart(steps: list[Any]) -> bool:
    """Whether a job's `checkout` puts the repository in a `path` of its own."""
    return any(
        isinstance(step, dict)
        and isinstance(step.get("checkout"), dict)
        and "path" in step["checkout"]
        for step in steps
    )


def _in_top(given: str, top: str, forms: Sequence[str]) -> str | None:
    """A step's working_directory as a folder under the top (relative to the job's
    folder, or written as it); None when it is not literal or not in the repository."""
    folder = os.path.normpath(os.path.join(top, _placed(given, forms, top)))
    if "$" in folder or "<<" in folder or not inside(folder, top):
        return None
    return os.path.relpath(folder, top)


def _home_forms(home: str) -> list[str]:
    """How a script may write the job's folder: as the config does, and `~` as
    `$HOME`."""
    if "$" in home or "<<" in home:
        return []
    forms = [home.rstrip("/")]
    if home.startswith("~/"):
        forms += [f"$HOME/{home[2:]}", f"${{HOME}}/{home[2:]}"]
    return [form for form in forms if form]


def _variable_forms(names: Sequence[str]) -> list[str]:
    return [form for name in names for form in (f"${{{name}}}", f"${name}")]


_AFTER = frozenset({"/", " ", "\t", "\n", '"', "'", ";", ")", "&", "|"})


def _placed(script: str, forms: Sequence[str], top: str) -> str:
    """The script with each of the forms of the job's folder (a whole path's start:
    followed by `/`, a space, a quote, the end) written as the repository's top."""
    for form in forms:
        if form not in script:
            continue
        parts, at = [], 0
        found = script.find(form)
        while found >= 0:
            end = found + len(form)
            if end == len(script) or script[end] in _AFTER:
                parts += [script[at:found], top]
                at = end
            found = script.find(form, end)
        script = "".join(parts) + script[at:]
    return script


def _gitlab_sessions(path: str, text: str, top: str) -> Iterator[Session]:
    """Each job's `before_script` and `script`, one shell, from the top
    (build_files.gitlab_job_shell)."""
    forms = _variable_forms(_GITLAB_FOLDER)
    for document in yaml_documents(path, text):
        for job in document.values() if isinstance(document, dict) else []:
            shell = gitlab_job_shell(job)
            if shell is not None:
                first, lines = shell
                yield first, _placed("\n".join(lines) + "\n", forms, top), [top], False
