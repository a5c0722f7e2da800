package dev.weir.spring.actuate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The dashboard page, {@code dashboard.html} beside this class: one self-contained HTML file whose
 * script reads the endpoint's JSON once a second and keeps the history in the browser. It is read
 * once; the only thing filled in per answer is whether the write operation is open, which decides
 * between the rule editor and the "closed" message.
 */
final class DashboardPage {

  private static final String WRITES = "data-writes=\"closed\"";

  private final byte[] writesClosed;
  private final byte[] writesOpen;

  DashboardPage() {
    String html = read("dashboard.html");
    if (!html.contains(WRITES)) {
      throw new IllegalStateException("dashboard.html lacks " + WRITES);
    }
    this.writesClosed = html.getBytes(StandardCharsets.UTF_8);
    this.writesOpen = html.replace(WRITES, "data-writes=\"open\"").getBytes(StandardCharsets.UTF_8);
  }

  byte[] render(boolean writesAreOpen) {
    return writesAreOpen ? writesOpen : writesClosed;
  }

  private static String read(String name) {
    try (InputStream in = Objects.requireNonNull(DashboardPage.class.getResourceAsStream(name), name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }
}
