"""Kotlin (grpc-java and grpc-kotlin on the JVM): `parse` reads a file's gRPC servers and
channels, built with grpc-java's builders, their shutdown and health service, with
tree-sitter; `dialect` words findings in grpc-java's terms, written as Kotlin; `edit` makes
no fix (Java's edits do not carry over to Kotlin's syntax exactly)."""
