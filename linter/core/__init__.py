"""The core every layer shares, depending on nothing of k8slb's outside it: what a rule
finds (`Finding`, `Severity`), what reading a file finds (`Problem`), the edits a fix is
made of, the records they are (`record`), and what every run uses: the options' values
(`choices`), the user's k8slb folder (`home`), progress, forked workers (`parallel`) and
the internal error. (ARCHITECTURE.md: the layers.)"""
