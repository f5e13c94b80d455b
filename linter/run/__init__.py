"""The run layer: one run of k8slb, its settings, its suppressions, its cache (the
parse store and the result store) and the judgement after an edit. (ARCHITECTURE.md:
the layers.)"""
