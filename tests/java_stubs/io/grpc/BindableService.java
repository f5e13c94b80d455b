package io.grpc;

/** A service a server can be given. */
public interface BindableService {}
