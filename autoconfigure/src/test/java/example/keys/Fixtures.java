package example.keys;

import java.util.function.Supplier;

/**
 * Objects of an application's classes that key expressions read, made here because some of them
 * are not public (a package-private record, as tests and small applications declare them).
 */
public final class Fixtures {

  private Fixtures() {
  }

  /** A package-private record with one component. */
  public static Object hiddenOrder(String customerId) {
    return new HiddenOrder(customerId);
  }

  /** An object whose accessor throws. */
  public static Object broken() {
    return new Broken();
  }

  /** An application's class that inherits platform accessors (Thread's). */
  public static Object worker() {
    return new Worker();
  }

  /** An application's object whose accessor returns a platform object (a Supplier lambda). */
  public static Object holder(Supplier<String> supplier) {
    return new Holder(supplier);
  }

  record HiddenOrder(String customerId) {
  }

  static final class Broken {
    public String getValue() {
      throw new IllegalStateException("broken accessor");
    }
  }

  static final class Worker extends Thread {
    public String getTask() {
      return "task";
    }
  }

  static final class Holder {
    private final Supplier<String> supplier;

    Holder(Supplier<String> supplier) {
      this.supplier = supplier;
    }

    public Supplier<String> getSupplier() {
      return supplier;
    }
  }
}
