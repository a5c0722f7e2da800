package dev.weir.spring.actuate;

import dev.weir.Weir;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;

class ScratchMeasureTests {

  static String flow(int n) {
    StringJoiner j = new StringJoiner(",", "{\"flow\":[", "]}");
    for (int i = 0; i < n; i++) {
      j.add("{\"count\":" + (i + 1) + ",\"interval\":\"1s\",\"controlBehavior\":\"reject\"}");
    }
    return j.toString();
  }

  static String authority(int n) {
    StringJoiner j = new StringJoiner(",", "{\"authority\":[{\"strategy\":\"white\",\"limitApp\":[", "]}]}");
    for (int i = 0; i < n; i++) {
      j.add("\"app" + i + "\"");
    }
    return j.toString();
  }

  static String exceptions(int n) {
    StringJoiner j = new StringJoiner(",", "{\"paramFlow\":[{\"paramIndex\":0,\"count\":5,\"exceptions\":[", "]}]}");
    for (int i = 0; i < n; i++) {
      j.add("{\"value\":\"v" + i + "\",\"count\":" + i + "}");
    }
    return j.toString();
  }

  @Test
  void measure() {
    Weir weir = Weir.builder().build();
    Thread mainT = Thread.currentThread();
    java.util.Map<String, Integer> hits2 = new java.util.concurrent.ConcurrentHashMap<>();
    Thread sampler2 = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        StackTraceElement[] st = mainT.getStackTrace();
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < Math.min(14, st.length); i++) key.append(st[i].getClassName().replaceAll(".*\\.", "")).append('.').append(st[i].getMethodName()).append(':').append(st[i].getLineNumber()).append(" < ");
        hits2.merge(key.toString(), 1, Integer::sum);
        try { Thread.sleep(5); } catch (InterruptedException e) { return; }
      }
    });
    sampler2.start();
    for (int n : new int[] {5000}) {
      StringJoiner j = new StringJoiner(",", "{\"flow\":[{\"count\":1,", "}]}");
      for (int i = 0; i < n; i++) j.add("\"f" + i + "\":1");
      String f = j.toString();
      time("unknown " + n, () -> PostedRules.read("r", f));
    }
    sampler2.interrupt();
    hits2.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(6).forEach(e -> System.out.println("SAMPLE " + e.getValue() + " " + e.getKey()));
    if (true) return;
    String big = flow(4000);
    Thread main = Thread.currentThread();
    java.util.Map<String, Integer> hits = new java.util.concurrent.ConcurrentHashMap<>();
    Thread sampler = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        StackTraceElement[] st = main.getStackTrace();
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < Math.min(4, st.length); i++) key.append(st[i].getClassName().replaceAll(".*\\.", "")).append('.').append(st[i].getMethodName()).append(':').append(st[i].getLineNumber()).append(" < ");
        hits.merge(key.toString(), 1, Integer::sum);
        try { Thread.sleep(2); } catch (InterruptedException e) { return; }
      }
    });
    sampler.start();
    for (int k = 0; k < 3; k++) {
      long t = System.nanoTime();
      var p = PostedRules.read("r", big);
      long t2 = System.nanoTime();
      var given = p.lists();
      var set = given.toRuleSet(false);
      var v = dev.weir.spring.properties.WeirPropertiesValidator.validateRules(given, set, weir.rules());
      if (k == 2) { sampler.interrupt(); hits.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(25).forEach(e -> System.out.println("SAMPLE " + e.getValue() + " " + e.getKey())); }
      System.out.println("MEASURE read " + (t2 - t) / 1_000_000 + " validate " + (System.nanoTime() - t2) / 1_000_000 + " " + v.size() + " " + p.bindingViolations());
    }
  }

  static void time(String what, Runnable r) {
    var mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long c = mx.getCurrentThreadCpuTime();
    long t = System.nanoTime();
    r.run();
    System.out.println("MEASURE " + what + ": " + (System.nanoTime() - t) / 1_000_000 + " ms wall, " + (mx.getCurrentThreadCpuTime() - c) / 1_000_000 + " ms cpu");
  }
}
