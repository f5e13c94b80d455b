"""The rule framework, apart from the rule catalogue (rules/): the `Rule` base class and
the `Context` rules read (`base.py`), the dialects a finding about code speaks
(`dialect.py`), the building blocks of the rules' examples (`examples.py`), and what the
rules that judge serving containers share (`serving.py`)."""
