// A gRPC client as many Java services make one: a channel to the backend's DNS name, made
// with the object that holds it and kept for its life. `k8slb fix` is run on this file;
// the proof compiles what it writes.
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;

public class Main {
  final ManagedChannel backend = ManagedChannelBuilder.forTarget("dns:///backend.shop.svc.cluster.local:50051")
      .usePlaintext()
      .build();
}
