package io.grpc;

/** How a server authenticates. */
public abstract class ServerCredentials {}
