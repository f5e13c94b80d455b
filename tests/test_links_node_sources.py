"""A folder inside a Node package's sources (`console/src/views/billing`, below
`console/package.json`) is a part of that package's program, which its bundler builds
whole: never a service's folder by its name, whatever image is named as it is."""

from __future__ import annotations

from pathlib import Path

from tests.test_links import links, only, workload

CONSOLE = {
    "console/package.json": '{"name": "console", "scripts": {"build": "vue-cli-service build"}}\n',
    "console/src/main.js": "import App from './App.vue'\nexport default App\n",
    "console/src/views/billing/index.js": "export const page = 'billing'\n",
    "console/src/views/billing/api.js": "export const fetchBills = () => fetch('/api/bills')\n",
}


def test_an_image_named_as_a_page_of_a_node_app_links_no_code(tmp_path: Path) -> None:
    """`acme/billing:2` runs a JVM service built by a step k8slb does not read; the one
    folder named `billing` is a page of the console's Vue sources: no link, not a wrong one."""
    files = {"deploy/billing.yaml": workload(name="billing", image="acme/billing:2"), **CONSOLE}
    row = only(links(tmp_path, files))
    assert row["code"] is None


def test_a_node_package_named_as_the_image_is_still_its_code(tmp_path: Path) -> None:
    """A folder of the sources that is a package of its own (its own package.json) is a
    program: the image named as it links to it, as before."""
    files = {
        "deploy/billing.yaml": workload(name="billing", image="acme/billing:2"),
        **CONSOLE,
        "console/src/views/billing/package.json": '{"name": "billing", "main": "index.js"}\n',
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "console/src/views/billing"


def test_a_node_folder_outside_a_package_s_sources_is_still_named(tmp_path: Path) -> None:
    """A folder of the package that is not under its `src/` (a workspace's app beside
    the root package.json) is named by the image as before."""
    files = {
        "deploy/billing.yaml": workload(name="billing", image="acme/billing:2"),
        "package.json": '{"name": "monorepo", "private": true}\n',
        "apps/billing/main.js": "require('http').createServer().listen(8080)\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "apps/billing"
