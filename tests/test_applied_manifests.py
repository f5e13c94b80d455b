"""The manifest paths scripts, workflows, guides, Tiltfiles and Skaffold apply
(reading/applied_manifests.py), and which files they name."""

from __future__ import annotations

import sys

from k8slb.reading.applied_manifests import (
    MAX_APPLIED,
    applied_manifests,
    applied_tails,
    is_applied,
)

from .helpers import within_cpu


def test_kubectl_apply_create_replace_paths_are_kept_literal_ones_only() -> None:
    text = (
        b"kubectl apply -f k8s/a.yaml -f=k8s/b.yaml --filename 'k8s/c/'\n"
        b"kubectl create -n x -f $FILE && kubectl replace -f https://x/y.yaml\n"
        b"cat <<EOF | kubectl apply -f -\n"
        b"kubectl delete -f k8s/gone.yaml\n"
        b"kubectl apply -R -f k8s/tree\n"
    )
    assert applied_manifests(text, yaml_paths=False) == (
        "k8s/a.yaml",
        "k8s/b.yaml",
        "k8s/c/",
        "k8s/tree/**",
    )


def test_only_a_tiltfile_or_skaffold_has_its_yaml_paths_kept() -> None:
    text = b"k8s_yaml(['deploy/app.yaml', 'deploy/db.yml'])\n"
    assert applied_manifests(text, yaml_paths=True) == ("deploy/app.yaml", "deploy/db.yml")
    assert applied_manifests(text, yaml_paths=False) == ()


def test_paths_kept_a_file_are_bounded() -> None:
    text = "".join(f"kubectl apply -f k8s/{n}.yaml\n" for n in range(MAX_APPLIED * 2))
    assert len(applied_manifests(text.encode(), yaml_paths=False)) == MAX_APPLIED


def test_a_path_names_a_file_its_folder_or_with_recursion_a_folder_above() -> None:
    tails = applied_tails(["./deploy/app.yaml", "../ops/", "k8s/*.yaml", "charts/**"])
    assert is_applied("repo/deploy/app.yaml", tails)
    assert is_applied("ops/job.yaml", tails)  # the folder's own file
    assert not is_applied("ops/old/job.yaml", tails)  # not without -R
    assert is_applied("k8s/svc.yaml", tails)
    assert not is_applied("k8s/base/svc.yaml", tails)
    assert is_applied("charts/x/templates/a.yaml", tails)
    assert not is_applied("deploy/other.yaml", tails)


def test_a_file_two_thousand_folders_deep_is_applied_at_once() -> None:
    """A path 2,000 folders deep against applied trees: its runs of folders are not all
    joined (cubic, 12.8 s a file); past MAX_APPLIED_DEPTH it counts as applied, so never
    said left out on a guess."""
    script = (
        "from k8slb.reading.applied_manifests import applied_tails, is_applied; "
        "tails = applied_tails(['q/**'] * 5000 + ['b/c.yaml'] * 5000); "
        "print(is_applied('/'.join(['a'] * 2000) + '/x.yaml', tails))"
    )
    done = within_cpu([sys.executable, "-c", script], cpu_seconds=5)
    assert done.stdout.strip() == "True", done.stderr
