package dev.weir.spring.properties;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.RuleViolation;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@link PropertyKeys}: the keys of the properties classes, found by walking their types. */
class PropertyKeysTests {

  /**
   * Every {@code weir.*} property of the metadata that Spring Boot's annotation processor generates
   * from the same classes is a known key (a map's with a key of its own below it): the walk and the
   * processor see the same properties.
   */
  @Test
  void everyPropertyOfTheGeneratedMetadataIsKnown() throws IOException {
    List<String> names = new ArrayList<>();
    for (URL url : Collections.list(getClass().getClassLoader()
        .getResources("META-INF/spring-configuration-metadata.json"))) {
      try (InputStream in = url.openStream()) {
        for (JsonNode property : JsonMapper.builder().build().readTree(in).path("properties")) {
          String name = property.path("name").asString();
          if (name.startsWith("weir.")) {
            names.add(property.path("type").asString().startsWith("java.util.Map") ? name + ".any-key" : name);
          }
        }
      }
    }
    assertThat(names).as("weir.* properties in the metadata").hasSizeGreaterThan(40).contains("weir.strict-keys");
    Map<String, Object> all = new LinkedHashMap<>();
    names.forEach(name -> all.put(name, "x"));
    assertThat(unknown(all)).isEmpty();
  }

  @Test
  void aKeyUnderAValueOrAListWithoutIndexIsUnknown() {
    assertThat(unknown(Map.of("weir.shadow.on", "x", "weir.flow.count", "1"))).extracting(RuleViolation::field)
        .containsExactlyInAnyOrder("weir.shadow.on", "weir.flow.count");
  }

  @Test
  void keysOfOtherPrefixesAreNotLookedAt() {
    assertThat(unknown(Map.of("weirs.flow", "x", "server.port", "8080", "weir", ""))).isEmpty();
  }

  @Test
  void manyUnknownKeysAreReportedUpToABoundAndCounted() {
    Map<String, Object> keys = new LinkedHashMap<>();
    for (int i = 0; i < 500; i++) {
      keys.put("weir.unknown" + i, "x");
    }
    List<RuleViolation> violations = unknown(keys);
    assertThat(violations).hasSize(PropertyKeys.MAX_REPORTED + 1);
    assertThat(violations.get(PropertyKeys.MAX_REPORTED))
        .isEqualTo(new RuleViolation("weir", "has " + (500 - PropertyKeys.MAX_REPORTED) + " more unknown keys"));
  }

  private static List<RuleViolation> unknown(Map<String, Object> keys) {
    List<ConfigurationPropertySource> sources = List.of(new MapConfigurationPropertySource(keys));
    return PropertyKeys.unknown(sources, "weir", WeirProperties.class);
  }
}
