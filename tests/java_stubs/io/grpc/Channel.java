package io.grpc;

/** What a stub calls through. */
public abstract class Channel {}
