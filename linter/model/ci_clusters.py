"""Manifests a CI system keeps in its own folder for a cluster its job makes and throws
away: `.circleci/resources/redis.yaml` that `.circleci/config.yml` applies with
`kubectl apply -f` after `minikube start`. Such a cluster runs the job's pods once, one
set of them, and goes with the job: no rollout, eviction, node drain or scale-down stops a
pod there while another serves, so what the readiness and shutdown rules (KLB3xx, KLB4xx)
guard against does not happen. Their findings on such a file are kept, at info, with that
reason first; every other rule's (a file's shape: KLB0xx) stays as it is.

The evidence is the CI configuration's own: the file is in a CI system's folder
(`.circleci/`, `.github/`, `.gitlab/`, `.buildkite/`), and one configuration file of the
run (`.circleci/config.yml`, a GitHub workflow, `.gitlab-ci.yml`, `.buildkite/pipeline.yml`)
both makes a local cluster, in the words its tool documents (`minikube start`, `kind create
cluster`, `k3d cluster create`, or a GitHub action that runs them: helm/kind-action,
medyagh/setup-minikube, AbsaOSS/k3d-action...), and applies the file (`kubectl
apply|create|replace -f`, by its last names: reading/applied_manifests.py; the facts are
BuildFacts.ci_clusters). A configuration that applies it with no such cluster (a deploy
job) leaves it as any other file; so does one this run did not read (a file named alone)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Mapping, Sequence

from k8slb.core.findings import Finding, Severity
from k8slb.core.paths import path_parts
from k8slb.reading.applied_manifests import (
    MAX_APPLIED_DEPTH,
    applied_tails,
    in_ci_folder,
    naming_tails,
    path_names,
)
from k8slb.reading.manifests import ManifestFile

# The rules of readiness and shutdown: what a rollout or a stop while others serve costs
ROLLOUT_RULES = ("KLB3", "KLB4")


def files_in_ci_clusters(
    clusters: Sequence[tuple[str, str, tuple[str, ...]]],
    manifests: Sequence[ManifestFile],
    rendered: Collection[str],
) -> dict[str, str]:
    """Each manifest file (normalised) of a CI system's folder that a CI configuration
    applies to a cluster it makes on the CI machine (`clusters`: each configuration's path,
    the command that makes it, the paths it applies), with why its readiness and shutdown
    findings are said at info."""
    if not clusters:
        return {}
    files = [
        os.path.normpath(m.path)
        for m in manifests
        if m.objects and m.path not in rendered and in_ci_folder(m.path)
    ]
    # (is_applied takes a file past that depth as applied: here, that would be a guess)
    files = [f for f in files if len(path_parts(f)) <= MAX_APPLIED_DEPTH]
    # each applied name once, with the first configuration that applies it (not every
    # file tested against every configuration: thousands of workflows and files)
    first_own: dict[str, int] = {}
    first_tree: dict[str, int] = {}
    for at, (_, _, applied) in enumerate(clusters):
        own, tree = applied_tails(applied)
        for name in own:
            first_own.setdefault(name, at)
        for name in tree:
            first_tree.setdefault(name, at)
    found: dict[str, str] = {}
    for path in files:
        own_names, tree_names = naming_tails(path_names(path))
        ats = [first_own[n] for n in own_names if n in first_own]
        ats += [first_tree[n] for n in tree_names if n in first_tree]
        if ats:
            config, command, _ = clusters[min(ats)]
            found[path] = (
                f"applied by {config} to the cluster it makes on the CI machine "
                f"(`{command}`), which runs its pods once and goes with the job: no "
                "rollout or stop while others serve, so this is said at info"
            )
    return found


def rollouts_at_info(findings: list[Finding], files: Mapping[str, str]) -> list[Finding]:
    """The findings, those of the readiness and shutdown rules (ROLLOUT_RULES) in a file
    of a CI job's cluster (files_in_ci_clusters) at info, with the reason first."""
    if not files:
        return findings
    return [
        dataclasses.replace(f, severity=Severity.INFO, detail=(why, *f.detail))
        if f.severity > Severity.INFO
        and f.rule.startswith(ROLLOUT_RULES)
        and (why := files.get(os.path.normpath(f.path)))
        else f
        for f in findings
    ]
