"""JavaScript (Node.js, @grpc/grpc-js): `parse` reads a module's gRPC servers and clients
and their channel options with tree-sitter, `dialect` words findings in grpc-js's terms,
`edit` checks `--add-noqa`'s comments. A first part of the language: servers'
connection-age options (KLB201, KLB204), clients' targets and balancing (KLB102, KLB103);
shutdown, health and fixes are to come."""
