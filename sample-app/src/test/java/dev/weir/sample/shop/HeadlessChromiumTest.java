package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** Without a browser the dashboard's browser tests are skipped, except in CI, where they fail. */
class HeadlessChromiumTest {

  @Test
  void aMissingBrowserSkipsOutsideCiAndFailsInCi() {
    assertThatCode(() -> HeadlessChromium.requireOrAbort(true, "true")).doesNotThrowAnyException();
    assertThatThrownBy(() -> HeadlessChromium.requireOrAbort(false, null)).isInstanceOf(TestAbortedException.class);
    assertThatThrownBy(() -> HeadlessChromium.requireOrAbort(false, "false")).isInstanceOf(TestAbortedException.class);
    assertThatThrownBy(() -> HeadlessChromium.requireOrAbort(false, "true")).isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("required in CI").hasMessageContaining("chromium-driver");
  }
}
