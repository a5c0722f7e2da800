package dev.weir.spring.rules;

import java.util.Map;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** Writes a JSON rule file with Jackson, indented; only loaded for {@code .json} files. */
final class RuleFileJson {

  private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  private RuleFileJson() {
  }

  static byte[] write(Map<String, Object> tree) {
    return JSON.writeValueAsBytes(tree);
  }
}
