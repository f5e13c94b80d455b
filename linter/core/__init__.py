"""The core every layer shares, depending on nothing of k8slb's but `record`: what a rule
finds (`Finding`, `Severity`), what reading a file finds (`Problem`) and the edits a fix
is made of. (ARCHITECTURE.md: the layers.)"""
