"""`k8slb lsp`: k8slb in the editor, as a Language Server Protocol server over stdio.

The server (`server.py`, on pygls) keeps each workspace folder's state (`state.py`: the
plan `check` makes, the parses, the open buffers) and judges the whole folder again when
a buffer changes, so a Service's edit reaches the code that dials it. What it says is
made from one run's result: diagnostics (`diagnostics.py`), code actions (`actions.py`:
the fixes, fix-all, suppress here), hover (`hover.py`); positions are converted once, in
`positions.py`. Nothing here is imported without the `lsp` extra but this docstring.
"""
