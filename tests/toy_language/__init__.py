"""Dial, a toy language a test adds to k8slb the way a contributor adds one: this package
and one line in `k8slb.languages.LANGUAGES` (tests/test_toy_language.py).

A `.dial` file holds one call a line: `dial ADDRESS` opens a long-lived gRPC channel,
`dial ADDRESS round_robin` one that balances over the addresses; `--` starts a comment.
"""
