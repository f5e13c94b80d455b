"""Python: `parse*` read source into facts (grpcio, HTTP and database clients, signals,
health, web routes), `dialect` words findings and builds edits, `edit*` apply them."""
