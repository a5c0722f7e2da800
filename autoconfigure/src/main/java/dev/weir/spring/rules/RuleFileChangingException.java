package dev.weir.spring.rules;

/**
 * A write-back was refused because the rule file kept changing under it: it did not stay unchanged
 * long enough to be trusted whole, or it changed again during each attempt to merge into it. Nothing
 * changed, in the file or in the engine; the {@code weir} endpoint answers {@code 409}, and the same
 * write may simply be tried again once the file is left alone.
 */
public final class RuleFileChangingException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  RuleFileChangingException(String message) {
    super(message);
  }
}
