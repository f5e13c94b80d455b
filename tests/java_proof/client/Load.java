import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.EquivalentAddressGroup;
import io.grpc.ManagedChannel;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.NameResolverRegistry;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

// Client pods, -clients=N of them in one JVM (a JVM takes a second to load grpc-java), each
// with main.java's channel, made as the service makes it (one Main each: channels share no
// connection). Each calls the backend in a loop until stdin closes; at the end of each
// bucket of time, the answers of that bucket (of every client) counted per pod are printed
// as a JSON line. With -inflight=N: N calls at once on each, and how each ended ("done", or
// its status), a list with one entry per client. The clients start calling on a line on
// stdin, once every channel is connected.
public final class Load {
  private static final long BUCKET_MS = 250;
  // a call of the loop gives up after 5 s; a call in flight through a SIGTERM is given 30 s,
  // far beyond the calls the tests make slow and the grace they stop within, so that a
  // loaded machine's delays never pass for a stop's outcome
  private static final long LOOP_DEADLINE_S = 5;
  private static final long IN_FLIGHT_DEADLINE_S = 30;
  private static final Map<String, Integer> COUNTS = new TreeMap<>();
  private static volatile boolean stopped;

  private Load() {}

  public static void main(String[] args) throws Exception {
    int inflight = 0;
    int clients = 1;
    for (String argument : args) {
      String[] flag = argument.replaceFirst("^-+", "").split("=", 2);
      switch (flag[0]) {
        case "inflight" -> inflight = Integer.parseInt(flag[1]);
        case "clients" -> clients = Integer.parseInt(flag[1]);
        default -> throw new IllegalArgumentException("unknown flag " + argument);
      }
    }
    NameResolverRegistry.getDefaultRegistry().register(new Proof(System.getenv("PROOF_ADDRESSES")));
    List<ManagedChannel> channels = new ArrayList<>();
    for (int n = 0; n < clients; n++) {
      channels.add(new Main().backend);
    }
    for (ManagedChannel channel : channels) {
      connected(channel);
    }
    System.out.println("started");
    BufferedReader stdin =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    stdin.readLine();
    if (inflight > 0) {
      final int calls = inflight;
      List<CompletableFuture<String>> outputs = new ArrayList<>();
      for (ManagedChannel channel : channels) {
        outputs.add(
            CompletableFuture.supplyAsync(
                () -> inFlight(channel, calls), command -> new Thread(command).start()));
      }
      String json =
          outputs.stream().map(CompletableFuture::join).collect(Collectors.joining(",", "[", "]"));
      System.out.println(json);
      System.exit(0); // the channels are the service's, left open as it leaves them
    }
    Thread stop = // the test closes stdin once it has counted enough calls
        new Thread(
            () -> {
              try {
                while (stdin.readLine() != null) {
                  // read to the end
                }
              } catch (java.io.IOException closed) {
                // the end, too
              }
              stopped = true;
            });
    stop.start();
    for (ManagedChannel channel : channels) {
      new Thread(() -> loop(channel)).start();
    }
    while (!stopped) {
      Thread.sleep(BUCKET_MS);
      String line;
      synchronized (COUNTS) {
        line = object(COUNTS);
        COUNTS.clear();
      }
      System.out.println(line);
      System.out.flush();
    }
    System.exit(0);
  }

  // The channel asked to connect, and waited on until it is ready (at most 30 s).
  private static void connected(ManagedChannel channel) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    ConnectivityState state = channel.getState(true);
    while (state != ConnectivityState.READY && System.nanoTime() < deadline) {
      CompletableFuture<Void> changed = new CompletableFuture<>();
      channel.notifyWhenStateChanged(state, () -> changed.complete(null));
      try {
        changed.get(1, TimeUnit.SECONDS);
      } catch (Exception timedOut) {
        // asked again below
      }
      state = channel.getState(true);
    }
  }

  private static String call(ManagedChannel channel, long deadlineSeconds) {
    CallOptions options =
        CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds, TimeUnit.SECONDS).withWaitForReady();
    byte[] answer = ClientCalls.blockingUnaryCall(channel, Echo.WHERE, options, new byte[0]);
    return new String(answer, StandardCharsets.UTF_8);
  }

  private static void loop(ManagedChannel channel) {
    while (!stopped) {
      try {
        String pod = call(channel, LOOP_DEADLINE_S);
        synchronized (COUNTS) {
          COUNTS.merge(pod, 1, Integer::sum);
        }
      } catch (StatusRuntimeException failed) {
        // a failed call is not counted, as on the other runtimes
      }
    }
  }

  private static String inFlight(ManagedChannel channel, int calls) {
    List<CompletableFuture<String>> outcomes = new ArrayList<>();
    for (int n = 0; n < calls; n++) {
      outcomes.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  call(channel, IN_FLIGHT_DEADLINE_S);
                  return "done";
                } catch (StatusRuntimeException failed) {
                  return failed.getStatus().getCode().name();
                }
              },
              command -> new Thread(command).start()));
    }
    return outcomes.stream()
        .map(outcome -> quoted(outcome.join()))
        .collect(Collectors.joining(",", "[", "]"));
  }

  private static String object(Map<String, Integer> counts) {
    return counts.entrySet().stream()
        .map(count -> quoted(count.getKey()) + ":" + count.getValue())
        .collect(Collectors.joining(",", "{", "}"));
  }

  private static String quoted(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  // The "proof" scheme resolves a channel's target to the addresses of PROOF_ADDRESSES: a
  // balancer's one address, or every pod's, as a headless Service's DNS answers.
  private static final class Proof extends NameResolverProvider {
    private final List<EquivalentAddressGroup> addresses = new ArrayList<>();

    Proof(String addresses) {
      for (String address : addresses.split(",")) {
        String[] hostPort = address.split(":");
        SocketAddress socket = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        this.addresses.add(new EquivalentAddressGroup(socket));
      }
    }

    @Override
    public NameResolver newNameResolver(URI target, NameResolver.Args args) {
      if (!"proof".equals(target.getScheme())) {
        return null;
      }
      return new NameResolver() {
        @Override
        public String getServiceAuthority() {
          return "backend";
        }

        @Override
        public void start(Listener2 listener) {
          listener.onResult(ResolutionResult.newBuilder().setAddresses(addresses).build());
        }

        @Override
        public void shutdown() {}
      };
    }

    @Override
    public String getDefaultScheme() {
      return "proof";
    }

    @Override
    protected boolean isAvailable() {
      return true;
    }

    @Override
    protected int priority() {
      return 5;
    }
  }
}
