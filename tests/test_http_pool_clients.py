"""KLB202's pools past the plain HTTP clients: search clients' node pools (Python), a
module's own reader of the environment that names the Service, and Go's clones of
http.DefaultTransport."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from k8slb.code.facts import EnvRef
from k8slb.core.findings import Severity
from k8slb.languages.go.parse import analyse_go
from k8slb.languages.python.parse import analyse

from tests.helpers import lint_files

CATALOG = (
    "apiVersion: v1\nkind: Service\nmetadata: {name: catalog, namespace: shop}\n"
    "spec:\n  selector: {app: catalog}\n  ports: [{port: 9200}]\n"
)


def deployment_env(name: str, value: str) -> str:
    return (
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
        "spec:\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n"
        "      containers:\n        - name: web\n          env:\n"
        f'            - {{name: {name}, value: "{value}"}}\n'
    )


def python(source: str) -> str:
    return textwrap.dedent(source).lstrip()


SEARCH = python(
    """
    from elasticsearch import Elasticsearch

    one = Elasticsearch("http://catalog.shop:9200")
    listed = Elasticsearch(hosts=["http://catalog.shop:9200"])
    several = Elasticsearch(["http://catalog-0.shop:9200", "http://catalog-1.shop:9200"])
    sniffing = Elasticsearch("http://catalog.shop:9200", sniff_on_start=True)
    not_sniffing = Elasticsearch("http://catalog.shop:9200", sniff_on_start=False)
    spread = Elasticsearch("http://catalog.shop:9200", **OPTIONS)
    local = Elasticsearch()


    def search(query):
        with_helper = Elasticsearch("http://catalog.shop:9200")
        return with_helper.search(q=query)
    """
)


def test_a_search_client_is_a_pool_of_the_one_address_it_is_given() -> None:
    found = analyse("svc/search.py", SEARCH.encode()).http_clients
    assert [(c.loc.line, c.long_lived, c.base_url) for c in found] == [
        (3, True, "http://catalog.shop:9200"),
        (4, True, "http://catalog.shop:9200"),
        (7, True, "http://catalog.shop:9200"),  # sniff_on_start=False: no sniffing
        (13, False, "http://catalog.shop:9200"),  # made per call
    ]


def test_a_search_client_of_a_service_is_klb202_with_the_sniffing_advice(
    tmp_path: Path,
) -> None:
    files = {"k8s.yaml": CATALOG, "svc/search.py": SEARCH}
    findings = lint_files(tmp_path, files, ["KLB202"]).findings
    assert [f.line for f in findings] == [3, 4, 7]
    assert "sniff_on_start=True" in findings[0].text
    assert "'http://catalog.shop:9200'" in findings[0].text


@pytest.mark.parametrize(
    "key",
    ['"APP_%s" % name', '"APP_" + name', 'f"APP_{name}"'],
)
def test_a_modules_own_environment_reader_reads_the_prefixed_variable(key: str) -> None:
    source = python(
        f"""
        import os
        import requests


        def env(name, default=None):
            value = os.environ.get({key})
            if value is not None:
                return str(value)
            if default is not None:
                return str(default)


        URL = env("SEARCH_URL", "http://localhost:9200")
        TIMEOUT = env(name="TIMEOUT")
        """
    )
    exports = analyse("svc/settings.py", source.encode()).exports
    assert exports["URL"] == EnvRef("APP_SEARCH_URL", "http://localhost:9200")
    assert exports["TIMEOUT"] == EnvRef("APP_TIMEOUT", None)


@pytest.mark.parametrize(
    "body",
    [
        "return os.environ.get(name, default).strip()",  # it changes what it read
        "value = os.environ.get(name)\n    value = value or default\n    return value",
        "return os.environ.get(name) or os.environ.get('OLD_' + name)",  # two reads
        "return os.environ.get(name.upper(), default)",  # a name made otherwise
    ],
)
def test_a_function_that_does_more_than_read_the_environment_is_no_reader(body: str) -> None:
    source = f"import os\nimport requests\n\ndef env(name, default=None):\n    {body}\n\n"
    source += 'URL = env("SEARCH_URL", "http://localhost:9200")\n'
    assert "URL" not in analyse("svc/settings.py", source.encode()).exports


def test_the_service_a_deployment_names_through_an_environment_reader_is_klb202(
    tmp_path: Path,
) -> None:
    settings = python(
        """
        import os


        def env(name, default=None):
            return os.environ.get("APP_%s" % name, default)


        SEARCH_URL = env("SEARCH_URL", "http://localhost:9200")
        """
    )
    client = python(
        """
        from elasticsearch import Elasticsearch

        from svc import settings


        def get_es():
            if not hasattr(settings, "_es"):
                settings._es = Elasticsearch(settings.SEARCH_URL)
            return settings._es
        """
    )
    files = {
        "k8s.yaml": CATALOG + deployment_env("APP_SEARCH_URL", "http://catalog.shop:9200"),
        "svc/__init__.py": "",
        "svc/settings.py": settings,
        "svc/core.py": client,
    }
    [finding] = lint_files(tmp_path, files, ["KLB202"]).findings
    assert finding.path.endswith("svc/core.py") and finding.line == 8
    # left to its default, the client talks to localhost: nothing to say
    files["k8s.yaml"] = CATALOG + deployment_env("OTHER", "x")
    assert lint_files(tmp_path / "b", files, ["KLB202"]).findings == []


GO_CLONES = """package main

import (
	"net/http"
	"time"
)

var shared = http.DefaultTransport.(*http.Transport).Clone()

type Forwarder struct{ rt http.RoundTripper }

func NewForwarder() *Forwarder {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 100
	return &Forwarder{rt: t}
}

func NewClosing() *Forwarder {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	return &Forwarder{rt: t}
}

func fetch(url string) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = time.Second
	client := &http.Client{Transport: t}
	client.Get(url)
}

func main() {
	client := &http.Client{Transport: shared}
	client.Get("http://catalog.shop.svc.cluster.local:9200/items")
	fetch("http://catalog.shop.svc.cluster.local:9200/other")
}
"""


def test_a_kept_clone_of_the_default_transport_is_a_pool() -> None:
    found = analyse_go("svc/main.go", GO_CLONES.encode()).http_clients
    assert [(c.loc.line, c.factory, c.reuse_disabled) for c in found] == [
        (8, "http.Transport", False),  # a package variable
        (13, "http.Transport", False),  # a constructor's struct keeps it
        (19, "http.Transport", True),  # DisableKeepAlives = true
    ]  # fetch's, made per call and dropped, keeps no pool


def test_a_kept_clone_of_the_default_transport_to_a_service_is_klb202(tmp_path: Path) -> None:
    findings = lint_files(tmp_path, {"svc/main.go": GO_CLONES}, ["KLB202"]).findings
    assert [(f.line, f.severity) for f in findings] == [(8, Severity.INFO), (13, Severity.INFO)]


def test_a_clone_with_no_url_of_the_cluster_in_its_module_is_not_reported(
    tmp_path: Path,
) -> None:
    """A proxy that picks its backend per request (from a routing table, a custom
    resource) names no Service k8slb can tie its pool to: nothing is said."""
    source = GO_CLONES.replace("http://catalog.shop.svc.cluster.local:9200", "http://example.com")
    assert lint_files(tmp_path, {"svc/main.go": source}, ["KLB202"]).findings == []
