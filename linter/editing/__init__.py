"""Edits made on text: a YAML file's (`yaml_edit.py`, each read back and checked by
`verify.py`), a chart template's (`chart_fix.py`: a fix planned on the rendered text and
carried to the template); each language's editor is in its package (languages/). Pure
functions of a text and its edits, below the run: the engine carries a finding's fix to the
template that wrote it, and the fixer (fixing/) makes and writes them."""
