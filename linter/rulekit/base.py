"""What every rule is made of.

A rule is a class in its own module: id, name, severity, a docstring in sections (the source
of `k8slb explain` and of the docs), examples that the test-suite runs, and `check`, which
reads the model and yields findings. Rules are pure: no file is read, nothing is parsed.

A rule loops over its subjects through the context (`services()`, `workloads()`,
`serving_containers()`, `judged_code()`, `judged_channels()`) and places each finding in the
file of the subject it judges: with `--context` only the reported files' subjects are
judged, while lookups (`context.index`, `context.code()`, `context.links`) still see every
file. tests/test_context_scope.py holds every rule to that, file by file.
"""

from __future__ import annotations

import functools
import math
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar, Literal, TypeVar

from k8slb.code.facts import Channel, CodeFacts, EnvRef, Loc
from k8slb.core.edits import Edit, FixValues, YamlEdit
from k8slb.core.findings import NO_FIX, Finding, FixInfo, ObjectRef, Problem, Related, Severity
from k8slb.core.record import record
from k8slb.inputs import MANIFESTS
from k8slb.languages import LANGUAGES
from k8slb.model.addresses import Address, Destination, Listening, destinations_of
from k8slb.model.dialers import Dialer, api_resolved, dialers_by_service, searched_by_name
from k8slb.model.http2 import Evidence, PinnedService, pinned_grpc
from k8slb.model.index import Index
from k8slb.model.links import CodeLinks, ImageSet, container_key
from k8slb.model.objects import Container, PodTemplate, pod_template
from k8slb.model.routes import Key, routed
from k8slb.model.runtimes import engines_major, lowest, nearest_context, node_major
from k8slb.model.units import PLAIN
from k8slb.reading.build_files import Dockerfile, ImageBuild, image_repository, literal_image
from k8slb.reading.java_builds import GrpcJavaBuild, LibraryVersion, grpc_java_version
from k8slb.reading.manifests import ProxyConfig
from k8slb.reading.objects import K8sObject
from k8slb.reading.yamltree import Pos


@record
class Example:
    """Input for a rule and how many findings of that rule it must give (0: clean), and
    where the finding is: `at`, its (line, column) in the file it is reported in.

    `source` is YAML, or code when `language` names one (languages/); `manifests` is YAML
    that a code example is linted together with (the cross-file rules)."""

    source: str
    findings: int = 1
    at: tuple[int, int] | None = None
    severity: Severity | None = None  # when the example shows a lowered severity
    title: str = ""
    language: str = MANIFESTS.name
    manifests: str = ""
    links: tuple[tuple[str, str], ...] = ()  # symbolic links beside the files: (name, target)
    beside: tuple[tuple[str, str], ...] = ()  # other files beside them: (name, text)

    def files(self) -> dict[str, str]:
        """The files the example stands for, by name."""
        code = LANGUAGES.get(self.language)
        main = code.example_file if code is not None else "manifest.yaml"
        files = {main: self.source}
        if self.manifests:
            files["manifests.yaml"] = self.manifests
        files.update(self.beside)
        return files


# What a project may hold that rules ask about across its modules (Context.projects_with).
ProjectPart = Literal["sigterm_handlers", "health_drains", "library_health"]
_PROJECT_PARTS: dict[str, Callable[[CodeFacts], bool]] = {
    "sigterm_handlers": lambda facts: bool(facts.sigterm_handlers),
    "health_drains": lambda facts: bool(facts.health_drains),
    "library_health": lambda facts: any(s.custom_class is None for s in facts.health_servicers),
}


@dataclass
class Context:
    """Everything a rule may look at."""

    index: Index
    problems: Sequence[Problem] = ()
    modules: Sequence[CodeFacts] = ()  # the code, every language
    kubernetes_version: tuple[int, int] = (1, 30)
    fix_values: FixValues = field(default_factory=FixValues)
    links: CodeLinks = field(default_factory=CodeLinks)  # which code runs in which container
    proxy_configs: Sequence[ProxyConfig] = ()  # proxies' own configuration files
    # the objects kustomize patches merged into (model/patched.py): (path, ref) -> each
    # container a patch added whole -> its patch file; and every patch file read
    patched: Mapping[tuple[str, ObjectRef], Mapping[str, str]] = field(default_factory=dict)
    patch_files: frozenset[str] = frozenset()
    # the files whose unnamed objects are said (a kustomization lists them: unnamed_objects)
    unnamed_said: frozenset[str] = frozenset()
    # the files a test runner matches against the cluster (reading/manifests.py)
    patterns: frozenset[str] = frozenset()
    # a rendered file -> the templates of its chart Helm failed on (rendered without them)
    left_out: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # a file no kustomization builds, though one beside or above it lists others -> why
    # (model/kustomized.py's left_out): the rules' findings about it are dropped
    unbuilt: Mapping[str, str] = field(default_factory=dict)
    # a file in a test's data below the folder named -> why (model/test_data.py): its
    # findings are said at info
    test_data: Mapping[str, str] = field(default_factory=dict)
    # a file of a CI system's folder that its job applies to a cluster it makes -> why
    # (model/ci_clusters.py): the readiness and shutdown rules' findings are said at info
    ci_clusters: Mapping[str, str] = field(default_factory=dict)
    # what Java builds say of grpc-java, by the project folder each speaks for
    grpc_java: Mapping[str, Sequence[GrpcJavaBuild]] = field(default_factory=dict)
    # the Dockerfiles built from each context folder (runtimes.build_contexts)
    build_contexts: Mapping[str, list[Dockerfile]] = field(default_factory=dict)
    # the contexts a build definition builds an image it names from (runtimes.named_contexts)
    named_contexts: frozenset[str] = frozenset()
    # those builds, by their context (runtimes.image_builds)
    image_builds: Mapping[str, list[ImageBuild]] = field(default_factory=dict)
    # The files findings are reported on, when not all are (`--context`): rules judge only
    # the objects and modules of these files (a finding is placed in the file of what it
    # judges), while every object and module stays as evidence. None: every file.
    judged: frozenset[str] | None = None
    # With `judged`: a finding may be reported in a file outside it too (a named chart's
    # or kustomization's files, engine._reported); False: exactly those files are.
    reported_beyond: bool = True
    _services: list[K8sObject] | None = field(default=None, init=False, repr=False)
    _workloads: list[tuple[K8sObject, PodTemplate]] | None = field(
        default=None, init=False, repr=False
    )
    _judged_code: list[CodeFacts] | None = field(default=None, init=False, repr=False)
    _projects: dict[str, set[str]] = field(default_factory=dict, init=False, repr=False)
    _routes: dict[Key, list[K8sObject]] | None = field(default=None, init=False, repr=False)
    _pinned: dict[int, PinnedService | None] = field(default_factory=dict, init=False, repr=False)
    _dialers: dict[int, list[Dialer]] | None = field(default=None, init=False, repr=False)
    # where few files are judged: who dials each set of Services asked, by their ids
    _dialers_of: dict[frozenset[int], Mapping[int, list[Dialer]]] = field(
        default_factory=dict, init=False, repr=False
    )
    _api_resolved_of: dict[int, list[Dialer]] = field(default_factory=dict, init=False, repr=False)
    # where few files are judged: their Services, when few enough to be looked for by name
    # (and the ids of those Services), or () when not; None: not chosen yet
    _few_judged: tuple[frozenset[int], list[K8sObject]] | tuple[()] | None = field(
        default=None, init=False, repr=False
    )
    _api_resolved: dict[int, list[Dialer]] | None = field(default=None, init=False, repr=False)
    _unrun: dict[str, str | None] = field(default_factory=dict, init=False, repr=False)
    # the images the containers of the run run (None: one's is not literal), and those the
    # tree's tests start, with where (_stand_in); its verdict, by the builds of a context
    _images: tuple[ImageSet | None, ImageSet, dict[str, tuple[str, int]]] | None = field(
        default=None, init=False, repr=False
    )
    _stand_ins: dict[int, str | None] = field(default_factory=dict, init=False, repr=False)
    # each module's listens by server (addresses.Listening), by the module's id; the module
    # kept beside, so that no other takes its id while the run lasts
    _listening: dict[int, tuple[CodeFacts, Listening]] = field(
        default_factory=dict, init=False, repr=False
    )
    _all_linked: bool | None = field(default=None, init=False, repr=False)
    _incomplete: frozenset[str] | None = field(default=None, init=False, repr=False)
    _unlinked: list[tuple[K8sObject, PodTemplate]] | None = field(
        default=None, init=False, repr=False
    )

    def pinned(self, service: K8sObject, dialed: Evidence | None = None) -> PinnedService | None:
        """KLB101's judgement of a Service (http2.pinned_grpc), made once a run for every
        rule that asks: its gRPC evidence reads the code each selected container runs.
        `dialed` (a channel dialling one of its ports) counts only where nothing else shows
        gRPC, so only then is the Service judged again with it."""
        key = id(service)
        if key not in self._pinned:
            self._pinned[key] = pinned_grpc(self.index, service, self.links)
        found = self._pinned[key]
        if found is None and dialed is not None:
            return pinned_grpc(self.index, service, self.links, dialed)
        return found

    def listening(self, facts: CodeFacts) -> Listening:
        """What the module's listens say of each of its servers (addresses.Listening), read
        once a run: rules ask it of each server, wait and stop of the module."""
        kept = self._listening.get(id(facts))
        if kept is None:
            kept = self._listening[id(facts)] = (facts, Listening(facts))
        return kept[1]

    def selects_no_pod(self, service: K8sObject) -> str | None:
        """The chart or kustomization whose whole output holds the Service and runs no pod
        its selector matches, nor does any other file read (Index.podless_unit), else
        None: there no client of it reaches a pod, so none stays on one. The one shared
        judgement of the rules that say a Service's clients stay on its pods (KLB101,
        KLB102). A chart Helm rendered without some templates (`left_out`) is not whole:
        its pods may be in one of them."""
        if self._incomplete is None:
            units = self.index.units
            self._incomplete = frozenset(units.get(p, PLAIN)[0] for p in self.left_out)
        return self.index.podless_unit(service, self._incomplete)

    def dialers(self, services: Collection[K8sObject]) -> Mapping[int, list[Dialer]]:
        """Who dials each of `services` by its own name, by the Service's id
        (dialers_by_service). Where every file is judged, rules ask it of Service after
        Service (KLB401 and KLB302 of each Service a container's pods are in): the whole
        tree is searched once a run, for every Service, where a search a Service made the
        run quadratic. Where few files are (`--context`), the Services asked are looked for
        by their names, which spares reading most of the tree (once for each set of
        Services asked: KLB101, KLB302 and KLB401 ask it of the same Services)."""
        if self.judged is not None:
            asked = frozenset(map(id, services))
            few = self._judged_services()
            if few and asked <= few[0]:  # asked once of the union (see _judged_services)
                asked, services = few
            found = self._dialers_of.get(asked)
            if found is None:
                found = dialers_by_service(self.index, self.code(), self.links, services)
                self._dialers_of[asked] = found
            return found
        if self._dialers is None:
            self._dialers = dialers_by_service(self.index, self.code(), self.links)
        return self._dialers

    def api_resolved(self, service: K8sObject) -> list[Dialer]:
        """The channels in the code that resolve the Service's pods through the Kubernetes
        API and balance over them (dialers.api_resolved): for the whole tree once a run,
        or, where few files are judged, for the Service asked (as `dialers`), once."""
        if self.judged is not None:
            if id(service) not in self._api_resolved_of:
                few = self._judged_services()
                asked = few[1] if few and id(service) in few[0] else [service]
                found = api_resolved(self.index, self.code(), self.links, asked)
                for one in asked:
                    self._api_resolved_of.setdefault(id(one), found.get(id(one), []))
            return self._api_resolved_of[id(service)]
        if self._api_resolved is None:
            self._api_resolved = api_resolved(self.index, self.code(), self.links)
        return self._api_resolved.get(id(service), [])

    def _judged_services(self) -> tuple[frozenset[int], list[K8sObject]] | tuple[()]:
        """Where few files are judged, their Services (and those Services' ids) when who
        dials them is looked for by their names (dialers.searched_by_name); else ().
        Who dials any set of them, or resolves one through the API, is then asked once of
        them all: the search by names reads every dialer that can reach a Service named
        (what a name cannot be found in names none of them), so a Service's dialers are
        the same whatever set of names the search was made with, in the same order; rules
        asked it of two sets (KLB101's Services and those of its channel evidence) and
        of one Service at a time (the API's resolvers)."""
        if self._few_judged is None:
            services = list(self.services())
            ids = frozenset(map(id, services))
            self._few_judged = (ids, services) if services and searched_by_name(services) else ()
        return self._few_judged

    def library_version(self, library: str, facts: CodeFacts) -> LibraryVersion:
        """The version of `library` the module is built with, as the build files above it
        say (only grpc-java's is read: java_builds.py); unknown for any other."""
        if library != "grpc-java":
            return LibraryVersion(None, unknown=f"k8slb reads no build's version of {library}")
        return grpc_java_version(facts.path, self.grpc_java)

    def node_major(self, facts: CodeFacts) -> int | None:
        """The Node.js major version the module runs on: the lowest of the images of the
        containers that run it, else of the nearest build context holding it, an image
        that does not say (or none) taken at the lowest its package.json's `engines.node`
        admits; None when one of them is unknown, or nothing says."""
        package = self.links.package_of(facts)
        engines = engines_major(package.engines_node) if package and package.engines_node else None
        links = self.links.running(facts.path)
        if links:
            images = [link.dockerfile for link in links]
        else:
            images = list(nearest_context(facts.path, dict(self.build_contexts)) or ())
        if not images:
            return engines
        return lowest(
            major if (major := node_major(d) if d is not None else None) is not None else engines
            for d in images
        )

    def unrun(self, path: str) -> str | None:
        """Why nothing shows that the module at `path` runs in the cluster, or None: k8slb
        links every container of the run to its code, none of them runs this module, no
        image is built from a folder that holds it or only a Dockerfile no build names and
        no link leads to is (a variant of a service that no manifest deploys), and no
        container's `env` sets what it dials. Where a container is left unlinked, or linked
        by a name alike alone, or a build names the image (a manifest out of the tree may
        deploy it), the code keeps its weight: a link k8slb failed to make, or guessed, is
        no evidence that the code does not run; unless the image built from it is one only
        the tree's tests start (`_stand_in`). A Node module of the programs containers run
        that none of their entries loads runs nowhere either (`_never_loaded`)."""
        if path not in self._unrun:
            facts = self.links.modules.get(os.path.normpath(path))
            built = nearest_context(path, self.build_contexts)
            if facts is None:
                self._unrun[path] = None
            elif self.links.running(path):
                self._unrun[path] = self._never_loaded(facts)
            elif self._reads_env(facts):
                self._unrun[path] = None
            elif not self._every_container_linked() or (
                built is not None and self._may_run_image_of(built)
            ):
                self._unrun[path] = self._stand_in(path)
            elif built is None:
                self._unrun[path] = (
                    "every container is linked to code (k8slb explain-links), none to this, "
                    "and no image is built from a folder that holds it: nothing shows it "
                    "runs in the cluster"
                )
            else:
                self._unrun[path] = (
                    "every container is linked to code (k8slb explain-links), none to this, "
                    f"and none runs the image {built[0].path} would build, which no build "
                    "names: nothing shows it runs in the cluster"
                )
        return self._unrun[path]

    def _never_loaded(self, facts: CodeFacts) -> str | None:
        """Why a Node module of the programs that containers run runs in none of them:
        each container's link names the module its program starts, and what that module
        loads, directly or not (each `require` and `import` read), is known and leaves this
        one out (a routes file no module requires); None otherwise."""
        if not LANGUAGES[facts.language].project_files:
            return None
        path = os.path.normpath(facts.path)
        runners = self.links.running(path)
        for link in runners:
            entry = os.path.normpath(link.entry or path)
            started = self.links.modules.get(entry)
            if started is None or entry == path or not LANGUAGES[started.language].project_files:
                return None  # what it starts is not known, or is no Node program
            loaded = self.links.node_loads(entry)
            if loaded is None or path in loaded:
                return None
        if not runners:
            return None
        link = runners[0]
        return (
            f"container {link.container.name!r} of {link.workload.ref.display} starts "
            f"{link.entry}, which loads this module neither itself nor through the modules "
            "it loads: nothing runs it there"
        )

    def _stand_in(self, path: str) -> str | None:
        """Why the module, which no container is linked to, is a test's stand-in: the
        innermost context holding it that a build names an image from makes images no
        container of the run runs, and a test of the tree starts one of them as a
        container of its own (Testcontainers: code/test_containers.py); None otherwise, or
        where a container's image is not literal (it may be one of them). Judged once a
        context."""
        builds = nearest_context(path, self.image_builds)
        if not builds:
            return None
        key = id(builds)
        if key not in self._stand_ins:
            self._stand_ins[key] = self._started_by_tests_alone(builds)
        return self._stand_ins[key]

    def _started_by_tests_alone(self, builds: Sequence[ImageBuild]) -> str | None:
        if self._images is None:  # every container's image, and those the tests start
            images = [
                container.body.get("image")
                for _, template in self.index.workloads
                for container in template.containers
            ]
            run = ImageSet(map(str, images)) if all(map(literal_image, images)) else None
            where: dict[str, tuple[str, int]] = {}  # the first test to start each image
            for facts in self.modules:
                if facts.is_test:
                    for image, line in facts.started_images:
                        where.setdefault(image, (facts.path, line))
            self._images = (run, ImageSet(where), where)
        run, started, where = self._images
        if run is None or any(run.find(build.image) for build in builds):
            return None  # a container's image may be, or is, one built from it
        for build in builds:
            first = started.find(build.image)
            if first is not None:
                test, line = where[first]
                return (
                    f"its image {image_repository(build.image)} ({build.said.path}:"
                    f"{build.said.line}) is run by no container here and started by a "
                    f"test, {test}:{line} (Testcontainers): a test's stand-in"
                )
        return None

    def _may_run_image_of(self, dockerfiles: Sequence[Dockerfile]) -> bool:
        """Whether a container may run an image built with these Dockerfiles: a build
        definition names the image (a manifest elsewhere may deploy it), or a container's
        link leads to one of them, or to code in their context (or around it), or rests on
        a name alike alone."""
        paths = {os.path.normpath(d.path) for d in dockerfiles}
        contexts = {os.path.normpath(d.context) for d in dockerfiles}
        if contexts & self.named_contexts:
            return True
        for link in self.links.links:
            folder = os.path.normpath(link.folder)
            if (
                link.guessed
                or (link.dockerfile is not None and os.path.normpath(link.dockerfile.path) in paths)
                or any(_within(folder, c) or _within(c, folder) for c in contexts)
            ):
                return True
        return False

    def _every_container_linked(self) -> bool:
        if self._all_linked is None:
            containers = sum(len(t.long_running) for _, t in self.index.workloads)
            self._all_linked = 0 < containers == len(self.links.links)
        return self._all_linked

    def _reads_env(self, facts: CodeFacts) -> bool:
        """Whether a channel of the module dials a variable that a workload near it sets in
        a container's `env`: that container may well run it (links.env_readers)."""
        names = {t.name for t in facts.dialed_targets() if isinstance(t, EnvRef)}
        return any(self.index.env_settings_near(name, facts.path) for name in names)

    def weigh(self, finding: Finding) -> Finding:
        """A finding in code at `info` when nothing shows that code runs in the cluster
        (`unrun`), saying why; any other finding as it is."""
        if finding.object is not None or finding.severity <= Severity.INFO:
            return finding
        why = self.unrun(finding.path)
        if why is None:
            return finding
        return replace(
            finding, severity=Severity.INFO, detail=(*finding.detail, f"info only: {why}")
        )

    def routes(self) -> dict[Key, list[K8sObject]]:
        """The L7 routers that send requests to each Service (routes.routed), read once."""
        if self._routes is None:
            self._routes = routed(self.index.objects)
        return self._routes

    def judges(self, subject: K8sObject | CodeFacts) -> bool:
        """Whether the rules judge an object or a module (its findings are in its file)."""
        return self.judged is None or subject.path in self.judged

    def services(self) -> Iterator[K8sObject]:
        """The Services to judge (a rule's subjects; lookups go through the index)."""
        if self._services is None:  # chosen once for every rule: a tree has thousands
            self._services = [s for s in self.index.services if self.judges(s)]
        return iter(self._services)

    def workloads(self, *, linked: bool = False) -> Iterator[tuple[K8sObject, PodTemplate]]:
        """The workloads to judge, with their pod templates; `linked`: with those of the
        kinds only linked to their code (KindSpec.judged)."""
        if self._workloads is None:  # only theirs: a template reads the object's body
            index = self.index
            judged = (w for w in index.workload_objects if self.judges(w))
            self._workloads = [(w, index.template(w)) for w in judged]
        if linked:
            return iter(self._workloads)
        return (pair for pair in self._workloads if pair[0].spec is None or pair[0].spec.judged)

    def workload_objects(self) -> Iterator[K8sObject]:
        """The workloads to judge, of every kind (`workloads(linked=True)`'s), without
        their pod templates (whose bodies are read only when asked)."""
        if self._workloads is not None:
            return (workload for workload, _ in self._workloads)
        return (workload for workload in self.index.workload_objects if self.judges(workload))

    def serving_containers(
        self,
    ) -> Iterator[tuple[K8sObject, PodTemplate, Container, list[K8sObject]]]:
        """The serving containers of the workloads to judge (see Index.serving_containers)."""
        return self.index.serving_containers(self.workloads())

    def code(self) -> Iterator[CodeFacts]:
        """Every module of the code, test files left out: what rules read as evidence
        (`judged_code` is what they judge)."""
        return (facts for facts in self.modules if not facts.is_test)

    def destinations(
        self, value: object, parse: Callable[[str], Address | None], facts: CodeFacts
    ) -> list[Destination]:
        """Where a value in a module's code points, read through the env of the containers
        that run the module (links.py), else of the workloads nearest to it; a Spring
        settings file's, as the settings those containers mount give it."""
        return destinations_of(self.index, self.links, value, parse, facts)

    def mesh_of_code(self, facts: CodeFacts, destination: Destination | None = None) -> str | None:
        """The mesh that balances each call the module's code serves or sends
        (`Index.mesh_balancing`), over the pods that run it (links.py) and, for a client,
        the workload whose env gave it the `destination`; None when none is known meshed.
        Code no container is linked to may run in any workload with a container left
        unlinked: it is meshed when every one of them is (a link k8slb failed to make
        loses no mesh the tree declares)."""
        workloads = [link.workload for link in self.links.running(facts.path)]
        if destination is not None and destination.setting is not None:
            workloads.append(destination.setting.workload)
        if workloads:
            once = {id(w): w for w in workloads}.values()  # a workload of many containers
            pods = [(w, t) for w in once if (t := pod_template(w)) is not None]
        else:
            pods = self._unlinked_workloads()
        return self.index.mesh_balancing(pods)

    def _unlinked_workloads(self) -> list[tuple[K8sObject, PodTemplate]]:
        """The workloads with a long-running container that no link leads to code: those
        that may run code no container is linked to."""
        if self._unlinked is None:
            linked = {link.key for link in self.links.links}
            self._unlinked = [
                (workload, template)
                for workload, template in self.index.workloads
                if any(container_key(workload, c.name) not in linked for c in template.long_running)
            ]
        return self._unlinked

    def judged_code(self) -> Iterator[CodeFacts]:
        """The modules to judge (a rule's subjects; `code()` is every module, as evidence)."""
        if self._judged_code is None:
            self._judged_code = [facts for facts in self.code() if self.judges(facts)]
        return iter(self._judged_code)

    def judged_channels(self) -> Iterator[tuple[CodeFacts, Channel]]:
        """The long-lived channels of the modules to judge."""
        return (
            (facts, channel)
            for facts in self.judged_code()
            for channel in facts.long_lived_channels()
        )

    def projects_with(self, part: ProjectPart) -> set[str]:
        """The projects some module of which has that part (a SIGTERM handler, a drain of
        the health service, gRPC's own health service): read from every module once, when
        a rule first asks."""
        if part not in self._projects:
            has = _PROJECT_PARTS[part]
            self._projects[part] = {f.project for f in self.code() if has(f)}
        return self._projects[part]


def grace_edit(
    workload: K8sObject, template: PodTemplate, pause: float, values: FixValues
) -> YamlEdit:
    """Raise the pod's grace period to cover a preStop pause plus the drain (KLB402's
    fix, and KLB401's companion edit when its new pause would outlast the grace)."""
    return YamlEdit(
        workload.path,
        workload.document,
        (*workload.root_path, *template.spec_path),
        "set-grace",
        math.ceil(pause) + values.stop_grace_seconds,
    )


# What the rules read of the separable fields (Rule.reads).
PROBES = frozenset({"readinessProbe", "livenessProbe", "startupProbe"})
STOPPING = frozenset({"lifecycle", "terminationGracePeriodSeconds"})


# A finding's message: its headline alone, or the headline and then the lines of detail
# (why it matters, what to do), each a line of the text report.
Message = str | Sequence[str]


def _within(path: str, folder: str) -> bool:
    """Whether a normalised relative path is the folder or under it (`.` holds all)."""
    return folder in (".", path) or path.startswith(folder.rstrip("/") + "/")


_Judge = TypeVar("_Judge", bound="Rule")


def judged_where_it_runs(
    check: Callable[[_Judge, Context], Iterator[Finding]],
) -> Callable[[_Judge, Context], Iterator[Finding]]:
    """For a rule whose harm is done where its code runs in the cluster (a client's
    balancing, a server's shutdown): its findings in code that nothing shows running
    there are `info` (Context.weigh)."""

    @functools.wraps(check)
    def weighed(rule: _Judge, context: Context) -> Iterator[Finding]:
        return map(context.weigh, check(rule, context))

    return weighed


class Rule(ABC):
    id: ClassVar[str]
    name: ClassVar[str]
    # Its former names, still accepted wherever a name is (`--select`, the configuration,
    # suppressions), so that a rename breaks no user's settings.
    aliases: ClassVar[tuple[str, ...]] = ()
    severity: ClassVar[Severity]
    # The fix this rule can offer (`k8slb rules`, the docs, the fixer): its one declaration.
    # A finding made with edits carries it (`finding(..., edits=...)`), in its own words
    # where it says `fix=` and less safe where it says `unsafe=True`; one without has none.
    fix: ClassVar[FixInfo] = NO_FIX
    examples: ClassVar[tuple[Example, ...]] = ()
    # The separable fields (reading/shapes.py) it reads: an object whose value for one of
    # them has the wrong shape (KLB002) is not this rule's to judge, the others' still.
    reads: ClassVar[frozenset[str]] = frozenset()

    @abstractmethod
    def check(self, context: Context) -> Iterator[Finding]:
        """The findings of this rule on the run's model."""

    # -- helpers for subclasses ----------------------------------------------------------

    def finding(
        self,
        obj: K8sObject,
        pos: Pos,
        message: Message,
        *,
        container: str | None = None,
        severity: Severity | None = None,
        related: Sequence[Related] = (),
        edits: Sequence[Edit] = (),
        fix: str | None = None,
        unsafe: bool = False,
    ) -> Finding:
        """A finding about a Kubernetes object, at `pos` in its file."""
        where = Loc(obj.path, pos[0], pos[1])
        finding = self.code_finding(
            where,
            message,
            severity=severity,
            related=related,
            edits=edits,
            fix=fix,
            unsafe=unsafe,
        )
        return replace(finding, object=obj.ref, container=container)

    def code_finding(
        self,
        loc: Loc,
        message: Message,
        *,
        severity: Severity | None = None,
        related: Sequence[Related] = (),
        edits: Sequence[Edit] = (),
        fix: str | None = None,
        unsafe: bool = False,
    ) -> Finding:
        """A finding at a place in a file: code, which has no Kubernetes object. With
        `edits`, it carries the rule's declared fix: `fix` says what these edits do (the
        declaration's description otherwise), `unsafe` that they need a review the rule's
        fix usually does not."""
        headline, *detail = (message,) if isinstance(message, str) else message
        return Finding(
            rule=self.id,
            name=self.name,
            severity=severity or self.severity,
            path=loc.path,
            line=loc.line,
            column=loc.column,
            message=headline,
            related=tuple(related),
            fix=self._fix(edits, fix, unsafe),
            edits=tuple(edits),
            detail=tuple(detail),
        )

    def _fix(self, edits: Sequence[Edit], description: str | None, unsafe: bool) -> FixInfo:
        """The declared fix, as a finding with these edits carries it: available only with
        edits, and never safer than the declaration."""
        if not edits:
            return NO_FIX
        return FixInfo(
            available=True,
            safe=self.fix.safe and not unsafe,
            description=description or self.fix.description,
        )

    # -- documentation -------------------------------------------------------------------

    @classmethod
    def summary(cls) -> str:
        """The docstring's first paragraph, whole (it may span lines), on one line."""
        return " ".join(cls.doc().split("\n\n", 1)[0].split())

    @classmethod
    def doc(cls) -> str:
        import inspect  # for `explain` and the docs: a check never needs it

        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def sections(cls) -> dict[str, str]:
        """The docstring's `## Heading` sections, by heading."""
        parts = re.split(r"^## +(.+)$", cls.doc(), flags=re.MULTILINE)
        return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


class ReadProblemRule(Rule):
    """A rule whose findings come from reading files (KLB001-KLB003), not from the model."""

    def check(self, context: Context) -> Iterator[Finding]:
        for problem in context.problems:
            if problem.rule == self.id:
                yield Finding(
                    rule=self.id,
                    name=self.name,
                    severity=problem.severity or self.severity,
                    path=problem.path,
                    line=problem.line,
                    column=problem.column,
                    message=problem.message,
                    object=problem.object,
                    detail=problem.detail,
                )
