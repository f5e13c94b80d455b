import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

// The proof's messages are raw bytes, so it needs no .proto and no generated stub: the
// service's one method, described by hand as grpc-java takes it (as go_proof/codec.go and
// node_proof/echo.js do for their runtimes).
final class Echo {
  static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<byte[]>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException error) {
            throw new UncheckedIOException(error);
          }
        }
      };

  static final MethodDescriptor<byte[], byte[]> WHERE =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName("proof.Echo", "Where"))
          .setRequestMarshaller(BYTES)
          .setResponseMarshaller(BYTES)
          .build();

  // the slow calls' timer: a daemon, so that it never holds the JVM up on its own
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "proof-delay");
            thread.setDaemon(true);
            return thread;
          });

  private Echo() {}

  // The service of a pod: it answers each call with the pod's name, PROOF_DELAY_MS
  // milliseconds late (a slow call, to be in flight when the pod is stopped).
  static ServerServiceDefinition service(String name) {
    long delay = Long.parseLong(System.getenv().getOrDefault("PROOF_DELAY_MS", "0"));
    byte[] answer = name.getBytes(StandardCharsets.UTF_8);
    ServerCalls.UnaryMethod<byte[], byte[]> where =
        (byte[] request, StreamObserver<byte[]> observer) -> {
          Runnable reply =
              () -> {
                observer.onNext(answer);
                observer.onCompleted();
              };
          if (delay > 0) {
            TIMER.schedule(reply, delay, TimeUnit.MILLISECONDS);
          } else {
            reply.run(); // no timer: even one of 0 ms would slow the load scenarios
          }
        };
    return ServerServiceDefinition.builder("proof.Echo")
        .addMethod(WHERE, ServerCalls.asyncUnaryCall(where))
        .build();
  }
}
