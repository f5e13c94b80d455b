#!/usr/bin/env bash
# The steps of action.yml: install k8slb[helm] at the action's ref in an environment of its
# own (the job's Python stays as it was), write SARIF if asked, add a job summary, then
# annotate the diff (the job fails on findings at or above --fail-on, and on exit 2).
# Every interpreter runs isolated (-I): the working folder is the checked-out repository,
# which -m and -c would otherwise put first on the module path, so a `shlex.py`, `pip/`
# or `k8slb/` a pull request commits would run on the runner.
set -euo pipefail
if [ -z "${K8SLB_SKIP_INSTALL:-}" ]; then  # the test-suite runs the steps with its own k8slb
  environment="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/k8slb-action"
  "${K8SLB_PYTHON:-python3}" -I -m venv "$environment"
  "$environment/bin/python" -I -m pip install --disable-pip-version-check --quiet \
    "${GITHUB_ACTION_PATH:?}[helm]"
  python="$environment/bin/python"
else
  python="${K8SLB_PYTHON:-python3}"
fi
# inputs split as a shell would, quotes kept: --select "KLB1, KLB2" is one argument
split() {
  "$python" -I -c 'import os, shlex, sys
sys.stdout.write("".join(word + "\0" for word in shlex.split(os.environ.get(sys.argv[1], ""))))' "$1"
}
mapfile -d '' -t paths < <(split K8SLB_PATHS)
mapfile -d '' -t args < <(split K8SLB_ARGS)
if [ "${#paths[@]}" -eq 0 ]; then paths=(.); fi
k8slb() { "$python" -I -m k8slb "$@"; }
if [ -n "${K8SLB_SARIF:-}" ]; then
  k8slb check --format sarif --output-file "$K8SLB_SARIF" --exit-zero "${args[@]}" "${paths[@]}"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then  # the summary never decides the job: the last step does
  k8slb check --format markdown --exit-zero "${args[@]}" "${paths[@]}" >> "$GITHUB_STEP_SUMMARY" || true
fi
k8slb check --format github "${args[@]}" "${paths[@]}"
