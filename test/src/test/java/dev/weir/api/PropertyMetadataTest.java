package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.weir.spring.properties.WeirProperties;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The configuration metadata an IDE completes {@code weir.*} properties from: every property has a
 * description (generated from the Javadoc of its field), and every property whose field starts with
 * a value has that value as its default.
 */
class PropertyMetadataTest {

  private static List<Map<String, Object>> weirProperties() throws Exception {
    Enumeration<URL> files = PropertyMetadataTest.class.getClassLoader()
        .getResources("META-INF/spring-configuration-metadata.json");
    List<Map<String, Object>> found = new ArrayList<>();
    while (files.hasMoreElements()) {
      try (InputStream in = files.nextElement().openStream()) {
        List<Map<String, Object>> properties = JsonPath.read(in, "$.properties[*]");
        properties.stream().filter(property -> String.valueOf(property.get("name")).startsWith("weir."))
            .forEach(found::add);
      }
    }
    return found;
  }

  @Test
  void everyPropertyHasADescription() throws Exception {
    List<Map<String, Object>> properties = weirProperties();
    assertThat(properties).as("weir.* properties in the metadata").hasSizeGreaterThan(30);
    List<String> undescribed = properties.stream()
        .filter(property -> String.valueOf(property.getOrDefault("description", "")).isBlank())
        .map(property -> String.valueOf(property.get("name"))).sorted().collect(Collectors.toList());
    assertThat(undescribed).as("properties without a description (write one in the Javadoc of the field)").isEmpty();
  }

  @Test
  void everyPropertyWithAStartingValueHasItsDefault() throws Exception {
    Map<String, String> defaults = PropertySignatures.of("weir", WeirProperties.class).stream()
        .filter(line -> line.contains(" = ") && !line.contains("[]"))
        .collect(Collectors.toMap(line -> line.substring(0, line.indexOf(" : ")),
            line -> line.substring(line.indexOf(" = ") + 3)));
    List<String> missing = new ArrayList<>();
    for (Map<String, Object> property : weirProperties()) {
      String name = String.valueOf(property.get("name"));
      if (defaults.containsKey(name) && !property.containsKey("defaultValue")) {
        missing.add(name + " (starts as " + defaults.get(name) + ")");
      }
    }
    assertThat(missing).as("properties whose default the metadata does not give").isEmpty();
  }
}
