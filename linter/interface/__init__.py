"""The interface layer: the use cases (`api`), the command line (`cli`), the resident
server (`server`) and the editor's server (`lsp/`). (ARCHITECTURE.md: the layers.)"""
