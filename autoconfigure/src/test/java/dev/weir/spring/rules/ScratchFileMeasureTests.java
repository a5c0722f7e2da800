package dev.weir.spring.rules;

import dev.weir.Weir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ScratchFileMeasureTests {

  static byte[] yaml(int n, boolean bad) {
    StringBuilder b = new StringBuilder("flow:\n");
    for (int i = 0; i < n; i++) {
      b.append("  - resource: r").append(i).append("\n    count: ").append(bad ? -1 : i + 1).append("\n    interval: 1s\n");
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  static byte[] yamlExceptions(int n) {
    StringBuilder b = new StringBuilder("param-flow:\n");
    for (int i = 0; i < n; i++) {
      b.append("  - resource: r").append(i).append("\n    count: 5\n    param-index: 0\n    exceptions:\n      - value: a\n        count: 3\n");
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  static byte[] sentinel(int n) {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",").append("{\"resource\":\"r").append(i).append("\",\"count\":").append(i + 1).append(",\"grade\":1}");
    }
    return b.append("]").toString().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void measure() {
    Weir weir = Weir.builder().build();
    RuleFile file = new RuleFile(Path.of("/tmp/x.yml"));
    SentinelFile sentinel = new SentinelFile(SentinelFile.Kind.FLOW, Path.of("/tmp/flow.json"));
    for (int n : new int[] {250, 500, 1000, 2000, 4000}) {
      byte[] y = yaml(n, false);
      time("file flow " + n + " (" + y.length + " B)", () -> file.read(y, weir.rules()));
      byte[] yb = yaml(n, true);
      time("file flow invalid " + n, () -> file.read(yb, weir.rules()));
      byte[] ye = yamlExceptions(n);
      time("file param-flow+exceptions " + n, () -> file.read(ye, weir.rules()));
      byte[] s = sentinel(n);
      time("sentinel flow " + n, () -> sentinel.read(s, weir.rules()));
    }
  }

  static void time(String what, Runnable r) {
    long t = System.nanoTime();
    r.run();
    System.out.println("MEASURE " + what + ": " + (System.nanoTime() - t) / 1_000_000 + " ms");
  }
}
