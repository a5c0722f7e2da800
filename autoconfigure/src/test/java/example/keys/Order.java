package example.keys;

import java.util.List;
import java.util.Map;

/** An application's record, as a @RateLimited method takes one: key expressions read its components. */
public record Order(String customerId, int lines, Region region, List<String> tags, Map<String, String> labels,
    String[] codes) {

  /** The region an order ships to: an application's enum. */
  public enum Region { EU, US }

  /** An accessor beside the components. */
  public String getChannel() {
    return "web";
  }

  /** A boolean accessor. */
  public boolean isLarge() {
    return lines > 10;
  }

  /** Not an accessor: it takes an argument. */
  public String label(String name) {
    return labels.get(name);
  }

  /** An order with a customer and defaults. */
  public static Order of(String customerId) {
    return new Order(customerId, 3, Region.EU, List.of("a", "b"), Map.of("k", "v"), new String[] {"x", "y"});
  }
}
