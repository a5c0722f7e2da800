package dev.weir.spring.criticality;

/**
 * The {@code X-Criticality} headers that are no claim, for the MVC and the WebFlux tests alike:
 * empty, blank, unknown, a list, the header twice, far too long, padded, not ASCII, a number, two
 * words. Each must leave every call at its own criticality and never fail the request.
 */
final class HostileClaims {

  static final String HEADER = "X-Criticality";

  /** Each row: header names and values, as {@code HttpRequest.Builder.headers} takes them. */
  static final String[][] HEADERS = {
      {HEADER, ""},
      {HEADER, "   "},
      {HEADER, "bogus"},
      {HEADER, "SHEDDABLE, SHEDDABLE"},
      {HEADER, "SHEDDABLE,SHEDDABLE"},
      {HEADER, "SHEDDABLE", HEADER, "SHEDDABLE"},
      {HEADER, "SHEDDABLE".repeat(400)},
      {HEADER, "SHEDDABLE_" + "_".repeat(40)},
      {HEADER, "SHEDDABLE\u00ff"},
      {HEADER, "3"},
      {HEADER, "sheddable plus"},
  };

  private HostileClaims() {
  }
}
