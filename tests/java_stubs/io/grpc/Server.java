package io.grpc;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** A server's life: started, shut down, waited on. */
public abstract class Server {
  public abstract Server start() throws IOException;

  public abstract Server shutdown();

  public abstract Server shutdownNow();

  public abstract boolean awaitTermination(long timeout, TimeUnit unit)
      throws InterruptedException;

  public abstract void awaitTermination() throws InterruptedException;
}
