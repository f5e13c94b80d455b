package io.grpc;

/** No authentication. */
public final class InsecureServerCredentials extends ServerCredentials {
  public static ServerCredentials create() {
    throw new UnsupportedOperationException();
  }
}
