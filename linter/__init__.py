"""k8slb: a linter and fixer for load-balancing and graceful-shutdown pitfalls on Kubernetes."""

__version__ = "0.1.0"
