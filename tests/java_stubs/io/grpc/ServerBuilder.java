package io.grpc;

import java.io.File;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** Builds a server, one setting per call. */
public abstract class ServerBuilder<T extends ServerBuilder<T>> {
  public static ServerBuilder<?> forPort(int port) {
    throw new UnsupportedOperationException();
  }

  public abstract T addService(BindableService service);

  public abstract T executor(Executor executor);

  public abstract T useTransportSecurity(File certificateChain, File privateKey);

  public abstract T maxConnectionAge(long age, TimeUnit unit);

  public abstract T maxConnectionAgeGrace(long grace, TimeUnit unit);

  public abstract T maxConnectionIdle(long idle, TimeUnit unit);

  public abstract T keepAliveTime(long time, TimeUnit unit);

  public abstract T keepAliveTimeout(long timeout, TimeUnit unit);

  public abstract Server build();
}
