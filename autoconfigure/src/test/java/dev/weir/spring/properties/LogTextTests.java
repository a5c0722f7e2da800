package dev.weir.spring.properties;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTests {

  @Test
  void controlCharactersAreEscapedAndLongValuesCut() {
    assertThat(LogText.of("plain 'text' é")).isEqualTo("plain 'text' é");
    assertThat(LogText.of("a\r\nINFO forged\u0000\u001b[31m\u2028")).isEqualTo(
        "a\\u000d\\u000aINFO forged\\u0000\\u001b[31m\\u2028");
    assertThat(LogText.of("x".repeat(5000))).startsWith("x".repeat(LogText.MAX_CHARS) + "...")
        .endsWith("... (904 more characters)");
    assertThat(LogText.of(null)).isEqualTo("null");
  }
}
