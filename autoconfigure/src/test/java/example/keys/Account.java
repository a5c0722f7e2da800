package example.keys;

/** A class that is not final: what a subclass has is decided per call. */
public class Account {

  private final String id;

  public Account(String id) {
    this.id = id;
  }

  public String getId() {
    return id;
  }

  /** A subclass with an accessor of its own. */
  public static final class Premium extends Account {
    public Premium(String id) {
      super(id);
    }

    public String getTier() {
      return "gold";
    }
  }
}
