"""Code: Python and Go source read into the language-neutral facts the code rules read
(facts.py), one front-end per language."""
