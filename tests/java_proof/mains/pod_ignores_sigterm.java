// A gRPC server as many Java services start one: it serves until the process ends, and
// SIGTERM ends the JVM at once (no shutdown hook). `k8slb fix` is run on this file; the
// proof compiles what it writes.
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;

public class Main {
  public static void main(String[] args) throws Exception {
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(Echo.service(args[0]))
        .build()
        .start();
    System.out.println(server.getPort());
    server.awaitTermination();
  }
}
