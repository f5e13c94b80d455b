"""`k8slb fix`: fixes are data (edits) that rules attach to findings; this package applies
them, byte-faithfully, and writes or shows the result."""
