"""The images a test starts as containers of its own with Testcontainers (Java's and
Kotlin's `new GenericContainer<>("acme/mock:1")` and `DockerImageName.parse("acme/mock")`,
Node's `new GenericContainer("acme/mock")`, Python's `DockerContainer("acme/mock")`, Go's
`testcontainers.ContainerRequest{Image: "acme/mock"}` and `testcontainers.Run(ctx,
"acme/mock")`): read from a test file's text, whatever else it holds, so that an image
the repository builds and only its tests start is known for a test's stand-in
(CodeFacts.started_images, rulekit's Context.unrun). An image a test names by a variable
(a system property the build sets) is not read."""

from __future__ import annotations

import itertools

from k8slb.core import regex

# The most images a file's text gives, and the most starts read for them: a test suite
# starts a handful.
MAX_STARTED = 64
MAX_STARTS = 1024

_STARTED = regex.compile(
    rb"(?:(?:DockerImageName\.parse|GenericContainer(?:<[^>\n]{0,64}>)?|DockerContainer)\("
    rb"|testcontainers\.Run\(\s*\w+\s*,|\bImage:)"
    rb"""\s*["'`]([^"'`\s$]{1,256})["'`]"""
)


def started_images(data: bytes) -> tuple[tuple[str, int], ...]:
    """Each image a file's Testcontainers code starts, with its line; none in a file that
    does not name Testcontainers."""
    if b"testcontainers" not in data:
        return ()
    found: dict[bytes, int] = {}
    line, counted = 1, 0  # lines counted up to `counted` (once over the text)
    for spans in itertools.islice(_STARTED.spans(data), MAX_STARTS):
        start, end = spans[1]
        image = data[start:end]
        if image in found:
            continue
        line += data.count(b"\n", counted, start)
        counted = start
        found[image] = line
        if len(found) >= MAX_STARTED:
            break
    return tuple((image.decode("utf-8", "replace"), line) for image, line in found.items())
