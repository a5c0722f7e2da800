package dev.weir.spring.client;

/**
 * The failure recorded on an outgoing call answered with a status of 500 or more, so that circuit
 * breakers and the failure statistics count it (the call's own exception, if the client raises one,
 * comes later or never: a {@code WebClient} exchange does not raise any). It carries no stack trace.
 */
public final class ServerErrorStatus extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int status;

  /** Creates the failure of a call of {@code resource} answered with {@code status}. */
  public ServerErrorStatus(String resource, int status) {
    super("HTTP " + status + " from the server of '" + resource + "'", null, false, false);
    this.status = status;
  }

  /** Returns the status code the call was answered with. */
  public int status() {
    return status;
  }
}
