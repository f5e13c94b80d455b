import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

// One JVM hosts every pod named in its arguments (a JVM takes a second to load grpc-java:
// one per pod would make a scale-up slow): each pod is main.java's main(), run with its
// name on a thread of its own as a process would run it. Each pod's first line (its port)
// is printed in the order of the names, so that the test knows which port is whose.
public final class Pods {
  private Pods() {}

  public static void main(String[] names) throws InterruptedException {
    PrintStream stdout = System.out;
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    System.setOut(new PrintStream(new Lines(lines), true, StandardCharsets.UTF_8));
    for (String name : names) {
      Thread pod = new Thread(() -> serve(name), name);
      pod.start();
      String port = lines.poll(60, TimeUnit.SECONDS);
      if (port == null) {
        throw new IllegalStateException(name + " printed no port in 60 s");
      }
      stdout.println(port);
    }
    stdout.flush();
  }

  private static void serve(String name) {
    try {
      Main.main(new String[] {name});
    } catch (Throwable error) {
      error.printStackTrace();
      System.exit(1); // a pod that fails to start fails the run, as its process would
    }
  }

  // What the pods print, a line at a time (PrintStream serialises its writers' calls).
  private static final class Lines extends OutputStream {
    private final BlockingQueue<String> lines;
    private final StringBuilder line = new StringBuilder();

    Lines(BlockingQueue<String> lines) {
      this.lines = lines;
    }

    @Override
    public void write(int b) {
      if (b == '\n') {
        lines.add(line.toString().strip());
        line.setLength(0);
      } else {
        line.append((char) b);
      }
    }
  }
}
