// A gRPC server as many Java services start one: no keepalive settings, and a shutdown
// hook (the JVM runs it on SIGTERM) that stops the server at once. `k8slb fix` is run on
// this file; the proof compiles what it writes.
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;

public class Main {
  public static void main(String[] args) throws Exception {
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service(args[0]))
        .build()
        .start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.shutdownNow();
    }));
    System.out.println(server.getPort());
    server.awaitTermination();
  }
}
