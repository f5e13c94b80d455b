"""The model: Kubernetes objects, the cross-file index, the code <-> container link, and
what rules ask of them (gRPC evidence, addresses, proxies, dialers)."""
