"""Go: `parse` reads source into facts with tree-sitter (grpc-go, net/http, signals,
health), `dialect` words findings and builds edits, `edit*` apply them in gofmt's style."""
