package io.grpc;

import java.util.Map;

/** Builds a channel, one setting per call. */
public abstract class ManagedChannelBuilder<T extends ManagedChannelBuilder<T>> {
  public static ManagedChannelBuilder<?> forTarget(String target) {
    throw new UnsupportedOperationException();
  }

  public static ManagedChannelBuilder<?> forAddress(String host, int port) {
    throw new UnsupportedOperationException();
  }

  public abstract T usePlaintext();

  public abstract T defaultLoadBalancingPolicy(String policy);

  public abstract T defaultServiceConfig(Map<String, ?> config);

  public abstract ManagedChannel build();
}
