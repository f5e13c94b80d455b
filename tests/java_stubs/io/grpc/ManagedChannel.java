package io.grpc;

import java.util.concurrent.TimeUnit;

/** A channel with a life of its own. */
public abstract class ManagedChannel extends Channel {
  public abstract ManagedChannel shutdown();

  public abstract ManagedChannel shutdownNow();

  public abstract boolean awaitTermination(long timeout, TimeUnit unit)
      throws InterruptedException;
}
