"""Java (grpc-java): `parse` reads a file's gRPC servers and channels, built with
grpc-java's builders, their shutdown and health service, with tree-sitter; `dialect` words
findings in grpc-java's terms; `edit` makes the fixes on the builder chains and around the
server's wait."""
