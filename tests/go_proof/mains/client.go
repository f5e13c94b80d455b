// A gRPC client as many Go services open one: one channel to the backend's DNS name, made
// at start and kept for the life of the process. `k8slb fix` is run on this file; the proof
// builds what it writes.
package main

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

var backend, _ = grpc.Dial("dns:///backend.shop.svc.cluster.local:50051", grpc.WithTransportCredentials(insecure.NewCredentials()))
