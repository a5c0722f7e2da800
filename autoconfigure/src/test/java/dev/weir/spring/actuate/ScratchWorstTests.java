package dev.weir.spring.actuate;

import dev.weir.spring.properties.InputLimits;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;

class ScratchWorstTests extends EndpointBodyOnSpringMvcTests {

  static String fill(String head, String item, String tail) {
    StringJoiner j = new StringJoiner(",", head, tail);
    int size = head.length() + tail.length();
    int i = 0;
    while (size + item.length() + 12 < InputLimits.MAX_BYTES) {
      String it = item.replace("#", Integer.toString(i++));
      j.add(it);
      size += it.length() + 1;
    }
    return j.toString();
  }

  void time(String what, String resource, String body) throws Exception {
    long start = System.nanoTime();
    var answer = post(resource, body);
    System.out.println("WORST " + what + " (" + body.length() + " B): " + answer.statusCode() + " in "
        + (System.nanoTime() - start) / 1_000_000 + " ms " + answer.body().substring(0, Math.min(200, answer.body().length())));
  }

  @Test
  void worst() throws Exception {
    post("w0", "{\"flow\": [{\"count\": 1}]}");
    time("tiny flow rules", "w1", fill("{\"flow\":[", "{\"count\":1}", "]}"));
    time("exceptions", "w2", fill("{\"paramFlow\":[{\"paramIndex\":0,\"count\":1,\"exceptions\":[", "{\"value\":\"#\",\"count\":1}", "]}]}"));
    time("limitApp", "w3", fill("{\"authority\":[{\"strategy\":\"white\",\"limitApp\":[", "\"a#\"", "]}]}"));
    time("invalid tiny flow rules", "w4", fill("{\"flow\":[", "{\"count\":-1}", "]}"));
    time("unknown fields", "w5", fill("{\"flow\":[{\"count\":1,", "\"f#\":1", "}]}"));
    StringJoiner j = new StringJoiner(",", "{\"flow\":[", "]}");
    for (int i = 0; i < 5000; i++) j.add("{\"count\":" + i + "}");
    time("5000 distinct rules", "w6", j.toString());
    StringJoiner k = new StringJoiner(",", "{\"paramFlow\":[{\"paramIndex\":0,\"count\":1,\"exceptions\":[", "]}]}");
    for (int i = 0; i < 4999; i++) k.add("{\"value\":\"" + i + "\",\"count\":1}");
    time("4999 exceptions", "w7", k.toString());
  }
}
