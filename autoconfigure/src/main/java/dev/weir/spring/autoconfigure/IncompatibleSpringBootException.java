package dev.weir.spring.autoconfigure;

/** The application runs on a Spring Boot version this Weir does not support; reported by its analyzer. */
final class IncompatibleSpringBootException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String found;
  private final String supported;

  IncompatibleSpringBootException(String found, String supported) {
    super("Weir supports Spring Boot " + supported + "; this application runs on Spring Boot " + found);
    this.found = found;
    this.supported = supported;
  }

  /** The running Spring Boot's version. */
  String found() {
    return found;
  }

  /** The supported versions. */
  String supported() {
    return supported;
  }
}
