package io.grpc;

/** The factories that take credentials. */
public final class Grpc {
  public static ServerBuilder<?> newServerBuilderForPort(int port, ServerCredentials credentials) {
    throw new UnsupportedOperationException();
  }
}
