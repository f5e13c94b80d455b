#!/usr/bin/env bash
# The steps of action.yml: install k8slb at the action's ref, write SARIF if asked, then
# annotate the diff (the job fails on findings at or above --fail-on, and on exit 2).
set -euo pipefail
if [ -z "${K8SLB_SKIP_INSTALL:-}" ]; then  # the test-suite runs the steps with its own k8slb
  python -m pip install --disable-pip-version-check --quiet "${GITHUB_ACTION_PATH:?}"
fi
read -r -a paths <<< "${K8SLB_PATHS:-.}"
read -r -a args <<< "${K8SLB_ARGS:-}"
if [ -n "${K8SLB_SARIF:-}" ]; then
  k8slb check --format sarif --output-file "$K8SLB_SARIF" --exit-zero "${args[@]}" "${paths[@]}"
fi
k8slb check --format github "${args[@]}" "${paths[@]}"
