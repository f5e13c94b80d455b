package io.grpc.netty;

import io.grpc.ServerBuilder;

/** The Netty transport's server builder. */
public abstract class NettyServerBuilder extends ServerBuilder<NettyServerBuilder> {
  public static NettyServerBuilder forPort(int port) {
    throw new UnsupportedOperationException();
  }
}
