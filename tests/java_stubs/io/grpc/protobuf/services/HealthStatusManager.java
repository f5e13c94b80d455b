package io.grpc.protobuf.services;

import io.grpc.BindableService;

/** The standard health service's statuses. */
public final class HealthStatusManager {
  public BindableService getHealthService() {
    throw new UnsupportedOperationException();
  }

  public void enterTerminalState() {
    throw new UnsupportedOperationException();
  }
}
